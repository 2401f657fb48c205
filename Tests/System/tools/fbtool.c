// SPDX-License-Identifier: GPL-3.0-or-later
/* fbtool: reads and writes a Linux framebuffer (/dev/fbN) for the system test.
 *   fbtool info DEV                      geometry and colour layout, one line
 *   fbtool grab DEV OUT.png|OUT.raw      visible area as an 8-bit RGB PNG, or the raw pixel bytes
 *   fbtool fill DEV RRGGBB               fill the visible area with one colour
 *   fbtool pattern DEV                   write a deterministic gradient pattern
 *   fbtool check-pattern DEV             exit 0 when the framebuffer holds exactly that pattern
 *   fbtool compare DEV EXPECTED.png [--tolerance T] [--max-pixels N]
 *                                        compare with a PNG (both reduced to the framebuffer's
 *                                        depth; T = per-channel difference allowed, default 0)
 *   fbtool stats DEV                     distinct colours and the most common one (background)
 *   fbtool count DEV RRGGBB [--tolerance T]   pixels of that colour (prints the number)
 *   fbtool make-png OUT.png W H RRGGBB   a solid-colour PNG (cover art for test albums)
 *   fbtool pixel FILE.png X Y            the colour of one pixel of a PNG, as RRGGBB
 *   fbtool png-bomb OUT.png W H          a PNG whose header claims W×H but holds almost no image
 *                                        data (a decoder must refuse it by its size, not run out
 *                                        of memory)
 * Colour channels follow the offsets and lengths the driver reports (FBIOGET_VSCREENINFO), so
 * RGB565, BGR565, XRGB8888 and ABGR8888 layouts all work. Exit 1 = check failed, 2 = error. */
#include "common.h"

#include <fcntl.h>
#include <linux/fb.h>
#include <png.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <unistd.h>

typedef struct {
    struct fb_var_screeninfo var;
    struct fb_fix_screeninfo fix;
    int fd;
    unsigned width, height, bytes_per_pixel;
    off_t origin;
} Framebuffer;

static Framebuffer fb_open(const char *path, int flags) {
    Framebuffer fb;
    memset(&fb, 0, sizeof fb);
    fb.fd = open(path, flags | O_CLOEXEC);
    if (fb.fd < 0) die("open %s: %s", path, strerror(errno));
    if (ioctl(fb.fd, FBIOGET_VSCREENINFO, &fb.var) < 0) die("FBIOGET_VSCREENINFO on %s: %s", path, strerror(errno));
    if (ioctl(fb.fd, FBIOGET_FSCREENINFO, &fb.fix) < 0) die("FBIOGET_FSCREENINFO on %s: %s", path, strerror(errno));
    fb.width = fb.var.xres;
    fb.height = fb.var.yres;
    fb.bytes_per_pixel = fb.var.bits_per_pixel / 8;
    if (fb.var.bits_per_pixel != 16 && fb.var.bits_per_pixel != 24 && fb.var.bits_per_pixel != 32)
        die("%s: %u bits per pixel is not supported", path, fb.var.bits_per_pixel);
    fb.origin = (off_t)fb.var.yoffset * fb.fix.line_length + (off_t)fb.var.xoffset * fb.bytes_per_pixel;
    return fb;
}

static uint8_t *fb_read_rows(const Framebuffer *fb) {
    size_t row = (size_t)fb->width * fb->bytes_per_pixel;
    uint8_t *pixels = malloc(row * fb->height);
    if (!pixels) die("out of memory");
    for (unsigned y = 0; y < fb->height; y++) {
        off_t at = fb->origin + (off_t)y * fb->fix.line_length;
        if (pread(fb->fd, pixels + row * y, row, at) != (ssize_t)row) die("read framebuffer row %u: %s", y, strerror(errno));
    }
    return pixels;
}

static void fb_write_rows(const Framebuffer *fb, const uint8_t *pixels) {
    size_t row = (size_t)fb->width * fb->bytes_per_pixel;
    for (unsigned y = 0; y < fb->height; y++) {
        off_t at = fb->origin + (off_t)y * fb->fix.line_length;
        if (pwrite(fb->fd, pixels + row * y, row, at) != (ssize_t)row) die("write framebuffer row %u: %s", y, strerror(errno));
    }
}

