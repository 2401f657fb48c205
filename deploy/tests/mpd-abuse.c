/* mpd-abuse: abusive MPD clients and a fresh client's `status` latency while they run, for the
 * systemd guest of boot-time-qemu.sh --mpd-abuse (a minbase tree has no Python; the system test's
 * Tests/System/tools/mpd-abuse.py does the same there). Built on the host with gcc -static -pthread.
 *
 *   mpd-abuse SOCKET [--play] [--seconds S] [--lists N] [--idle N] [--trickle N] [--deaf N]
 *             [--probe-ms P] [--stall-ms T]
 *
 * --play first waits (up to 120 s) for a folder at the library's root (`lsinfo`), queues it, sets
 * repeat and plays, on a client of its own that it then closes. Then it opens the abusers, all at once:
 *   lists:   `command_list_begin` and 4000 `add` commands, never ended;
 *   idle:    `idle` (a real idle client, which MPD keeps);
 *   trickle: one byte of `status` a second, never a whole line;
 *   deaf:    pipelines `listallinfo` and `status` with a 4 KiB receive buffer and never reads.
 * For S seconds a fresh client connects every P ms (default 200) and times `status` from connect to
 * OK (5 s at most). Meanwhile one SCHED_FIFO 99 thread per CPU sleeps 2 ms at a time and records
 * when it wakes more than 20 ms late: the guest's CPUs did not run (the host did not schedule the
 * emulator), which no server could answer through. A probe that overlaps such a stall of T ms or
 * more (default 100, as Tests/System/scenarios/21-player-mpd-abuse.sh) is counted apart.
 * Prints `key=value` figures; exit status 0 unless the set-up failed (the caller judges). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../../Tests/System/tools/stall-timer.h"

#define MAX_ABUSERS 64
#define MAX_STALLS 4096
#define MAX_PROBES 100000

static const char *socket_path;

__attribute__((noreturn, format(printf, 1, 2))) static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("mpd-abuse: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static long parse_long(const char *text, const char *what) {
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < 0) die("%s: not a number: '%s'", what, text);
    return value;
}

static int64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- stalls of the guest (the hrtimer watcher of Tests/System/tools/stall-watch.c) ---- */

static pthread_mutex_t stall_lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t stall_from[MAX_STALLS], stall_to[MAX_STALLS];
static int stall_count;
static int realtime_refused;

static void record_stall(int cpu, int64_t due_us, int64_t late_us) {
    (void)cpu;
    pthread_mutex_lock(&stall_lock);
    if (stall_count < MAX_STALLS) {
        stall_from[stall_count] = due_us;
        stall_to[stall_count] = due_us + late_us;
        stall_count++;
    }
    pthread_mutex_unlock(&stall_lock);
}

static void *watch_cpu(void *arg) {
    int cpu = (int)(intptr_t)arg;
    if (stall_timer_pin(cpu) != 0) realtime_refused = 1;
    stall_timer_run(cpu, 2000, 20000, record_stall);
}

static void start_stall_watch(void) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < cpus && c < 64; c++) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, watch_cpu, (void *)(intptr_t)c) != 0) die("pthread_create failed");
        pthread_detach(thread);
    }
}

/* ---- clients ---- */

