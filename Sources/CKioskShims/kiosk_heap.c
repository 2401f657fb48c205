// SPDX-License-Identifier: GPL-3.0-or-later
#include "kiosk_heap.h"

#include <malloc.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KIOSK_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define KIOSK_ASAN 1
#endif

#ifdef KIOSK_ASAN
#include <sanitizer/allocator_interface.h>
size_t kiosk_heap_in_use(void) { return __sanitizer_get_current_allocated_bytes(); }
#else
size_t kiosk_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
#endif
