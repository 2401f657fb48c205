// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The header's static stdio callback sets are unused here (the decoder reads through its own descriptor).
#define OV_EXCLUDE_STATIC_CALLBACKS
#include <vorbis/vorbisfile.h>
