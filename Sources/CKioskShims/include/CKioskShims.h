// SPDX-License-Identifier: GPL-3.0-or-later
// The small C that Swift cannot express: ioctl request macros, variadic calls and library APIs
// that differ between versions. One header per area; each is included here.
#pragma once

#include "kiosk_sys.h"
#include "kiosk_gpio.h"
#include "kiosk_audio.h"
#include "kiosk_alsa.h"
#include "kiosk_evdev.h"
#include "kiosk_keyboard.h"
#include "kiosk_fb.h"
#include "kiosk_png.h"
#include "kiosk_jpeg.h"
#include "kiosk_heap.h"
#include "kiosk_library.h"
#include "kiosk_spi.h"
#include "kiosk_core.h"
#include "kiosk_net.h"
#include "kiosk_fuzz.h"
#include "kiosk_sandbox.h"
