// SPDX-License-Identifier: GPL-3.0-or-later
// How many bytes the process's heap holds right now: glibc's mallinfo2 (every arena, mmapped
// chunks included), or AddressSanitizer's allocator when the build has it (make fuzz), whose
// malloc mallinfo2 does not see. Sampled around a decode, it measures what the decode allocated.
#pragma once
#include <stddef.h>

size_t kiosk_heap_in_use(void);
