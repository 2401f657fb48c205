// SPDX-License-Identifier: GPL-3.0-or-later
/* pcm-match: bit-exact comparison of captured PCM against a decoded reference (raw interleaved
 * little-endian frames, e.g. `arecord -t raw` and `flac -d --force-raw-format -c`).
 *   pcm-match locate CAPTURE REFERENCE [--from F] [--frames N] [CHECK OPTIONS]
 *       Takes the capture from its first non-silent frame at or after frame F, finds where it is
 *       in REFERENCE and follows N reference frames (default 44100) through the capture, bit-exact
 *       and in order. Prints "capture_frame=C reference_frame=R frames=N matches=M track_start=C-R
 *       gap_frames=G replay_frames=P lost_frames=L replaced_frames=R" and exits 0; exits 1 with the reason (all
 *       silence, capture too short, not in the reference, where and how the frames broke off).
 *       matches: places the first 64 frames occur (2 = at least two).
 *   pcm-match find CAPTURE REFERENCE [--from F] [--ref-from R] [--frames N] [CHECK OPTIONS]
 *       The other direction: the reference from its first sound at or after frame R is looked for
 *       in the capture at or after frame F ("did track 2 start after the press?"), then followed
 *       through N frames. Same output.
 *   CHECK OPTIONS
 *   --gaps   digital silence inserted between frames is allowed (an output underrun): G counts it.
 *            Every sounding frame must still come, bit-exact and in order.
 *   --stalls FILE --epoch-us E [--rate HZ]
 *            FILE: stall-watch's record of when the guest's timers ran late; E: when capture frame
 *            0 was captured (CLOCK_REALTIME µs). snd-aloop's artefacts of a late timer are then
 *            allowed where a stall of 20 ms or more was recorded within 0.5 s: the player's ring
 *            buffer copied round again (P frames heard a second time, from at most 250 ms before
 *            the expected frame) and, where frames were put in the place of others (that replay,
 *            or silence), at most as many frames never coming (L: the ALSA core missed that lap,
 *            so the player's next frames went where the emulated DMA had already been, or the
 *            kernel's silence fill zeroed them). Anywhere: whole laps (exactly the last D frames
 *            heard again, D = the player's buffer, 20–250 ms: the timer ran late by more than
 *            the buffer, which the watch may not see: it measures hrtimers, snd-aloop uses a
 *            jiffies timer that softirq deferral can hold back); and snd-aloop's write race at the
 *            edge of an underrun: up to two jiffies of frames (353 at 44.1 kHz) replaced in place
 *            by silence (as many silent frames as frames missing, ±1); find then also accepts a
 *            track whose first frames were so replaced (R: replaced_frames=). Nothing else is
 *            excused.
 *   pcm-match trace CAPTURE REFERENCE [--from F] [--frames N] [--stalls FILE --epoch-us E]
 *       Follows the capture like locate (to the end unless --frames), printing every stretch:
 *       "match", "silence", "replay" (frames heard before), "lost" (frames that never came),
 *       "NOT ALLOWED: …"; then "trace: … matched=M silence=S replayed=P lost=L not_allowed=X …".
 *       Exit 0 when everything is allowed (silence always is here).
 *   pcm-match first-sound CAPTURE [--from F] [--frame-bytes B]
 *       Prints the index of the first frame at or after F that is not all zero (exit 1: none).
 *   pcm-match last-sound CAPTURE --before F [--frame-bytes B]
 *       Prints the index of the last frame before F that is not all zero (exit 1: none).
 *   pcm-match silent CAPTURE --from F --frames N [--frame-bytes B]
 *       Exit 0 when frames F..F+N of CAPTURE are all zero; else prints the first sounding frame.
 *   pcm-match frames FILE [--frame-bytes B]
 *       Prints the number of whole frames in FILE.
 *   pcm-match generate OUT --seconds S --seed N
 *       Writes S seconds of 44.1 kHz 16-bit stereo test signal that never repeats (noise plus a
 *       sweeping tone), different for every seed.
 * Frame bytes default to 4 (16-bit stereo). */
