#define _GNU_SOURCE
#include "kiosk_audio.h"

#include <dlfcn.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

uint32_t kiosk_evc_prepare(uint32_t *word) {
    uint32_t value = __atomic_fetch_or(word, 1u, __ATOMIC_SEQ_CST) | 1u;
    // The caller's re-check of its condition must not move above the announcement.
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return value;
}

void kiosk_evc_wait(uint32_t *word, uint32_t key, int64_t timeout_ns) {
    struct timespec ts;
    struct timespec *timeout = NULL;
    if (timeout_ns >= 0) {
        ts.tv_sec = (time_t)(timeout_ns / 1000000000);
        ts.tv_nsec = (long)(timeout_ns % 1000000000);
        timeout = &ts;
    }
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, key, timeout, NULL, 0);
}

void kiosk_evc_signal(uint32_t *word) {
    // Orders the caller's condition store before the check for waiters (Dekker with prepare).
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    uint32_t value = __atomic_load_n(word, __ATOMIC_SEQ_CST);
    while (value & 1u) {
        // (2k + 1) + 1: clears the waiter bit and advances the sequence in one step.
        if (__atomic_compare_exchange_n(word, &value, value + 1u, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
            return;
        }
    }
}

kiosk_alloc_counter_read_fn kiosk_alloc_counter_lookup(void) {
    return (kiosk_alloc_counter_read_fn)dlsym(RTLD_DEFAULT, "kiosk_alloc_counter_read");
}
