// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer's driver, for kiosk-fuzz built with -sanitize=fuzzer (make fuzz): SwiftPM names the
// executable's entry point itself, so kiosk-fuzz's entry calls the driver instead of libFuzzer's
// main. Only declared here: other builds never reference it.
#pragma once

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
