// SPDX-License-Identifier: GPL-3.0-or-later
// libjpeg (not TurboJPEG) behind functions that never longjmp into Swift, for one reason: only the
// libjpeg API lets us see the scan structure before the big allocation (jpeg_has_multiple_scans
// after jpeg_read_header) and cap libjpeg's own memory (mem->max_memory_to_use), so an image
// over the budget is refused by libjpeg itself whatever its shape.
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef struct kiosk_jpeg_reader kiosk_jpeg_reader;

/// What the header and the first scan header say (all of it known before pixels are allocated).
struct kiosk_jpeg_header {
    uint32_t width, height;
    int components;
    /// Adobe CMYK or YCCK: the pixels come back as inverted CMYK.
    int cmyk;
    int progressive;
    /// libjpeg buffers the coefficients of the whole image: progressive, or a sequential image
    /// whose first scan does not hold every component (jdinput.c's has_multiple_scans).
    int multi_scan;
    /// Bytes of that buffer (jdcoefct.c's whole_image arrays), 0 when `multi_scan` is 0.
    size_t coefficient_bytes;
};

/// The decoder's result codes: 0, an error (message in `err`), or libjpeg over its memory budget.
enum { KIOSK_JPEG_OK = 0, KIOSK_JPEG_ERROR = -1, KIOSK_JPEG_OVER_BUDGET = -2 };

/// Reads the header of the JPEG in `data` (which must stay valid until kiosk_jpeg_close) up to
/// the first scan header. NULL with a message in `err` on failure.
kiosk_jpeg_reader *kiosk_jpeg_open(const uint8_t *data, size_t size, struct kiosk_jpeg_header *header, char *err,
                                   size_t err_size);
/// Starts decompression at scale `scale_num`/8 into 8-bit RGBA (or inverted CMYK for CMYK
/// images); this is where libjpeg allocates (and, for a multi-scan image, reads every scan).
/// `max_library_bytes` (> 0) caps what libjpeg may hold when it allocates its image buffers:
/// over it, KIOSK_JPEG_OVER_BUDGET before the allocation. Writes the output size. A KIOSK_JPEG_* code.
int kiosk_jpeg_start(kiosk_jpeg_reader *reader, unsigned scale_num, size_t max_library_bytes, uint32_t *out_width,
                     uint32_t *out_height, char *err, size_t err_size);
/// Reads every output row into `pixels` (rows `stride` bytes apart). A truncated or damaged scan
/// is a warning, as in TurboJPEG: the rows still come back. A KIOSK_JPEG_* code.
int kiosk_jpeg_read_image(kiosk_jpeg_reader *reader, uint8_t *pixels, size_t stride, char *err, size_t err_size);
void kiosk_jpeg_close(kiosk_jpeg_reader *reader);
