/* pcm-match: bit-exact comparison of captured PCM against a decoded reference (raw interleaved
 * little-endian frames, e.g. `arecord -t raw` and `flac -d --force-raw-format -c`).
 *   pcm-match locate CAPTURE REFERENCE [--from F] [--frames N] [--frame-bytes B]
 *       Takes N frames of CAPTURE starting at its first non-silent frame at or after frame F, finds
 *       where they occur in REFERENCE and checks all N frames bit-exactly. Prints
 *       "capture_frame=C reference_frame=R frames=N matches=M track_start=C-R" and exits 0; exits 1
 *       with the reason (all silence, capture too short, no match) otherwise.
 *   --gaps (locate, find): all-zero frames are left out of both files before matching, so silence
 *       inserted by an output underrun does not break the comparison; gap_frames= then counts
 *       the silent frames inside the matched capture window. Every sounding frame must still be
 *       there, bit-exact and in order.
 *   pcm-match find CAPTURE REFERENCE [--from F] [--ref-from R] [--frames N] [--frame-bytes B]
 *       The other direction: N frames of REFERENCE from its first sound at or after frame R are
 *       looked for in CAPTURE at or after frame F (e.g. "did track 2 start after the press?").
 *       Same output.
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

/* With --gaps, all-zero frames are taken out of both files before matching (keeping a map back
 * to frame numbers): silence an output underrun inserted then does not break the comparison,
 * while every sounding frame must still be there, bit-exact and in order. */
typedef struct {
    Pcm pcm;
    size_t *index; /* compacted frame → original frame */
} Compacted;

static int frame_silent(const uint8_t *frame, size_t frame_bytes);

static Compacted compact(Pcm pcm, size_t fb) {
    Compacted c = {{NULL, 0}, NULL};
    uint8_t *data = malloc(pcm.frames * fb + 1);
    c.index = malloc((pcm.frames + 1) * sizeof *c.index);
    if (!data || !c.index) die("out of memory");
    size_t n = 0;
    for (size_t f = 0; f < pcm.frames; f++) {
        if (frame_silent(pcm.data + f * fb, fb)) continue;
        memcpy(data + n * fb, pcm.data + f * fb, fb);
        c.index[n++] = f;
    }
    c.pcm.data = data;
    c.pcm.frames = n;
    return c;
}

/* the first compacted frame whose original number is at least `from` */
static size_t compact_from(Compacted c, size_t from) {
    size_t lo = 0, hi = c.pcm.frames;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c.index[mid] < from) lo = mid + 1;
        else hi = mid;
    }
    return lo;
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

int main(int argc, char **argv) {
    tool_name = "pcm-match";
    if (argc < 3) die("usage: pcm-match locate|first-sound|silent|frames FILE [...] (see the source header)");
    const char *cmd = argv[1];
    const char *files[2] = {NULL, NULL};
    int nfiles = 0;
    int gaps = 0;
    long from = 0, ref_from = 0, before = -1, frames = 44100, frame_bytes = 4, seed = 1;
    double seconds = 0;
    int frames_given = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--from") == 0 && i + 1 < argc) from = parse_long(argv[++i], "--from");
        else if (strcmp(argv[i], "--gaps") == 0) gaps = 1;
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
    if (strcmp(cmd, "locate") == 0 || strcmp(cmd, "find") == 0) {
        if (nfiles != 2) die("usage: pcm-match locate|find CAPTURE REFERENCE [--from F] [--ref-from R] [--frames N]");
        Pcm cap = map_pcm(files[0], fb), ref = map_pcm(files[1], fb);
        int find = strcmp(cmd, "find") == 0;
        Compacted ccap = {cap, NULL}, cref = {ref, NULL};
        if (gaps) {
            ccap = compact(cap, fb);
            cref = compact(ref, fb);
            from = (long)compact_from(ccap, (size_t)from);
            ref_from = (long)compact_from(cref, (size_t)ref_from);
        }
        cap = ccap.pcm;
        ref = cref.pcm;
        /* locate: a capture window is looked for in the reference; find: the other way round */
        Pcm needle_pcm = find ? ref : cap, hay = find ? cap : ref;
        long needle_from = find ? ref_from : from, hay_from = find ? from : 0;
        const char *needle_name = find ? "reference" : "capture", *hay_name = find ? "capture" : "reference";
        long start = first_sound(needle_pcm, (size_t)needle_from, fb);
        if (start < 0) {
            printf("no match: %s is silent from frame %ld (%zu frames)\n", needle_name, needle_from, needle_pcm.frames);
            return 1;
        }
        if ((size_t)start + (size_t)frames > needle_pcm.frames) {
            printf("no match: %s has %zu frames after its first sound at %ld, need %ld\n", needle_name,
                   needle_pcm.frames - (size_t)start, start, frames);
            return 1;
        }
        const uint8_t *needle = needle_pcm.data + (size_t)start * fb;
        size_t probe = (size_t)(frames < 256 ? frames : 256) * fb;
        long found = -1, matches = 0, best_at = -1;
        size_t best_prefix = 0;
        for (size_t r = (size_t)hay_from; r + (size_t)frames <= hay.frames; r++) {
            const uint8_t *at = hay.data + r * fb;
            if (memcmp(at, needle, fb) != 0) continue;
            if (memcmp(at, needle, probe) != 0) continue;
            size_t same = 0;
            while (same < (size_t)frames && memcmp(at + same * fb, needle + same * fb, fb) == 0) same++;
            if (same > best_prefix) {
                best_prefix = same;
                best_at = (long)r;
            }
            if (same == (size_t)frames) {
                if (found < 0) found = (long)r;
                matches++;
            }
        }
        if (found < 0) {
            if (gaps && best_at >= 0) { /* report frame numbers, not compacted positions */
                best_at = (long)(find ? ccap : cref).index[best_at];
                start = (long)(find ? cref : ccap).index[start];
                hay_from = hay_from < (long)hay.frames ? (long)(find ? ccap : cref).index[hay_from] : hay_from;
            }
            printf("no match: %ld frames of the %s from frame %ld are not in the %s (searched from frame %ld); "
                   "longest bit-exact run %zu frames%s",
                   frames, needle_name, start, hay_name, hay_from, best_prefix, best_at >= 0 ? ", at " : "\n");
            if (best_at >= 0) printf("%s frame %ld\n", hay_name, best_at);
            return 1;
        }
        long capture_frame = find ? found : start, reference_frame = find ? start : found;
        long gap_frames = 0;
        if (gaps) { /* back to frame numbers; silence inserted inside the window */
            long last = (long)ccap.index[capture_frame + frames - 1];
            capture_frame = (long)ccap.index[capture_frame];
            reference_frame = (long)cref.index[reference_frame];
            gap_frames = last - capture_frame + 1 - frames;
        }
        printf("capture_frame=%ld reference_frame=%ld frames=%ld matches=%ld track_start=%ld gap_frames=%ld\n",
               capture_frame, reference_frame, frames, matches, capture_frame - reference_frame, gap_frames);
        return 0;
    }
    die("unknown command '%s'", cmd);
}
