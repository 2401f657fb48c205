// SPDX-License-Identifier: GPL-3.0-or-later
/* gpio-bounce PULL_FILE up|down [PATTERN_US]
 * Moves a gpio-sim line to a level the way a mechanical contact does: the target level, then
 * short opposite pulses, ending at the target level. PATTERN_US lists the time (µs) spent at each
 * level before the next write, alternating target/opposite (default "400,150,300,100": five
 * writes, 1 ms of pulses; under TCG each write costs the guest about a millisecond of kernel
 * work (gpio-sim → irq_sim → gpiolib edge events), so it takes 3–6 ms there, around the 5 ms
 * default debounce, as a worn button would). Runs at SCHED_FIFO when allowed and
 * busy-waits between writes, so the bounce keeps its shape as far as the (emulated) CPU allows.
 * Prints the achieved duration in µs and the wall-clock time (µs since the epoch) of the first
 * write, the contact's first touch; an emulator that stalls the CPU stretches the duration. */
#include "common.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv) {
    tool_name = "gpio-bounce";
    if (argc < 3 || argc > 4) die("usage: gpio-bounce PULL_FILE up|down [PATTERN_US]");
    const char *target = strcmp(argv[2], "up") == 0 ? "pull-up" : strcmp(argv[2], "down") == 0 ? "pull-down" : NULL;
    if (!target) die("level must be up or down, not '%s'", argv[2]);
    const char *other = target[5] == 'u' ? "pull-down" : "pull-up";
    long pattern[32];
    int steps = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", argc == 4 ? argv[3] : "400,150,300,100");
    for (char *tok = strtok(buf, ","); tok && steps < 32; tok = strtok(NULL, ",")) pattern[steps++] = parse_long(tok, "pattern");

    struct sched_param sp = {.sched_priority = 80};
    sched_setscheduler(0, SCHED_FIFO, &sp); /* best effort */
    mlockall(MCL_CURRENT);
    int fd = open(argv[1], O_WRONLY | O_CLOEXEC);
    if (fd < 0) die("open %s: %s", argv[1], strerror(errno));
    long long start = now_ns();
    struct timespec first = {0, 0};
    for (int i = 0; i <= steps; i++) {
        const char *level = i % 2 == 0 ? target : other;
        if (i == steps) level = target;
        if (i == 0) clock_gettime(CLOCK_REALTIME, &first);
        if (pwrite(fd, level, strlen(level), 0) < 0) die("write %s: %s", argv[1], strerror(errno));
        if (i == steps) break;
        long long until = now_ns() + pattern[i] * 1000LL;
        while (now_ns() < until) {
        }
    }
    printf("%lld %lld\n", (now_ns() - start) / 1000, (long long)first.tv_sec * 1000000LL + first.tv_nsec / 1000);
    close(fd);
    return 0;
}
