// SPDX-License-Identifier: GPL-3.0-or-later
#include "kiosk_core.h"

#include <malloc.h>

int kiosk_malloc_trim(void) { return malloc_trim(0); }

int kiosk_malloc_arena_max(int arenas) { return mallopt(M_ARENA_MAX, arenas); }

void kiosk_malloc_usage(size_t *in_use, size_t *free_held) {
    struct mallinfo2 info = mallinfo2();
    *in_use = info.uordblks + info.hblkhd;
    *free_held = info.fordblks;
}
