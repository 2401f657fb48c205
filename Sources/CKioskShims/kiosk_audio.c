// SPDX-License-Identifier: GPL-3.0-or-later
#define _GNU_SOURCE
#include "kiosk_audio.h"

#include <dlfcn.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/resource.h>
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

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 1
#endif

void *kiosk_ring_reserve(size_t bytes) {
    void *address = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (address == MAP_FAILED) return NULL;
    // Lock each page as it is first written (mlock would fault the whole reservation in now); not
    // permitted or not supported (before Linux 4.4): the pages are merely not locked.
    (void)syscall(SYS_mlock2, address, bytes, MLOCK_ONFAULT);
    return address;
}

void kiosk_ring_release(void *address, size_t bytes) {
    if (bytes == 0) return;
    // Locked pages cannot be discarded: unlock, discard, lock-on-fault again. The unlock is the
    // raw system call, as the lock is: the sanitizers' runtimes make munlock() a no-op, and the
    // discard then failed on the still-locked pages (RingBufferTests under make tsan).
    (void)syscall(SYS_munlock, address, bytes);
    (void)madvise(address, bytes, MADV_DONTNEED);
    (void)syscall(SYS_mlock2, address, bytes, MLOCK_ONFAULT);
}

void kiosk_ring_free(void *address, size_t bytes) {
    (void)munmap(address, bytes);
}

uint64_t kiosk_thread_minor_faults(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_THREAD, &usage) != 0) return 0;
    return (uint64_t)usage.ru_minflt;
}