static int connect_socket(int timeout_ms) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket: %s", strerror(errno));
    struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, socket_path, sizeof address.sun_path - 1);
    int status;
    while ((status = connect(fd, (struct sockaddr *)&address, sizeof address)) != 0 && errno == EINTR) {
    }
    if (status != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/* Reads until the buffer ends with a whole line that `done` accepts; returns its length or -1. */
static ssize_t read_until(int fd, char *buffer, size_t size, int (*done)(const char *, size_t)) {
    size_t used = 0;
    for (;;) {
        if (used + 1 >= size) used = 0; /* a long answer: only its end matters */
        ssize_t n = recv(fd, buffer + used, size - 1 - used, 0);
        if (n < 0 && errno == EINTR) continue; /* a socket with a timeout is not restarted after a stop */
        if (n <= 0) return -1;
        used += (size_t)n;
        buffer[used] = '\0';
        if (done(buffer, used)) return (ssize_t)used;
    }
}

static int is_line(const char *buffer, size_t used) { return used > 0 && buffer[used - 1] == '\n'; }

static int is_answer(const char *buffer, size_t used) {
    if (!is_line(buffer, used)) return 0;
    if (strstr(buffer, "ACK [") != NULL) return 1;
    return (used == 3 && memcmp(buffer, "OK\n", 3) == 0) || (used > 3 && memcmp(buffer + used - 4, "\nOK\n", 4) == 0);
}

/* One command on a connected client; its answer in `buffer`; 0 for OK, -1 otherwise. */
static int command(int fd, const char *text, char *buffer, size_t size) {
    ssize_t sent;
    while ((sent = send(fd, text, strlen(text), MSG_NOSIGNAL)) < 0 && errno == EINTR) {
    }
    if (sent != (ssize_t)strlen(text)) return -1;
    if (read_until(fd, buffer, size, is_answer) < 0) return -1;
    return strstr(buffer, "ACK [") == NULL ? 0 : -1;
}

/* A fresh client: connect, greeting, `status`, OK. Milliseconds, or -1 with `why`. */
static double probe(const char **why) {
    static char buffer[8192];
    int64_t start = now_us();
    int fd = connect_socket(5000);
    if (fd < 0) {
        *why = "connect";
        return -1;
    }
    double ms = -1;
    if (read_until(fd, buffer, sizeof buffer, is_line) < 0) *why = "no greeting";
    else if (command(fd, "status\n", buffer, sizeof buffer) != 0) *why = "no OK for status";
    else ms = (double)(now_us() - start) / 1000.0;
    close(fd);
    return ms;
}

static int field(const char *answer, const char *key, char *value, size_t size) {
    size_t length = strlen(key);
    for (const char *line = answer; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, key, length) == 0 && line[length] == ':' && line[length + 1] == ' ') {
            const char *start = line + length + 2, *end = strchr(start, '\n');
            size_t n = end ? (size_t)(end - start) : strlen(start);
            if (n >= size) n = size - 1;
            memcpy(value, start, n);
            value[n] = '\0';
            return 1;
        }
    }
    return 0;
}

/* Waits for the library's first folder, queues it, repeat on, play; 0 when it plays. */
static int set_up_playback(void) {
    static char buffer[1 << 16];
    char folder[512], value[64], line[1200];
    int64_t deadline = now_us() + 120 * 1000000LL;
    for (;;) {
        int fd = connect_socket(10000);
        if (fd >= 0 && read_until(fd, buffer, sizeof buffer, is_line) > 0 &&
            command(fd, "lsinfo\n", buffer, sizeof buffer) == 0 && field(buffer, "directory", folder, sizeof folder)) {
            char quoted[1100];
            size_t q = 0;
            for (const char *c = folder; *c && q + 3 < sizeof quoted; c++) {
                if (*c == '"' || *c == '\\') quoted[q++] = '\\';
                quoted[q++] = *c;
            }
            quoted[q] = '\0';
            snprintf(line, sizeof line, "add \"%s\"\n", quoted);
            if (command(fd, "clear\n", buffer, sizeof buffer) == 0 && command(fd, line, buffer, sizeof buffer) == 0 &&
                command(fd, "repeat 1\n", buffer, sizeof buffer) == 0 && command(fd, "play\n", buffer, sizeof buffer) == 0 &&
                command(fd, "status\n", buffer, sizeof buffer) == 0 && field(buffer, "state", value, sizeof value) &&
                strcmp(value, "play") == 0) {
                field(buffer, "playlistlength", value, sizeof value);
                printf("setup=queued %s tracks of '%s', repeat on, playing\n", value, folder);
                fflush(stdout);
                close(fd);
                return 0;
            }
        }
        if (fd >= 0) close(fd);
        if (now_us() > deadline) {
            printf("setup=failed: no folder to play at the library's root after 120 s (last answer: %.200s)\n", buffer);
            return -1;
        }
        sleep(1);
    }
}

enum kind { LISTS, IDLE, TRICKLE, DEAF };
static const char *kind_names[] = {"lists", "idle", "trickle", "deaf"};

struct abuser {
    enum kind kind;
    int fd;
    size_t sent; /* lists: bytes of the list sent so far */
};

