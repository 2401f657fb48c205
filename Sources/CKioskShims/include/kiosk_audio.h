// SPDX-License-Identifier: GPL-3.0-or-later
// Audio-thread helpers for KioskAudio: an event count (futex wait/wake on a 32-bit word) and the
// lookup of the optional allocation counter that Benchmarks/kiosk_alloc_counter.c provides.
#pragma once
#include <stddef.h>
#include <stdint.h>

/// Event count word layout: bit 0 = "a waiter may be sleeping", bits 1… = a sequence number.
/// Use: `key = kiosk_evc_prepare(w)`; re-check the condition; if still false `kiosk_evc_wait(w, key, t)`.
/// `kiosk_evc_signal(w)` after making a condition true wakes every waiter; it costs one load when
/// nobody waits. Lock-free, never allocates: usable on audio threads.
uint32_t kiosk_evc_prepare(uint32_t *word);
/// Sleeps until the word changes from `key` or `timeout_ns` passes (negative = no limit). May
/// return early (spuriously): callers loop.
void kiosk_evc_wait(uint32_t *word, uint32_t key, int64_t timeout_ns);
/// Advances the sequence and wakes all waiters, when a waiter announced itself.
void kiosk_evc_signal(uint32_t *word);

/// The calling thread's allocator and lock call counts, as kept by the LD_PRELOAD library built
/// from Benchmarks/kiosk_alloc_counter.c.
typedef void (*kiosk_alloc_counter_read_fn)(uint64_t *allocations, uint64_t *locks);
/// The counter function when that library is preloaded, else NULL (normal runs).
kiosk_alloc_counter_read_fn kiosk_alloc_counter_lookup(void);

/// Reserves `bytes` of zeroed private memory for the audio ring without touching it: a page is
/// faulted in (and locked in RAM, when RLIMIT_MEMLOCK allows) the first time it is written.
/// NULL when the memory cannot be mapped.
void *kiosk_ring_reserve(size_t bytes);
/// Gives the pages of [`address`, `address` + `bytes`) back to the kernel (they read as zeros and
/// fault again when next written), keeping the reservation and its lock-on-fault.
void kiosk_ring_release(void *address, size_t bytes);
/// Unmaps what `kiosk_ring_reserve` mapped.
void kiosk_ring_free(void *address, size_t bytes);
/// Minor page faults of the calling thread so far (`getrusage(RUSAGE_THREAD)`).
uint64_t kiosk_thread_minor_faults(void);