static uint32_t get_pixel(const Framebuffer *fb, const uint8_t *p) {
    uint32_t v = 0;
    for (unsigned i = 0; i < fb->bytes_per_pixel; i++) v |= (uint32_t)p[i] << (8 * i);
    return v;
}

static void put_pixel(const Framebuffer *fb, uint8_t *p, uint32_t v) {
    for (unsigned i = 0; i < fb->bytes_per_pixel; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t channel_encode(const struct fb_bitfield *f, unsigned value8) {
    if (f->length == 0) return 0;
    uint32_t c = f->length >= 8 ? value8 << (f->length - 8) : value8 >> (8 - f->length);
    return c << f->offset;
}

static unsigned channel_decode(const struct fb_bitfield *f, uint32_t v) {
    if (f->length == 0) return 0;
    uint32_t max = f->length >= 32 ? 0xffffffffu : (1u << f->length) - 1;
    uint32_t c = (v >> f->offset) & max;
    return (unsigned)((c * 255u + max / 2) / max);
}

static uint32_t encode(const Framebuffer *fb, unsigned r, unsigned g, unsigned b) {
    return channel_encode(&fb->var.red, r) | channel_encode(&fb->var.green, g) | channel_encode(&fb->var.blue, b);
}

static void decode(const Framebuffer *fb, uint32_t v, unsigned rgb[3]) {
    rgb[0] = channel_decode(&fb->var.red, v);
    rgb[1] = channel_decode(&fb->var.green, v);
    rgb[2] = channel_decode(&fb->var.blue, v);
}

static void pattern_colour(const Framebuffer *fb, unsigned x, unsigned y, unsigned rgb[3]) {
    rgb[0] = fb->width > 1 ? x * 255 / (fb->width - 1) : 0;
    rgb[1] = fb->height > 1 ? y * 255 / (fb->height - 1) : 0;
    rgb[2] = (x * 7 + y * 13) & 0xff;
}

static void write_png(const char *path, const uint8_t *rgb, unsigned width, unsigned height) {
    FILE *f = fopen(path, "wb");
    if (!f) die("create %s: %s", path, strerror(errno));
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) die("libpng failed writing %s", path);
    png_init_io(png, f);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (unsigned y = 0; y < height; y++) png_write_row(png, (png_const_bytep)(rgb + (size_t)y * width * 3));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    if (fclose(f) != 0) die("write %s: %s", path, strerror(errno));
}

static uint8_t *read_png_rgb(const char *path, unsigned *width, unsigned *height) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) die("read %s: %s", path, image.message);
    image.format = PNG_FORMAT_RGB;
    uint8_t *rgb = malloc(PNG_IMAGE_SIZE(image));
    if (!rgb) die("out of memory");
    if (!png_image_finish_read(&image, NULL, rgb, 0, NULL)) die("decode %s: %s", path, image.message);
    *width = image.width;
    *height = image.height;
    return rgb;
}

static uint8_t *fb_to_rgb(const Framebuffer *fb, const uint8_t *pixels) {
    uint8_t *rgb = malloc((size_t)fb->width * fb->height * 3);
    if (!rgb) die("out of memory");
    for (size_t i = 0; i < (size_t)fb->width * fb->height; i++) {
        unsigned c[3];
        decode(fb, get_pixel(fb, pixels + i * fb->bytes_per_pixel), c);
        rgb[i * 3] = (uint8_t)c[0];
        rgb[i * 3 + 1] = (uint8_t)c[1];
        rgb[i * 3 + 2] = (uint8_t)c[2];
    }
    return rgb;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n) {
    crc = ~crc;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
    }
    return ~crc;
}

