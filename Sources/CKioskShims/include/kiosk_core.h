// SPDX-License-Identifier: GPL-3.0-or-later
// The player's memory housekeeping: glibc's malloc_trim and arena limit (<malloc.h>, which the
// Glibc module does not bring into Swift).
#pragma once

#include <stddef.h>

/// Gives the free memory of every malloc arena back to the kernel; 1 when some was released.
int kiosk_malloc_trim(void);

/// Limits the number of malloc arenas (each thread that allocates may otherwise get its own, which
/// keeps its freed memory); 1 on success. Call before starting threads.
int kiosk_malloc_arena_max(int arenas);

/// Bytes malloc has handed out and not got back, and bytes it holds free (glibc's mallinfo2).
void kiosk_malloc_usage(size_t *in_use, size_t *free_held);
