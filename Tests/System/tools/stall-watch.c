/* stall-watch: records when the guest's timers run late (the emulator's vCPU thread was not
 * scheduled by the host, or the guest kernel held the CPU), one pinned SCHED_FIFO thread per CPU.
 *   stall-watch OUT [--period-ms P] [--threshold-ms T]
 * Each thread sleeps P ms (default 2) in a loop; a wake-up more than T ms (default 20) late is
 * appended to OUT as "cpu=N start_us=S late_us=L" (S: CLOCK_REALTIME µs when the sleep should
 * have ended, L: how late it ended). Runs until killed. snd-aloop moves its "hardware" position by
 * the elapsed jiffies when its timer finally runs, so a late timer copies more than the player's
 * buffer holds: the capture then repeats the buffer (see pcm-match trace --stalls). */
#include "common.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <unistd.h>

static int out_fd = -1;
static long period_us = 2000, threshold_us = 20000;

static int64_t now_us(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void *watch(void *arg) {
    int cpu = (int)(intptr_t)arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    struct sched_param param = {.sched_priority = 99};
    pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
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
        int64_t late = ((int64_t)now.tv_sec - next.tv_sec) * 1000000 + (now.tv_nsec - next.tv_nsec) / 1000;
        if (late > threshold_us) {
            char line[128];
            int n = snprintf(line, sizeof line, "cpu=%d start_us=%lld late_us=%lld\n", cpu,
                             (long long)(now_us(CLOCK_REALTIME) - late), (long long)late);
            if (write(out_fd, line, (size_t)n) < 0) die("write: %s", strerror(errno));
            next = now; /* a new schedule from here: one stall is one line */
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    tool_name = "stall-watch";
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--period-ms") == 0 && i + 1 < argc) period_us = parse_long(argv[++i], "--period-ms") * 1000;
        else if (strcmp(argv[i], "--threshold-ms") == 0 && i + 1 < argc)
            threshold_us = parse_long(argv[++i], "--threshold-ms") * 1000;
        else if (!out && argv[i][0] != '-') out = argv[i];
        else die("usage: stall-watch OUT [--period-ms P] [--threshold-ms T]");
    }
    if (!out || period_us <= 0 || threshold_us <= 0) die("usage: stall-watch OUT [--period-ms P] [--threshold-ms T]");
    out_fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (out_fd < 0) die("open %s: %s", out, strerror(errno));
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1) cpus = 1;
    pthread_t threads[256];
    for (long c = 0; c < cpus && c < 256; c++)
        if (pthread_create(&threads[c], NULL, watch, (void *)(intptr_t)c) != 0) die("pthread_create failed");
    printf("watching %ld CPU(s): period %ld ms, reporting wake-ups more than %ld ms late\n", cpus, period_us / 1000,
           threshold_us / 1000);
    fflush(stdout);
    pthread_join(threads[0], NULL);
    return 0;
}