static void put_chunk(FILE *f, const char *type, const uint8_t *data, uint32_t len) {
    uint8_t head[8] = {(uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len};
    memcpy(head + 4, type, 4);
    uint32_t crc = crc32_update(crc32_update(0, head + 4, 4), data, len);
    uint8_t tail[4] = {(uint8_t)(crc >> 24), (uint8_t)(crc >> 16), (uint8_t)(crc >> 8), (uint8_t)crc};
    fwrite(head, 1, 8, f);
    if (len) fwrite(data, 1, len, f);
    fwrite(tail, 1, 4, f);
}

static long parse_colour(const char *text) {
    char *end = NULL;
    long colour = strtol(text, &end, 16);
    if (*end != '\0' || strlen(text) != 6) die("colour must be RRGGBB hex, not '%s'", text);
    return colour;
}

/* Commands that make files: no framebuffer needed. */
static int file_commands(int argc, char **argv) {
    if (strcmp(argv[1], "make-png") == 0) {
        if (argc != 6) die("usage: fbtool make-png OUT.png W H RRGGBB");
        long w = parse_long(argv[3], "W"), h = parse_long(argv[4], "H"), colour = parse_colour(argv[5]);
        if (w <= 0 || h <= 0 || w > 8192 || h > 8192) die("make-png: W and H must be 1…8192");
        uint8_t *rgb = malloc((size_t)w * (size_t)h * 3);
        if (!rgb) die("out of memory");
        for (long i = 0; i < w * h; i++) {
            rgb[i * 3] = (uint8_t)(colour >> 16);
            rgb[i * 3 + 1] = (uint8_t)(colour >> 8);
            rgb[i * 3 + 2] = (uint8_t)colour;
        }
        write_png(argv[2], rgb, (unsigned)w, (unsigned)h);
        return 0;
    }
    if (strcmp(argv[1], "pixel") == 0) {
        if (argc != 5) die("usage: fbtool pixel FILE.png X Y");
        unsigned w, h;
        uint8_t *rgb = read_png_rgb(argv[2], &w, &h);
        long x = parse_long(argv[3], "X"), y = parse_long(argv[4], "Y");
        if (x < 0 || y < 0 || x >= (long)w || y >= (long)h) die("%ld,%ld is outside the %ux%u image", x, y, w, h);
        const uint8_t *p = rgb + ((size_t)y * w + (size_t)x) * 3;
        printf("%02x%02x%02x\n", p[0], p[1], p[2]);
        return 0;
    }
    if (strcmp(argv[1], "png-bomb") == 0) {
        if (argc != 5) die("usage: fbtool png-bomb OUT.png W H");
        long w = parse_long(argv[3], "W"), h = parse_long(argv[4], "H");
        if (w <= 0 || h <= 0 || w > 0x7fffffffL || h > 0x7fffffffL) die("png-bomb: W and H must be 1…2^31-1");
        FILE *f = fopen(argv[2], "wb");
        if (!f) die("create %s: %s", argv[2], strerror(errno));
        static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
        fwrite(signature, 1, 8, f);
        uint8_t ihdr[13] = {(uint8_t)(w >> 24), (uint8_t)(w >> 16), (uint8_t)(w >> 8), (uint8_t)w,
                            (uint8_t)(h >> 24), (uint8_t)(h >> 16), (uint8_t)(h >> 8), (uint8_t)h,
                            8, 2, 0, 0, 0};
        put_chunk(f, "IHDR", ihdr, 13);
        /* a zlib stream of one stored block of zeros: far less than W×H pixels */
        uint8_t idat[2 + 5 + 64 + 4] = {0x78, 0x01, 0x01, 64, 0, (uint8_t)~64, 0xff};
        uint32_t adler = (1u + 0) | ((64u % 65521u) << 16); /* adler32 of 64 zero bytes: a=1, b=64 */
        idat[2 + 5 + 64] = (uint8_t)(adler >> 24);
        idat[2 + 5 + 64 + 1] = (uint8_t)(adler >> 16);
        idat[2 + 5 + 64 + 2] = (uint8_t)(adler >> 8);
        idat[2 + 5 + 64 + 3] = (uint8_t)adler;
        put_chunk(f, "IDAT", idat, sizeof idat);
        put_chunk(f, "IEND", NULL, 0);
        if (fclose(f) != 0) die("write %s: %s", argv[2], strerror(errno));
        return 0;
    }
    return -1;
}

int main(int argc, char **argv) {
    tool_name = "fbtool";
    if (argc < 3) die("usage: fbtool info|grab|fill|pattern|check-pattern|compare|stats|count|make-png|png-bomb ...");
    int handled = file_commands(argc, argv);
    if (handled >= 0) return handled;
    const char *cmd = argv[1], *dev = argv[2];
    int writing = strcmp(cmd, "fill") == 0 || strcmp(cmd, "pattern") == 0;
    Framebuffer fb = fb_open(dev, writing ? O_RDWR : O_RDONLY);
    size_t count = (size_t)fb.width * fb.height;

    if (strcmp(cmd, "info") == 0) {
        printf("%ux%u bpp=%u stride=%u red=%u/%u green=%u/%u blue=%u/%u transp=%u/%u virtual=%ux%u name=%s\n",
               fb.width, fb.height, fb.var.bits_per_pixel, fb.fix.line_length, fb.var.red.offset, fb.var.red.length,
               fb.var.green.offset, fb.var.green.length, fb.var.blue.offset, fb.var.blue.length, fb.var.transp.offset,
               fb.var.transp.length, fb.var.xres_virtual, fb.var.yres_virtual, fb.fix.id);
        return 0;
    }
    if (strcmp(cmd, "grab") == 0) {
        if (argc != 4) die("usage: fbtool grab DEV OUT.png|OUT.raw");
        uint8_t *pixels = fb_read_rows(&fb);
        const char *out = argv[3];
        size_t len = strlen(out);
        if (len > 4 && strcmp(out + len - 4, ".png") == 0) {
            uint8_t *rgb = fb_to_rgb(&fb, pixels);
            write_png(out, rgb, fb.width, fb.height);
        } else {
            FILE *f = fopen(out, "wb");
            if (!f || fwrite(pixels, fb.bytes_per_pixel, count, f) != count || fclose(f) != 0)
                die("write %s: %s", out, strerror(errno));
        }
        return 0;
    }
    if (strcmp(cmd, "fill") == 0 || strcmp(cmd, "pattern") == 0) {
        uint8_t *pixels = malloc(count * fb.bytes_per_pixel);
        if (!pixels) die("out of memory");
        long colour = 0;
        if (strcmp(cmd, "fill") == 0) {
            if (argc != 4) die("usage: fbtool fill DEV RRGGBB");
            colour = parse_colour(argv[3]);
        }
        for (unsigned y = 0; y < fb.height; y++)
            for (unsigned x = 0; x < fb.width; x++) {
                unsigned c[3] = {(unsigned)(colour >> 16) & 0xff, (unsigned)(colour >> 8) & 0xff, (unsigned)colour & 0xff};
                if (strcmp(cmd, "pattern") == 0) pattern_colour(&fb, x, y, c);
                put_pixel(&fb, pixels + ((size_t)y * fb.width + x) * fb.bytes_per_pixel, encode(&fb, c[0], c[1], c[2]));
            }
        fb_write_rows(&fb, pixels);
        return 0;
    }
    if (strcmp(cmd, "check-pattern") == 0) {
        uint8_t *pixels = fb_read_rows(&fb);
        size_t bad = 0, first_bad = 0;
        for (unsigned y = 0; y < fb.height; y++)
            for (unsigned x = 0; x < fb.width; x++) {
                unsigned c[3];
                pattern_colour(&fb, x, y, c);
                size_t i = (size_t)y * fb.width + x;
                uint32_t mask = fb.bytes_per_pixel == 4 ? 0xffffffffu : (1u << (8 * fb.bytes_per_pixel)) - 1;
                uint32_t used = encode(&fb, 255, 255, 255);
                if ((get_pixel(&fb, pixels + i * fb.bytes_per_pixel) & mask & used) != encode(&fb, c[0], c[1], c[2])) {
                    if (bad++ == 0) first_bad = i;
                }
            }
        if (bad) {
            printf("pattern mismatch: %zu of %zu pixels differ, first at (%zu,%zu)\n", bad, count, first_bad % fb.width,
                   first_bad / fb.width);
            return 1;
        }
        printf("pattern ok: %zu pixels\n", count);
        return 0;
    }
    if (strcmp(cmd, "compare") == 0) {
        if (argc < 4) die("usage: fbtool compare DEV EXPECTED.png [--tolerance T] [--max-pixels N]");
        long tolerance = 0, max_pixels = 0;
        for (int i = 4; i < argc; i++) {
            if (strcmp(argv[i], "--tolerance") == 0 && i + 1 < argc) tolerance = parse_long(argv[++i], "--tolerance");
            else if (strcmp(argv[i], "--max-pixels") == 0 && i + 1 < argc) max_pixels = parse_long(argv[++i], "--max-pixels");
            else die("unknown option '%s'", argv[i]);
        }
        unsigned ew, eh;
        uint8_t *expected = read_png_rgb(argv[3], &ew, &eh);
        if (ew != fb.width || eh != fb.height) {
            printf("size differs: framebuffer %ux%u, %s %ux%u\n", fb.width, fb.height, argv[3], ew, eh);
            return 1;
        }
        uint8_t *pixels = fb_read_rows(&fb);
        size_t differing = 0;
        for (size_t i = 0; i < count; i++) {
            unsigned got[3], want[3];
            decode(&fb, get_pixel(&fb, pixels + i * fb.bytes_per_pixel), got);
            /* reduce the 8-bit expectation to the framebuffer's depth the same way */
            decode(&fb, encode(&fb, expected[i * 3], expected[i * 3 + 1], expected[i * 3 + 2]), want);
            for (int c = 0; c < 3; c++)
                if (abs((int)got[c] - (int)want[c]) > tolerance) {
                    differing++;
                    break;
                }
        }
        printf("differing=%zu of %zu pixels (tolerance %ld)\n", differing, count, tolerance);
        return differing <= (size_t)max_pixels ? 0 : 1;
    }
    if (strcmp(cmd, "count") == 0) {
        if (argc < 4) die("usage: fbtool count DEV RRGGBB [--tolerance T]");
        long colour = parse_colour(argv[3]), tolerance = 0;
        if (argc == 6 && strcmp(argv[4], "--tolerance") == 0) tolerance = parse_long(argv[5], "--tolerance");
        unsigned want[3];
        decode(&fb, encode(&fb, (unsigned)(colour >> 16) & 0xff, (unsigned)(colour >> 8) & 0xff, (unsigned)colour & 0xff), want);
        uint8_t *pixels = fb_read_rows(&fb);
        size_t n = 0;
        for (size_t i = 0; i < count; i++) {
            unsigned got[3];
            decode(&fb, get_pixel(&fb, pixels + i * fb.bytes_per_pixel), got);
            if (abs((int)got[0] - (int)want[0]) <= tolerance && abs((int)got[1] - (int)want[1]) <= tolerance &&
                abs((int)got[2] - (int)want[2]) <= tolerance)
                n++;
        }
        printf("%zu\n", n);
        return 0;
    }
    if (strcmp(cmd, "stats") == 0) {
        uint8_t *pixels = fb_read_rows(&fb);
        uint32_t *values = malloc(count * sizeof *values);
        if (!values) die("out of memory");
        for (size_t i = 0; i < count; i++) values[i] = get_pixel(&fb, pixels + i * fb.bytes_per_pixel) & encode(&fb, 255, 255, 255);
        qsort(values, count, sizeof *values, cmp_u32);
        size_t distinct = 0, best = 0, run = 0;
        uint32_t best_value = 0;
        for (size_t i = 0; i < count; i++) {
            if (i == 0 || values[i] != values[i - 1]) {
                distinct++;
                run = 0;
            }
            if (++run > best) {
                best = run;
                best_value = values[i];
            }
        }
        unsigned bg[3];
        decode(&fb, best_value, bg);
        printf("colours=%zu background=%02x%02x%02x background_pixels=%zu of %zu\n", distinct, bg[0], bg[1], bg[2], best,
               count);
        return 0;
    }
    die("unknown command '%s'", cmd);
}