#include "common.h"

#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    const uint8_t *data;
    size_t frames;
} Pcm;

static Pcm map_pcm(const char *path, size_t frame_bytes) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) die("open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0) die("stat %s: %s", path, strerror(errno));
    Pcm pcm = {NULL, (size_t)st.st_size / frame_bytes};
    if (st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) die("mmap %s: %s", path, strerror(errno));
        pcm.data = p;
    }
    close(fd);
    return pcm;
}

static int frame_silent(const uint8_t *frame, size_t frame_bytes) {
    for (size_t i = 0; i < frame_bytes; i++)
        if (frame[i]) return 0;
    return 1;
}

static long first_sound(Pcm pcm, size_t from, size_t frame_bytes) {
    for (size_t f = from; f < pcm.frames; f++)
        if (!frame_silent(pcm.data + f * frame_bytes, frame_bytes)) return (long)f;
    return -1;
}

/* --- following the capture through the reference ---------------------------------------------- */

#define BLOCK 64 /* frames that must agree to call a position found */

static int frames_equal(Pcm a, size_t ai, Pcm b, size_t bi, size_t n, size_t fb) {
    if (ai + n > a.frames || bi + n > b.frames) return 0;
    return memcmp(a.data + ai * fb, b.data + bi * fb, n * fb) == 0;
}

/* the first position in `hay` from `from` to `to` where `n` frames of `needle` at `at` occur */
static long find_block(Pcm hay, size_t from, size_t to, Pcm needle, size_t at, size_t n, size_t fb) {
    if (n == 0 || at + n > needle.frames) return -1;
    const uint8_t *first = needle.data + at * fb;
    for (size_t r = from; r + n <= hay.frames && r <= to; r++)
        if (memcmp(hay.data + r * fb, first, fb) == 0 && frames_equal(hay, r, needle, at, n, fb)) return (long)r;
    return -1;
}

/* VM stalls recorded in the guest by stall-watch ("cpu=N start_us=S late_us=L" lines). */
typedef struct {
    long long start_us, late_us;
} Stall;

typedef struct {
    Stall *stalls;
    size_t count;
    long long epoch_us; /* when capture frame 0 was captured (CLOCK_REALTIME µs) */
} StallLog;

#define STALL_SLACK_US 500000LL /* the capture clock estimate and the ring's length */
#define STALL_MIN_LATE_US 20000LL

static StallLog read_stalls(const char *path, long long epoch_us) {
    StallLog log = {NULL, 0, epoch_us};
    FILE *f = fopen(path, "r");
    if (!f) return log; /* no file: no stall was recorded */
    size_t capacity = 0;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        char source[32];
        long long start, late;
        if (sscanf(line, "cpu=%31s start_us=%lld late_us=%lld", source, &start, &late) != 3) continue;
        if (log.count == capacity) {
            capacity = capacity ? capacity * 2 : 64;
            log.stalls = realloc(log.stalls, capacity * sizeof *log.stalls);
            if (!log.stalls) die("out of memory");
        }
        log.stalls[log.count++] = (Stall){start, late};
    }
    fclose(f);
    return log;
}

/* the longest recorded stall around the time capture frame `frame` was captured, or NULL */
static const Stall *stall_near(const StallLog *log, size_t frame, long rate) {
    if (!log) return NULL;
    long long t = log->epoch_us + (long long)frame * 1000000LL / rate;
    const Stall *best = NULL;
    for (size_t i = 0; i < log->count; i++) {
        const Stall *s = &log->stalls[i];
        if (s->late_us < STALL_MIN_LATE_US) continue;
        if (t < s->start_us - STALL_SLACK_US || t > s->start_us + s->late_us + STALL_SLACK_US) continue;
        if (!best || s->late_us > best->late_us) best = s;
    }
    return best;
}

typedef struct {
    int gaps;              /* digital silence may be inserted */
    const StallLog *stalls; /* replays and losses of snd-aloop's stall signature may be excused */
    int verbose;           /* print every stretch (trace) */
    int keep_going;        /* count what is not allowed and go on (trace) */
    long rate;
} WalkOptions;

