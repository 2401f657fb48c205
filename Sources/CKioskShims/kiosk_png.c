// SPDX-License-Identifier: GPL-3.0-or-later
#include "kiosk_png.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kiosk_png_reader {
    png_structp png;
    png_infop info;
    const uint8_t *data;
    size_t size;
    size_t offset;
    uint32_t width, height;
    int interlace, color_type, bit_depth;
    int started;
    char message[256];
};

static void put_error(char *err, size_t err_size, const char *message) {
    if (err && err_size) snprintf(err, err_size, "%s", message);
}

static void on_error(png_structp png, png_const_charp message) {
    char *buffer = png_get_error_ptr(png);
    if (buffer) snprintf(buffer, 256, "%s", message);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;  // warnings (bad ancillary chunks, sRGB profile notes) do not stop decoding
}

static void read_memory(png_structp png, png_bytep out, size_t length) {
    kiosk_png_reader *reader = png_get_io_ptr(png);
    if (length > reader->size - reader->offset) png_error(png, "unexpected end of file (truncated PNG)");
    memcpy(out, reader->data + reader->offset, length);
    reader->offset += length;
}

kiosk_png_reader *kiosk_png_open(const uint8_t *data, size_t size, const struct kiosk_png_limits *limits, char *err,
                                 size_t err_size) {
    if (size < 8 || png_sig_cmp(data, 0, 8) != 0) {
        put_error(err, err_size, "not a PNG file (bad signature)");
        return NULL;
    }
    kiosk_png_reader *reader = calloc(1, sizeof *reader);
    if (!reader) {
        put_error(err, err_size, "out of memory");
        return NULL;
    }
    reader->data = data;
    reader->size = size;
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, reader->message, on_error, on_warning);
    if (!reader->png) {
        free(reader);
        put_error(err, err_size, "png_create_read_struct failed");
        return NULL;
    }
    reader->info = png_create_info_struct(reader->png);
    if (!reader->info || setjmp(png_jmpbuf(reader->png))) {
        put_error(err, err_size, reader->message[0] ? reader->message : "cannot read PNG header");
        kiosk_png_close(reader);
        return NULL;
    }
    png_set_user_limits(reader->png, limits->max_width, limits->max_height);
    png_set_chunk_malloc_max(reader->png, limits->max_chunk_bytes);
    png_set_chunk_cache_max(reader->png, 128);
    // Chunks we never use are skipped unread: kept, 127 zTXt chunks of 4 MB each would be 500 MB.
    static const png_byte unused[] = "bKGD\0cHRM\0eXIf\0gAMA\0hIST\0iCCP\0iTXt\0oFFs\0pCAL\0pHYs\0sBIT\0sCAL\0"
                                     "sPLT\0sRGB\0tEXt\0tIME\0zTXt";
    png_set_keep_unknown_chunks(reader->png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(reader->png, PNG_HANDLE_CHUNK_NEVER, unused, (int)(sizeof unused / 5));
    png_set_read_fn(reader->png, reader, read_memory);
    png_read_info(reader->png, reader->info);
    reader->width = png_get_image_width(reader->png, reader->info);
    reader->height = png_get_image_height(reader->png, reader->info);
    reader->interlace = png_get_interlace_type(reader->png, reader->info) != PNG_INTERLACE_NONE;
    reader->color_type = png_get_color_type(reader->png, reader->info);
    reader->bit_depth = png_get_bit_depth(reader->png, reader->info);
    return reader;
}

uint32_t kiosk_png_width(const kiosk_png_reader *reader) { return reader->width; }
uint32_t kiosk_png_height(const kiosk_png_reader *reader) { return reader->height; }
int kiosk_png_interlaced(const kiosk_png_reader *reader) { return reader->interlace; }
int kiosk_png_color_type(const kiosk_png_reader *reader) { return reader->color_type; }
int kiosk_png_bit_depth(const kiosk_png_reader *reader) { return reader->bit_depth; }

