// SPDX-License-Identifier: GPL-3.0-or-later
#include "kiosk_jpeg.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

// TurboJPEG's TJFLAG_LIMITSCANS: more scans than this is a CPU bomb, not a picture.
#define KIOSK_JPEG_MAX_SCANS 500

struct kiosk_jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int over_budget;
    char message[JMSG_LENGTH_MAX];
};

struct kiosk_jpeg_reader {
    struct jpeg_decompress_struct cinfo;
    struct kiosk_jpeg_error error;
    struct jpeg_progress_mgr progress;
    int created, started;
};

static void put_error(char *err, size_t err_size, const char *message) {
    if (err && err_size) snprintf(err, err_size, "%s", message);
}

static void on_error(j_common_ptr cinfo) {
    struct kiosk_jpeg_error *error = (struct kiosk_jpeg_error *)cinfo->err;
    // jmemnobs.c's answer when the virtual arrays need more than max_memory_to_use.
    if (error->pub.msg_code == JERR_NO_BACKING_STORE) error->over_budget = 1;
    (*cinfo->err->format_message)(cinfo, error->message);
    longjmp(error->jump, 1);
}

static void on_message(j_common_ptr cinfo, int level) {
    // Warnings (corrupt data, a premature end) leave a usable picture, as TurboJPEG does.
    (void)cinfo;
    (void)level;
}

static void on_progress(j_common_ptr cinfo) {
    j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
    struct kiosk_jpeg_error *error = (struct kiosk_jpeg_error *)cinfo->err;
    if (dinfo->input_scan_number > KIOSK_JPEG_MAX_SCANS) {
        snprintf(error->message, sizeof error->message, "the image has more than %d scans", KIOSK_JPEG_MAX_SCANS);
        longjmp(error->jump, 1);
    }
}

static int failure(kiosk_jpeg_reader *reader, char *err, size_t err_size) {
    put_error(err, err_size, reader->error.message[0] ? reader->error.message : "unknown libjpeg error");
    return reader->error.over_budget ? KIOSK_JPEG_OVER_BUDGET : KIOSK_JPEG_ERROR;
}

/// jdcoefct.c's whole-image buffer: per component, its blocks padded to its sampling factors.
static size_t coefficient_bytes(j_decompress_ptr cinfo) {
    size_t total = 0;
    for (int ci = 0; ci < cinfo->num_components; ci++) {
        jpeg_component_info *c = &cinfo->comp_info[ci];
        size_t h = c->h_samp_factor > 0 ? (size_t)c->h_samp_factor : 1;
        size_t v = c->v_samp_factor > 0 ? (size_t)c->v_samp_factor : 1;
        size_t columns = ((size_t)c->width_in_blocks + h - 1) / h * h;
        size_t rows = ((size_t)c->height_in_blocks + v - 1) / v * v;
        total += columns * rows * sizeof(JBLOCK);
    }
    return total;
}

kiosk_jpeg_reader *kiosk_jpeg_open(const uint8_t *data, size_t size, struct kiosk_jpeg_header *header, char *err,
                                   size_t err_size) {
    kiosk_jpeg_reader *reader = calloc(1, sizeof *reader);
    if (!reader) {
        put_error(err, err_size, "out of memory");
        return NULL;
    }
    reader->cinfo.err = jpeg_std_error(&reader->error.pub);
    reader->error.pub.error_exit = on_error;
    reader->error.pub.emit_message = on_message;
    if (setjmp(reader->error.jump)) {
        failure(reader, err, err_size);
        kiosk_jpeg_close(reader);
        return NULL;
    }
    jpeg_create_decompress(&reader->cinfo);
    reader->created = 1;
    reader->progress.progress_monitor = on_progress;
    reader->cinfo.progress = &reader->progress;
    jpeg_mem_src(&reader->cinfo, data, (unsigned long)size);
    jpeg_read_header(&reader->cinfo, TRUE);
    memset(header, 0, sizeof *header);
    header->width = reader->cinfo.image_width;
    header->height = reader->cinfo.image_height;
    header->components = reader->cinfo.num_components;
    header->cmyk = reader->cinfo.jpeg_color_space == JCS_CMYK || reader->cinfo.jpeg_color_space == JCS_YCCK;
    header->progressive = reader->cinfo.progressive_mode;
    header->multi_scan = jpeg_has_multiple_scans(&reader->cinfo);
    header->coefficient_bytes = header->multi_scan ? coefficient_bytes(&reader->cinfo) : 0;
    return reader;
}

int kiosk_jpeg_start(kiosk_jpeg_reader *reader, unsigned scale_num, size_t max_library_bytes, uint32_t *out_width,
                     uint32_t *out_height, char *err, size_t err_size) {
    if (setjmp(reader->error.jump)) return failure(reader, err, err_size);
    j_decompress_ptr cinfo = &reader->cinfo;
    // realize_virt_arrays asks jpeg_mem_available, which answers from this; jmemnobs.c then refuses
    // (JERR_NO_BACKING_STORE) instead of allocating more.
    cinfo->mem->max_memory_to_use = (long)max_library_bytes;
    cinfo->scale_num = scale_num;
    cinfo->scale_denom = 8;
    cinfo->out_color_space =
        (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK) ? JCS_CMYK : JCS_EXT_RGBA;
    jpeg_start_decompress(cinfo);
    reader->started = 1;
    *out_width = cinfo->output_width;
    *out_height = cinfo->output_height;
    return KIOSK_JPEG_OK;
}

int kiosk_jpeg_read_image(kiosk_jpeg_reader *reader, uint8_t *pixels, size_t stride, char *err, size_t err_size) {
    if (!reader->started) {
        put_error(err, err_size, "kiosk_jpeg_read_image: not started");
        return KIOSK_JPEG_ERROR;
    }
    if (setjmp(reader->error.jump)) return failure(reader, err, err_size);
    j_decompress_ptr cinfo = &reader->cinfo;
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW row = pixels + (size_t)cinfo->output_scanline * stride;
        if (jpeg_read_scanlines(cinfo, &row, 1) != 1) break;
    }
    return KIOSK_JPEG_OK;
}

void kiosk_jpeg_close(kiosk_jpeg_reader *reader) {
    if (!reader) return;
    // jpeg_destroy never errors; the jump buffer is not needed for it.
    if (reader->created) jpeg_destroy_decompress(&reader->cinfo);
    free(reader);
}
