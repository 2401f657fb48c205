// SPDX-License-Identifier: GPL-3.0-or-later
/* stall-watch: records when the guest's timers run late (the emulator's vCPU thread was not
 * scheduled by the host, or the guest kernel held the CPU): one pinned SCHED_FIFO thread per CPU
 * on hrtimers, and one on the ALSA system timer (a jiffies timer_list, as snd-aloop's).
 *   stall-watch OUT [--period-ms P] [--threshold-ms T]
 * Each CPU thread sleeps P ms (default 2) in a loop; a wake-up more than T ms (default 20) late is
 * appended to OUT as "cpu=N start_us=S late_us=L" (S: CLOCK_REALTIME µs when the sleep should
 * have ended, L: how late it ended), a late jiffies tick as "cpu=jiffies …". Runs until killed. snd-aloop moves its "hardware" position by
 * the elapsed jiffies when its timer finally runs, so a late timer copies more than the player's
 * buffer holds: the capture then repeats the buffer (see pcm-match trace --stalls). */
#include "common.h"
#include "stall-timer.h"

#include <alsa/asoundlib.h>
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

static void record(const char *source, long long late) {
    char line[128];
    int n = snprintf(line, sizeof line, "cpu=%s start_us=%lld late_us=%lld\n", source,
                     (long long)(now_us(CLOCK_REALTIME) - late), late);
    if (write(out_fd, line, (size_t)n) < 0) die("write: %s", strerror(errno));
}

static void record_cpu(int cpu, int64_t due_us, int64_t late_us) {
    (void)due_us;
    char source[16];
    snprintf(source, sizeof source, "%d", cpu);
    record(source, late_us);
}

static void *watch(void *arg) {
    int cpu = (int)(intptr_t)arg;
    stall_timer_pin(cpu);
    stall_timer_run(cpu, period_us, threshold_us, record_cpu);
}

/* ALSA's global system timer runs on a jiffies timer_list, like snd-aloop's: its callback runs in
 * softirq context, which the kernel may hand to ksoftirqd (a normal-priority thread), so it can
 * run late while hrtimers (the threads above) are on time. Each read reports how many 1-jiffy
 * ticks passed since the last: more than one is that much late. */
static void *watch_jiffies(void *arg) {
    (void)arg;
    snd_timer_t *timer = NULL;
    if (snd_timer_open(&timer, "hw:CLASS=1,SCLASS=0,CARD=0,DEV=0,SUBDEV=0", 0) < 0) {
        fprintf(stderr, "stall-watch: no ALSA system timer (snd-timer): jiffies timers are not watched\n");
        return NULL;
    }
    snd_timer_params_t *params;
    snd_timer_params_alloca(&params);
    snd_timer_params_set_auto_start(params, 1);
    snd_timer_params_set_ticks(params, 1);
    if (snd_timer_params(timer, params) < 0 || snd_timer_start(timer) < 0) {
        fprintf(stderr, "stall-watch: cannot start the ALSA system timer\n");
        return NULL;
    }
    struct sched_param param = {.sched_priority = 99};
    pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
    snd_timer_read_t tick;
    while (snd_timer_read(timer, &tick, sizeof tick) == sizeof tick) {
        long long late = (long long)(tick.ticks > 1 ? tick.ticks - 1 : 0) * tick.resolution / 1000;
        if (late > threshold_us) record("jiffies", late);
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
    pthread_t threads[257];
    for (long c = 0; c < cpus && c < 256; c++)
        if (pthread_create(&threads[c], NULL, watch, (void *)(intptr_t)c) != 0) die("pthread_create failed");
    pthread_t jiffies_thread;
    if (pthread_create(&jiffies_thread, NULL, watch_jiffies, NULL) != 0) die("pthread_create failed");
    printf("watching %ld CPU(s) (hrtimers every %ld ms) and the jiffies timers (ALSA system timer), reporting "
           "more than %ld ms late\n",
           cpus, period_us / 1000, threshold_us / 1000);
    fflush(stdout);
    pthread_join(threads[0], NULL);
    return 0;
}
