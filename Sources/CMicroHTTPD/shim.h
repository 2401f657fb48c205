// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>