static int still_open(int fd) {
    char buffer[65536];
    for (;;) {
        ssize_t n = recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
        if (n > 0) continue;
        if (n == 0) return 0;
        return errno == EAGAIN || errno == EWOULDBLOCK;
    }
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int counts[4] = {16, 16, 16, 15}, play = 0;
    long seconds = 30, probe_ms = 200, stall_ms = 100;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--play") == 0) play = 1;
        else if (strcmp(a, "--seconds") == 0 && next) seconds = parse_long(argv[++i], a);
        else if (strcmp(a, "--lists") == 0 && next) counts[LISTS] = (int)parse_long(argv[++i], a);
        else if (strcmp(a, "--idle") == 0 && next) counts[IDLE] = (int)parse_long(argv[++i], a);
        else if (strcmp(a, "--trickle") == 0 && next) counts[TRICKLE] = (int)parse_long(argv[++i], a);
        else if (strcmp(a, "--deaf") == 0 && next) counts[DEAF] = (int)parse_long(argv[++i], a);
        else if (strcmp(a, "--probe-ms") == 0 && next) probe_ms = parse_long(argv[++i], a);
        else if (strcmp(a, "--stall-ms") == 0 && next) stall_ms = parse_long(argv[++i], a);
        else if (!socket_path && a[0] != '-') socket_path = a;
        else die("usage: mpd-abuse SOCKET [--play] [--seconds S] [--lists N] [--idle N] [--trickle N] [--deaf N] "
                 "[--probe-ms P] [--stall-ms T]");
    }
    if (!socket_path || probe_ms < 1) die("usage: mpd-abuse SOCKET [options]");
    if (counts[LISTS] + counts[IDLE] + counts[TRICKLE] + counts[DEAF] > MAX_ABUSERS) die("at most %d abusers", MAX_ABUSERS);
    if (play && set_up_playback() != 0) return 2;
    start_stall_watch();

    static struct abuser abusers[MAX_ABUSERS];
    int abuser_count = 0;
    static char greeting[256];
    for (int k = 0; k < 4; k++) {
        for (int n = 0; n < counts[k]; n++) {
            int fd = connect_socket(5000);
            if (fd < 0 || read_until(fd, greeting, sizeof greeting, is_line) < 0) {
                printf("abusers=%d\nsetup=failed: abuser %d (%s) got no greeting\n", abuser_count, abuser_count + 1,
                       kind_names[k]);
                return 2;
            }
            if (k == DEAF) {
                int size = 4096;
                setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
            }
            abusers[abuser_count++] = (struct abuser){.kind = (enum kind)k, .fd = fd};
        }
    }
    printf("abusers=%d\n", abuser_count);
    fflush(stdout);

    static char list_bytes[19 + 4000 * 16 + 1];
    size_t list_length = 0;
    list_length += (size_t)sprintf(list_bytes, "command_list_begin\n");
    for (int n = 0; n < 4000; n++) list_length += (size_t)sprintf(list_bytes + list_length, "add \"x/y.flac\"\n");
    static char deaf_bytes[2000 * 19 + 1];
    size_t deaf_length = 0;
    for (int n = 0; n < 2000; n++) deaf_length += (size_t)sprintf(deaf_bytes + deaf_length, "listallinfo\nstatus\n");
    for (int i = 0; i < abuser_count; i++) {
        if (abusers[i].kind == IDLE) send(abusers[i].fd, "idle\n", 5, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (abusers[i].kind == DEAF) send(abusers[i].fd, deaf_bytes, deaf_length, MSG_DONTWAIT | MSG_NOSIGNAL);
    }

    static double latency[MAX_PROBES];
    static int64_t probe_start[MAX_PROBES], probe_end[MAX_PROBES];
    int probes = 0, failures = 0;
    const char *first_failure = NULL;
    const char trickle_text[] = "status";
    int trickle_at = 0;
    int64_t started = now_us(), next_trickle = started, next_probe = started;
    while (now_us() - started < seconds * 1000000LL) {
        /* sleep until a list socket takes more or the next trickle or probe is due */
        struct pollfd waiting[MAX_ABUSERS];
        int waiting_index[MAX_ABUSERS], n_waiting = 0;
        for (int i = 0; i < abuser_count; i++) {
            if (abusers[i].kind == LISTS && abusers[i].sent < list_length) {
                waiting[n_waiting] = (struct pollfd){.fd = abusers[i].fd, .events = POLLOUT};
                waiting_index[n_waiting++] = i;
            }
        }
        int64_t due = next_trickle < next_probe ? next_trickle : next_probe;
        int64_t wait = due - now_us();
        poll(waiting, (nfds_t)n_waiting, wait > 0 ? (int)(wait / 1000) : 0);
        for (int w = 0; w < n_waiting; w++) {
            struct abuser *a = &abusers[waiting_index[w]];
            if (waiting[w].revents & (POLLERR | POLLHUP)) a->sent = list_length;
            else if (waiting[w].revents & POLLOUT) {
                ssize_t n = send(a->fd, list_bytes + a->sent, list_length - a->sent, MSG_DONTWAIT | MSG_NOSIGNAL);
                if (n > 0) a->sent += (size_t)n;
                else if (n < 0 && errno != EAGAIN) a->sent = list_length;
            }
        }
        int64_t now = now_us();
        if (now >= next_trickle) {
            char byte = trickle_text[trickle_at++ % 6];
            for (int i = 0; i < abuser_count; i++)
                if (abusers[i].kind == TRICKLE) send(abusers[i].fd, &byte, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
            next_trickle += 1000000;
        }
        if (now >= next_probe && probes < MAX_PROBES) {
            const char *why = NULL;
            int64_t start = now_us();
            double ms = probe(&why);
            if (ms < 0) {
                failures++;
                if (!first_failure) first_failure = why;
            } else {
                probe_start[probes] = start;
                probe_end[probes] = now_us();
                latency[probes++] = ms;
            }
            next_probe = now_us() + probe_ms * 1000;
        }
    }

    int kept[4] = {0}, lists_taken = 0;
    for (int i = 0; i < abuser_count; i++) {
        kept[abusers[i].kind] += still_open(abusers[i].fd);
        if (abusers[i].kind == LISTS && abusers[i].sent >= list_length) lists_taken++;
    }
    pthread_mutex_lock(&stall_lock);
    int judged = 0, excused = 0, stalls_long = 0;
    double worst = -1, worst_excused = -1, longest_stall_ms = 0;
    for (int s = 0; s < stall_count; s++) {
        double ms = (double)(stall_to[s] - stall_from[s]) / 1000.0;
        if (ms > longest_stall_ms) longest_stall_ms = ms;
        if (ms >= (double)stall_ms) stalls_long++;
    }
    for (int p = 0; p < probes; p++) {
        int stalled = 0;
        for (int s = 0; s < stall_count && !stalled; s++)
            stalled = stall_to[s] - stall_from[s] >= stall_ms * 1000 && stall_from[s] < probe_end[p] &&
                      stall_to[s] > probe_start[p];
        if (stalled) {
            excused++;
            if (latency[p] > worst_excused) worst_excused = latency[p];
        } else {
            judged++;
            if (latency[p] > worst) worst = latency[p];
        }
    }
    int stalls_seen = stall_count;
    pthread_mutex_unlock(&stall_lock);
    double slowest[5];
    qsort(latency, (size_t)probes, sizeof latency[0], compare_doubles);
    for (int i = 0; i < 5; i++) slowest[i] = probes > i ? latency[probes - 1 - i] : -1;
    printf("probes=%d\nfailures=%d\n", probes, failures);
    if (first_failure) printf("first_failure=%s\n", first_failure);
    printf("max_ms=%.1f\np50_ms=%.1f\np99_ms=%.1f\n", probes ? latency[probes - 1] : -1.0, probes ? latency[probes / 2] : -1.0,
           probes ? latency[(probes * 99) / 100] : -1.0);
    printf("slowest_ms=%.1f,%.1f,%.1f,%.1f,%.1f\n", slowest[0], slowest[1], slowest[2], slowest[3], slowest[4]);
    printf("judged=%d\nworst_ms=%.1f\nduring_stalls=%d\nworst_during_stalls_ms=%.1f\n", judged, worst, excused,
           worst_excused);
    printf("vm_stalls_over_20ms=%d\nvm_stalls_over_%ldms=%d\nlongest_vm_stall_ms=%.1f\n", stalls_seen, stall_ms, stalls_long,
           longest_stall_ms);
    if (realtime_refused) printf("stall_watch=without SCHED_FIFO (refused)\n");
    printf("lists_taken=%d\n", lists_taken);
    for (int k = 0; k < 4; k++)
        if (counts[k] > 0) printf("kept_%s=%d\n", kind_names[k], kept[k]);
    return 0;
}