typedef struct {
    size_t c, r;                      /* where the walk ended */
    long matched, silence, replayed, lost; /* allowed */
    long replaced;                    /* frames replaced in place by silence: snd-aloop's write race */
    long bad;                         /* frames of what was not allowed (keep_going) */
    int short_capture;                /* the capture ended before the window did */
    char failure[600];                /* the first thing not allowed; "" when none */
} Walk;

static void walk_fail(Walk *w, const WalkOptions *o, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void walk_fail(Walk *w, const WalkOptions *o, const char *fmt, ...) {
    char text[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (o->verbose) printf("NOT ALLOWED: %s\n", text);
    if (!w->failure[0]) snprintf(w->failure, sizeof w->failure, "%s", text);
}

/* snd-aloop copies the player's buffer to the capture in jiffy-sized steps (its timer, or a
 * pointer query), under its own lock and before the ALSA core moves the hardware pointer: a player
 * that writes just in time (its buffer all but empty) can write frames the copy has already taken
 * as what was there — silence — while the core, updated after the write, sees no underrun. Those
 * frames are then replaced in place by silence: as many silent frames as frames missing (±1), and
 * never more than two jiffies' worth (HZ=250: 4 ms each). Seen only at the edge of an underrun. */
static int aloop_race(long missing, long silence_here, long inserted_here, long rate) {
    long most = rate / 125 + 1;
    return missing > 0 && missing <= most && inserted_here == silence_here && silence_here >= missing - 1 &&
           silence_here <= missing + 1;
}

/* the capture ended before the window did: not a fault of what was captured (wait for more) */
static void walk_short(Walk *w, const WalkOptions *o, size_t c, size_t missing) {
    w->short_capture = 1;
    if (o->verbose) printf("end of the capture at frame %zu (%zu reference frames to go)\n", c, missing);
    if (!w->failure[0])
        snprintf(w->failure, sizeof w->failure, "the capture ends at frame %zu, %zu reference frames short", c, missing);
}

/* Follows the capture from frame c (where reference frame r is) until reference frame r_end:
 * frames must come in order and bit-exact. Between them, digital silence may be inserted (an
 * underrun, with gaps). With a stall log, what snd-aloop does when its timer runs late (the host
 * did not schedule the emulator) is excused where a stall was recorded at that time: it copies
 * the player's ring buffer round again — frames from up to 250 ms before the expected one are heard
 * once more ("replay") — and, when the ALSA core then misses that lap, the frames the player writes
 * next land where the emulated DMA has already been (or are zeroed by the kernel's silence fill):
 * at most as many frames as were put in their place never come ("lost"). Anything else ends the
 * walk with the reason (or is counted and skipped, keep_going). */
static Walk walk(Pcm cap, Pcm ref, size_t c, size_t r, size_t r_end, const WalkOptions *o, size_t fb) {
    Walk w = {c, r, 0, 0, 0, 0, 0, 0, 0, ""};
    while (r < r_end) {
        if (c >= cap.frames) {
            walk_short(&w, o, c, r_end - r);
            break;
        }
        size_t n = 0;
        while (c + n < cap.frames && r + n < r_end && memcmp(cap.data + (c + n) * fb, ref.data + (r + n) * fb, fb) == 0)
            n++;
        if (n > 0) {
            if (o->verbose) printf("match capture %zu..%zu = reference %zu..%zu (%zu frames)\n", c, c + n, r, r + n, n);
            w.matched += (long)n;
            c += n;
            r += n;
            continue;
        }
        /* a break: consume what was inserted until the expected frame comes, or the capture goes on
         * further ahead in the reference (frames lost) */
        long inserted_here = 0, silence_here = 0; /* silence and replays at this break */
        int stop = 0;
        for (;;) {
            if (c >= cap.frames) break;
            if (frame_silent(cap.data + c * fb, fb)) {
                size_t run = c;
                while (run < cap.frames && frame_silent(cap.data + run * fb, fb)) run++;
                if (o->verbose) printf("silence capture %zu..%zu (%zu frames)\n", c, run, run - c);
                if (!o->gaps) {
                    walk_fail(&w, o, "%zu frames of silence inserted at capture frame %zu, before reference frame %zu",
                              run - c, c, r);
                    w.bad += (long)(run - c);
                    if (!o->keep_going) stop = 1;
                } else {
                    w.silence += (long)(run - c);
                    inserted_here += (long)(run - c);
                    silence_here += (long)(run - c);
                }
                c = run;
                if (stop) break;
                continue;
            }
            size_t k = ref.frames - r < BLOCK ? ref.frames - r : BLOCK;
            if (cap.frames - c < k) { /* wait for more capture */
                c = cap.frames;
                break;
            }
            if (frames_equal(cap, c, ref, r, k, fb)) break; /* resumed */
            /* where in the reference this sound is: first just before the expected frame (a replay),
             * then anywhere; a short stretch of sound needs a short block */
            size_t sounding = 0;
            while (sounding < BLOCK && c + sounding < cap.frames && !frame_silent(cap.data + (c + sounding) * fb, fb))
                sounding++;
            size_t window = (size_t)o->rate / 4 + BLOCK;
            long r2 = -1;
            for (size_t kc = sounding; r2 < 0 && kc >= 1; kc /= 2)
                r2 = find_block(ref, r > window ? r - window : 0, r, cap, c, kc, fb);
            for (size_t kc = sounding; r2 < 0 && kc >= 4; kc /= 4) r2 = find_block(ref, 0, ref.frames, cap, c, kc, fb);
            if (r2 < 0) {
                size_t run = c;
                while (run < cap.frames && !frame_silent(cap.data + run * fb, fb) &&
                       find_block(ref, 0, ref.frames, cap, run, cap.frames - run < 16 ? cap.frames - run : 16, fb) < 0)
                    run += 16;
                if (run > cap.frames) run = cap.frames;
                walk_fail(&w, o, "sound that is not in the reference at capture frames %zu..%zu (expected reference frame %zu)",
                          c, run, r);
                w.bad += (long)(run - c);
                c = run;
                if (!o->keep_going) stop = 1;
                if (stop) break;
                continue;
            }
            if ((size_t)r2 < r) { /* heard before: a replay */
                size_t m = 0;
                while (c + m < cap.frames && (size_t)r2 + m < r &&
                       memcmp(cap.data + (c + m) * fb, ref.data + ((size_t)r2 + m) * fb, fb) == 0)
                    m++;
                long distance = (long)r - r2;
                const Stall *stall = stall_near(o->stalls, c, o->rate);
                if (o->verbose)
                    printf("replay capture %zu..%zu = reference %ld..%ld (%zu frames, %ld before the expected frame %zu)%s\n",
                           c, c + m, r2, r2 + (long)m, m, distance, r, stall ? ", during a recorded VM stall" : "");
                /* a whole lap: the last buffer-full heard again, exactly (snd-aloop's timer ran late by
                 * more than the player's buffer: its copy went round the ring once more) */
                int lap = (long)m == distance && distance >= o->rate / 50 && distance <= o->rate / 4;
                if (o->stalls && (lap || (stall && distance <= o->rate / 4))) {
                    if (o->verbose && lap && !stall) printf("  = one whole lap of the ring: snd-aloop's timer ran late\n");
                    w.replayed += (long)m;
                    inserted_here += (long)m;
                } else {
                    walk_fail(&w, o,
                              "capture frames %zu..%zu repeat reference frames %ld..%ld, %ld frames before the expected "
                              "frame %zu (%s)",
                              c, c + m, r2, r2 + (long)m, distance, r,
                              !o->stalls ? "no stall log given"
                              : stall   ? "too far back for snd-aloop going round the player's buffer"
                                        : "no VM stall was recorded then");
                    w.bad += (long)m;
                    if (!o->keep_going) stop = 1;
                }
                c += m;
                if (stop) break;
                continue;
            }
            /* the capture goes on further ahead: reference frames r..r2 never came */
            long missing = r2 - (long)r;
            const Stall *stall = stall_near(o->stalls, c, o->rate);
            if (o->verbose)
                printf("lost reference %zu..%ld (%ld frames) before capture frame %zu%s\n", r, r2, missing, c,
                       stall ? ", during a recorded VM stall" : "");
            if (o->stalls && aloop_race(missing, silence_here, inserted_here, o->rate)) {
                if (o->verbose) printf("  = replaced in place by silence: snd-aloop's write race\n");
                w.replaced += missing;
                w.silence -= missing; /* not inserted: in the place of those frames */
            } else if (stall && inserted_here > 0 && missing <= inserted_here + BLOCK) {
                w.lost += missing;
            } else {
                walk_fail(&w, o, "reference frames %zu..%ld (%ld frames) are missing at capture frame %zu (%s)", r, r2,
                          missing, c,
                          !o->stalls         ? "no stall log given"
                          : !stall           ? "no VM stall was recorded then"
                          : inserted_here > 0 ? "more than the frames put in their place"
                                             : "nothing was put in their place");
                w.bad += missing;
                if (!o->keep_going) stop = 1;
            }
            r = (size_t)r2;
            break;
        }
        if (stop) break;
        if (c >= cap.frames && r < r_end) {
            walk_short(&w, o, c, r_end - r);
            break;
        }
    }
    w.c = c;
    w.r = r;
    return w;
}

/* how many places `n` frames of `needle` at `at` occur in `hay` from `from` (stops counting at 2) */
static long count_matches(Pcm hay, size_t from, Pcm needle, size_t at, size_t n, size_t fb) {
    long count = 0;
    for (long p = find_block(hay, from, hay.frames, needle, at, n, fb); p >= 0 && count < 2;
         p = find_block(hay, (size_t)p + 1, hay.frames, needle, at, n, fb))
        count++;
    return count;
}

int main(int argc, char **argv) {
    tool_name = "pcm-match";
    if (argc < 3) die("usage: pcm-match locate|first-sound|silent|frames FILE [...] (see the source header)");
    const char *cmd = argv[1];
    const char *files[2] = {NULL, NULL};
    int nfiles = 0;
    int gaps = 0, epoch_given = 0;
    const char *stalls_path = NULL;
    long long epoch_us = 0;
    long rate = 44100;
    long from = 0, ref_from = 0, before = -1, frames = 44100, frame_bytes = 4, seed = 1;
    double seconds = 0;
    int frames_given = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--from") == 0 && i + 1 < argc) from = parse_long(argv[++i], "--from");
        else if (strcmp(argv[i], "--gaps") == 0) gaps = 1;
        else if (strcmp(argv[i], "--stalls") == 0 && i + 1 < argc) stalls_path = argv[++i];
        else if (strcmp(argv[i], "--epoch-us") == 0 && i + 1 < argc) {
            epoch_us = strtoll(argv[++i], NULL, 10);
            epoch_given = 1;
        } else if (strcmp(argv[i], "--rate") == 0 && i + 1 < argc) rate = parse_long(argv[++i], "--rate");
        else if (strcmp(argv[i], "--before") == 0 && i + 1 < argc) before = parse_long(argv[++i], "--before");
        else if (strcmp(argv[i], "--ref-from") == 0 && i + 1 < argc) ref_from = parse_long(argv[++i], "--ref-from");
        else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
            frames = parse_long(argv[++i], "--frames");
            frames_given = 1;
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) seed = parse_long(argv[++i], "--seed");
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--frame-bytes") == 0 && i + 1 < argc) frame_bytes = parse_long(argv[++i], "--frame-bytes");
        else if (argv[i][0] != '-' && nfiles < 2) files[nfiles++] = argv[i];
        else die("unexpected argument '%s'", argv[i]);
    }
    if (frame_bytes <= 0 || frames <= 0 || from < 0) die("--frames and --frame-bytes must be positive, --from not negative");
    size_t fb = (size_t)frame_bytes;

    if (strcmp(cmd, "generate") == 0) {
        if (nfiles != 1 || seconds <= 0) die("usage: pcm-match generate OUT --seconds S --seed N");
        FILE *f = fopen(files[0], "wb");
        if (!f) die("create %s: %s", files[0], strerror(errno));
        uint64_t state = 0x9E3779B97F4A7C15ull ^ (uint64_t)seed * 0xBF58476D1CE4E5B9ull;
        double phase = 0, base = 110.0 * (1 + (double)(seed % 7));
        size_t total = (size_t)(seconds * 44100);
        for (size_t n = 0; n < total; n++) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            double t = (double)n / 44100.0;
            phase += 2 * M_PI * (base + 220.0 * fmod(t, 3.0)) / 44100.0;
            double tone = sin(phase) * 6000.0;
            int noise_l = (int)(state & 0x0fff) - 0x800, noise_r = (int)((state >> 20) & 0x0fff) - 0x800;
            int16_t frame[2] = {(int16_t)(tone + noise_l), (int16_t)(-tone * 0.5 + noise_r)};
            if (frame[0] == 0 && frame[1] == 0) frame[0] = 1; /* no digital silence inside a track */
            if (fwrite(frame, sizeof frame, 1, f) != 1) die("write %s: %s", files[0], strerror(errno));
        }
        if (fclose(f) != 0) die("write %s: %s", files[0], strerror(errno));
        return 0;
    }
    if (strcmp(cmd, "frames") == 0) {
        Pcm pcm = map_pcm(files[0], fb);
        printf("%zu\n", pcm.frames);
        return 0;
    }
    if (strcmp(cmd, "first-sound") == 0) {
        Pcm pcm = map_pcm(files[0], fb);
        long f = first_sound(pcm, (size_t)from, fb);
        if (f < 0) {
            printf("silent from frame %ld to the end (%zu frames)\n", from, pcm.frames);
            return 1;
        }
        printf("%ld\n", f);
        return 0;
    }
    if (strcmp(cmd, "last-sound") == 0) {
        Pcm pcm = map_pcm(files[0], fb);
        size_t end = before < 0 || (size_t)before > pcm.frames ? pcm.frames : (size_t)before;
        for (size_t f = end; f-- > 0;)
            if (!frame_silent(pcm.data + f * fb, fb)) {
                printf("%zu\n", f);
                return 0;
            }
        printf("silent before frame %zu\n", end);
        return 1;
    }
    if (strcmp(cmd, "silent") == 0) {
        if (!frames_given) die("silent needs --frames N");
        Pcm pcm = map_pcm(files[0], fb);
        if ((size_t)(from + frames) > pcm.frames) {
            printf("capture too short: %zu frames, need %ld\n", pcm.frames, from + frames);
            return 1;
        }
        long f = first_sound(pcm, (size_t)from, fb);
        if (f >= 0 && f < from + frames) {
            printf("sound at frame %ld (window %ld..%ld)\n", f, from, from + frames);
            return 1;
        }
        printf("silent: frames %ld..%ld\n", from, from + frames);
        return 0;
    }
    if (strcmp(cmd, "trace") == 0 || strcmp(cmd, "locate") == 0 || strcmp(cmd, "find") == 0) {
        if (nfiles != 2) die("usage: pcm-match %s CAPTURE REFERENCE [--from F] [--ref-from R] [--frames N] [--gaps] "
                             "[--stalls FILE --epoch-us E]", cmd);
        Pcm cap = map_pcm(files[0], fb), ref = map_pcm(files[1], fb);
        StallLog stalls = {NULL, 0, 0};
        if (stalls_path) {
            if (!epoch_given) die("--stalls needs --epoch-us (when capture frame 0 was captured)");
            stalls = read_stalls(stalls_path, epoch_us);
        }
        int tracing = strcmp(cmd, "trace") == 0;
        WalkOptions options = {tracing || gaps, stalls_path ? &stalls : NULL, tracing, tracing, rate};
        long c0, r0, matches, pre_replaced = 0;
        if (strcmp(cmd, "find") == 0) {
            /* the reference from its first sound at or after R, looked for in the capture from F */
            long start = first_sound(ref, (size_t)ref_from, fb);
            if (start < 0) {
                printf("no match: the reference is silent from frame %ld (%zu frames)\n", ref_from, ref.frames);
                return 1;
            }
            size_t k = ref.frames - (size_t)start < BLOCK ? ref.frames - (size_t)start : BLOCK;
            c0 = find_block(cap, (size_t)from, cap.frames, ref, (size_t)start, k, fb);
            if (c0 < 0 && stalls_path) {
                /* the track's first frames replaced in place by silence (snd-aloop's write race at the
                 * underrun a start is): found a little later, with as many silent frames before it */
                for (long skip = 1; c0 < 0 && skip <= rate / 125 + 1; skip++) {
                    if ((size_t)(start + skip) + k > ref.frames) break;
                    long at = find_block(cap, (size_t)from, cap.frames, ref, (size_t)(start + skip), k, fb);
                    if (at < from + skip) continue;
                    long q = at - skip;
                    while (q < at && frame_silent(cap.data + (size_t)q * fb, fb)) q++;
                    if (q == at) {
                        pre_replaced = skip;
                        c0 = at - skip;
                    }
                }
            }
            if (c0 < 0) {
                printf("no match: reference frames %ld..%ld are not in the capture (searched frames %ld..%zu)\n", start,
                       start + (long)k, from, cap.frames);
                return 1;
            }
            r0 = start;
            matches = count_matches(cap, (size_t)from, ref, (size_t)(start + pre_replaced), k, fb);
        } else {
            /* the capture from its first sound at or after F, looked up in the reference */
            long start = first_sound(cap, (size_t)from, fb);
            if (start < 0) {
                printf("no match: the capture is silent from frame %ld (%zu frames)\n", from, cap.frames);
                return 1;
            }
            if (cap.frames - (size_t)start < BLOCK) {
                printf("no match: the capture has %zu frames after its first sound at %ld, need %d\n",
                       cap.frames - (size_t)start, start, BLOCK);
                return 1;
            }
            r0 = find_block(ref, 0, ref.frames, cap, (size_t)start, BLOCK, fb);
            if (r0 < 0) {
                printf("no match: the capture's sound at frame %ld is not in the reference\n", start);
                return 1;
            }
            c0 = start;
            matches = count_matches(ref, 0, cap, (size_t)start, BLOCK, fb);
        }
        size_t r_end = ref.frames;
        if (!tracing || frames_given) {
            if ((size_t)r0 + (size_t)frames > ref.frames) {
                printf("no match: the reference has %zu frames from frame %ld, need %ld\n", ref.frames - (size_t)r0, r0,
                       frames);
                return 1;
            }
            r_end = (size_t)r0 + (size_t)frames;
        }
        if (pre_replaced && tracing) printf("replaced reference %ld..%ld by silence at the start\n", r0, r0 + pre_replaced);
        Walk w = walk(cap, ref, (size_t)(c0 + pre_replaced), (size_t)(r0 + pre_replaced), r_end, &options, fb);
        if (tracing) {
            printf("trace: capture_frame=%ld reference_frame=%ld matched=%ld silence=%ld replayed=%ld lost=%ld "
                   "replaced=%ld not_allowed=%ld end_capture=%zu end_reference=%zu\n",
                   c0, r0, w.matched, w.silence, w.replayed, w.lost, w.replaced, w.bad, w.c, w.r);
            return w.bad == 0 ? 0 : 1;
        }
        if (w.failure[0]) {
            printf("no match: from capture frame %ld (reference frame %ld) %ld frames bit-exact, then %s\n", c0, r0,
                   w.matched, w.failure);
            return 1;
        }
        printf("capture_frame=%ld reference_frame=%ld frames=%ld matches=%ld track_start=%ld gap_frames=%ld "
               "replay_frames=%ld lost_frames=%ld replaced_frames=%ld\n",
               c0, r0, frames, matches, c0 - r0, w.silence, w.replayed, w.lost, w.replaced + pre_replaced);
        return 0;
    }
    die("unknown command '%s'", cmd);
}
