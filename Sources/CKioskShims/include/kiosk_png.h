// SPDX-License-Identifier: GPL-3.0-or-later
// libpng behind functions that never longjmp into Swift: libpng reports errors by longjmp, so
// every call into it happens inside a C function that set up the jump buffer itself and turns
// the error into a return code plus a message.
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef struct kiosk_png_reader kiosk_png_reader;

/// Limits checked while reading the header, before any pixel memory exists.
struct kiosk_png_limits {
    uint32_t max_width;
    uint32_t max_height;
    /// Largest single ancillary chunk libpng may allocate (iCCP, zTXt, … bombs).
    size_t max_chunk_bytes;
};

/// Starts reading the PNG in `data` (which must stay valid until kiosk_png_close) and reads its
/// header. On failure returns NULL and writes a message into `err`.
kiosk_png_reader *kiosk_png_open(const uint8_t *data, size_t size, const struct kiosk_png_limits *limits, char *err,
                                 size_t err_size);
uint32_t kiosk_png_width(const kiosk_png_reader *reader);
uint32_t kiosk_png_height(const kiosk_png_reader *reader);
/// Whether the image is Adam7-interlaced (then rows come only from kiosk_png_read_image).
int kiosk_png_interlaced(const kiosk_png_reader *reader);
/// The file's colour type and bit depth, for messages and tests.
int kiosk_png_color_type(const kiosk_png_reader *reader);
int kiosk_png_bit_depth(const kiosk_png_reader *reader);
/// Sets the transformations to 8-bit RGBA with straight alpha (palette, grayscale, 16-bit, tRNS
/// all expanded). Call once, before reading rows. 0 on success, -1 with a message.
int kiosk_png_start_rgba(kiosk_png_reader *reader, char *err, size_t err_size);
/// Reads the next row (width × 4 bytes) of a non-interlaced image. 0 or -1 with a message.
int kiosk_png_read_row(kiosk_png_reader *reader, uint8_t *row, char *err, size_t err_size);
/// Reads the whole image into `pixels` (height rows of `stride` bytes each, stride ≥ width × 4).
int kiosk_png_read_image(kiosk_png_reader *reader, uint8_t *pixels, size_t stride, char *err, size_t err_size);
void kiosk_png_close(kiosk_png_reader *reader);

/// What kiosk_png_encode writes.
struct kiosk_png_format {
    int color_type;    // PNG_COLOR_TYPE_* (0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA)
    int bit_depth;     // 1, 2, 4, 8 or 16 (16-bit samples given big-endian)
    int interlaced;    // Adam7
    int bgr;           // rows hold B,G,R(,A) instead of R,G,B(,A)
    int strip_filler;  // RGB rows have a 4th byte per pixel to drop (XRGB8888 in memory)
    const uint8_t *palette; // palette_count × (r, g, b), for color_type 3
    int palette_count;
    const uint8_t *trns;    // palette alpha values, for color_type 3
    int trns_count;
    int compression_level;  // zlib level 0…9, -1 for the default
};

/// Encodes `height` rows (each `stride` bytes apart) into a malloc'd PNG in *out / *out_size
/// (free it with kiosk_png_free). 0 on success, -1 with a message.
int kiosk_png_encode(const uint8_t *rows, size_t stride, uint32_t width, uint32_t height,
                     const struct kiosk_png_format *format, uint8_t **out, size_t *out_size, char *err,
                     size_t err_size);
void kiosk_png_free(uint8_t *buffer);