int kiosk_png_start_rgba(kiosk_png_reader *reader, char *err, size_t err_size) {
    if (setjmp(png_jmpbuf(reader->png))) {
        put_error(err, err_size, reader->message);
        return -1;
    }
    png_structp png = reader->png;
    png_set_expand(png);  // palette → RGB, gray < 8 bits → 8, tRNS → alpha
    if (reader->bit_depth == 16) png_set_scale_16(png);
    if (reader->color_type == PNG_COLOR_TYPE_GRAY || reader->color_type == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(png);
    if (!(reader->color_type & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, reader->info, PNG_INFO_tRNS))
        png_set_filler(png, 0xff, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, reader->info);
    if (png_get_rowbytes(png, reader->info) != (size_t)reader->width * 4) {
        put_error(err, err_size, "unsupported PNG pixel layout");
        return -1;
    }
    reader->started = 1;
    return 0;
}

int kiosk_png_read_row(kiosk_png_reader *reader, uint8_t *row, char *err, size_t err_size) {
    if (!reader->started || reader->interlace) {
        put_error(err, err_size, "kiosk_png_read_row: not started, or interlaced");
        return -1;
    }
    if (setjmp(png_jmpbuf(reader->png))) {
        put_error(err, err_size, reader->message);
        return -1;
    }
    png_read_row(reader->png, row, NULL);
    return 0;
}

int kiosk_png_read_image(kiosk_png_reader *reader, uint8_t *pixels, size_t stride, char *err, size_t err_size) {
    if (!reader->started) {
        put_error(err, err_size, "kiosk_png_read_image: not started");
        return -1;
    }
    png_bytep *rows = malloc(sizeof(png_bytep) * (reader->height ? reader->height : 1));
    if (!rows) {
        put_error(err, err_size, "out of memory");
        return -1;
    }
    for (uint32_t y = 0; y < reader->height; y++) rows[y] = pixels + (size_t)y * stride;
    // `rows` is freed on both paths; volatile keeps its value valid after a longjmp.
    png_bytep *volatile keep = rows;
    if (setjmp(png_jmpbuf(reader->png))) {
        free(keep);
        put_error(err, err_size, reader->message);
        return -1;
    }
    png_read_image(reader->png, rows);
    free(keep);
    return 0;
}

void kiosk_png_close(kiosk_png_reader *reader) {
    if (!reader) return;
    if (reader->png) png_destroy_read_struct(&reader->png, reader->info ? &reader->info : NULL, NULL);
    free(reader);
}

struct write_buffer {
    uint8_t *bytes;
    size_t size, capacity;
    int failed;
};

static void write_memory(png_structp png, png_bytep data, size_t length) {
    struct write_buffer *buffer = png_get_io_ptr(png);
    if (buffer->size + length > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity * 2 : 65536;
        while (capacity < buffer->size + length) capacity *= 2;
        uint8_t *grown = realloc(buffer->bytes, capacity);
        if (!grown) png_error(png, "out of memory");
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->size, data, length);
    buffer->size += length;
}

static void flush_memory(png_structp png) { (void)png; }

int kiosk_png_encode(const uint8_t *rows, size_t stride, uint32_t width, uint32_t height,
                     const struct kiosk_png_format *format, uint8_t **out, size_t *out_size, char *err,
                     size_t err_size) {
    char message[256] = "cannot encode PNG";
    struct write_buffer buffer = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, message, on_error, on_warning);
    if (!png) {
        put_error(err, err_size, "png_create_write_struct failed");
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    png_bytep *row_pointers = malloc(sizeof(png_bytep) * (height ? height : 1));
    png_bytep *volatile keep_rows = row_pointers;
    struct write_buffer *volatile keep_buffer = &buffer;
    if (!info || !row_pointers || setjmp(png_jmpbuf(png))) {
        put_error(err, err_size, message);
        free(keep_rows);
        free(keep_buffer->bytes);
        png_destroy_write_struct(&png, info ? &info : NULL);
        return -1;
    }
    png_set_write_fn(png, &buffer, write_memory, flush_memory);
    if (format->compression_level >= 0) png_set_compression_level(png, format->compression_level);
    png_set_IHDR(png, info, width, height, format->bit_depth, format->color_type,
                 format->interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (format->color_type == PNG_COLOR_TYPE_PALETTE && format->palette) {
        png_color palette[256];
        int count = format->palette_count > 256 ? 256 : format->palette_count;
        for (int i = 0; i < count; i++) {
            palette[i].red = format->palette[3 * i];
            palette[i].green = format->palette[3 * i + 1];
            palette[i].blue = format->palette[3 * i + 2];
        }
        png_set_PLTE(png, info, palette, count);
        if (format->trns && format->trns_count > 0)
            png_set_tRNS(png, info, format->trns, format->trns_count > 256 ? 256 : format->trns_count, NULL);
    }
    png_write_info(png, info);
    if (format->bgr) png_set_bgr(png);
    if (format->strip_filler) png_set_filler(png, 0, PNG_FILLER_AFTER);
    for (uint32_t y = 0; y < height; y++) row_pointers[y] = (png_bytep)(rows + (size_t)y * stride);
    png_write_image(png, row_pointers);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row_pointers);
    *out = buffer.bytes;
    *out_size = buffer.size;
    return 0;
}

void kiosk_png_free(uint8_t *buffer) { free(buffer); }
