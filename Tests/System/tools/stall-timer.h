// SPDX-License-Identifier: GPL-3.0-or-later
/* The stall watcher shared by Tests/System/tools/stall-watch.c and deploy/tests/mpd-abuse.c: a thread
 * pinned to one CPU at SCHED_FIFO 99 sleeps a period at a time on an absolute hrtimer schedule, and a
 * wake-up more than a threshold late means the (guest's) CPU did not run: the emulator's vCPU thread
 * was not scheduled by the host, or the kernel held the CPU. Header-only, no other dependency. */
#pragma once
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>

/* Called on each late wake-up: the CPU, when the sleep should have ended (CLOCK_MONOTONIC µs) and
 * how late it ended (µs). */
typedef void (*stall_handler)(int cpu, int64_t due_us, int64_t late_us);

/* Pins the calling thread to `cpu` and raises it to SCHED_FIFO 99; returns 0, or -1 when real-time
 * priority was refused (the thread then watches at normal priority). */
static inline int stall_timer_pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    struct sched_param param = {.sched_priority = 99};
    return pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0 ? 0 : -1;
}

/* Sleeps `period_us` at a time forever, calling `on_late` for each wake-up more than `threshold_us`
 * late; after one, a new schedule starts from then, so one stall is one call. */
__attribute__((noreturn)) static inline void stall_timer_run(int cpu, long period_us, long threshold_us,
                                                             stall_handler on_late) {
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (;;) {
        next.tv_nsec += period_us * 1000;
        while (next.tv_nsec >= 1000000000) {
            next.tv_nsec -= 1000000000;
            next.tv_sec++;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) {
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t due = (int64_t)next.tv_sec * 1000000 + next.tv_nsec / 1000;
        int64_t late = (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000 - due;
        if (late > threshold_us) {
            on_late(cpu, due, late);
            next = now;
        }
    }
}
