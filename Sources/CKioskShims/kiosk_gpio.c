// SPDX-License-Identifier: GPL-3.0-or-later
#include "kiosk_gpio.h"

#include <errno.h>
#include <fcntl.h>
#include <gpiod.h>
#include <stdlib.h>
#include <string.h>

// libgpiod v1 defines GPIOD_LINE_BULK_MAX_LINES; v2 removed struct gpiod_line and the bulk API.
#if defined(GPIOD_LINE_BULK_MAX_LINES)
#define KIOSK_GPIOD_V1 1
#else
#define KIOSK_GPIOD_V2 1
#endif

#define KIOSK_GPIO_EVENT_BATCH 16

static void copy_string(char *dst, size_t size, const char *src) {
    if (size == 0) return;
    if (!src) src = "";
    size_t n = strlen(src);
    if (n >= size) n = size - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

static int set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

// Closes `chip` on a failure path without losing the errno of what failed; returns -1.
static int close_keeping_errno(struct gpiod_chip *chip) {
    int saved = errno;
    gpiod_chip_close(chip);
    errno = saved;
    return -1;
}

int kiosk_gpio_api_version(void) {
#if KIOSK_GPIOD_V1
    return 1;
#else
    return 2;
#endif
}

const char *kiosk_gpio_library_version(void) {
#if KIOSK_GPIOD_V1
    return gpiod_version_string();
#else
    return gpiod_api_version();
#endif
}

#if KIOSK_GPIOD_V1

struct kiosk_gpio_line {
    struct gpiod_chip *chip;
    struct gpiod_line *line;
    unsigned int offset;
    int fd;
};

static void release_keeping_errno(struct gpiod_line *line) {
    int saved = errno;
    gpiod_line_release(line);
    errno = saved;
}

int kiosk_gpio_chip_info(const char *path, struct kiosk_gpio_chip_info *info) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -1;
    copy_string(info->name, sizeof info->name, gpiod_chip_name(chip));
    copy_string(info->label, sizeof info->label, gpiod_chip_label(chip));
    info->num_lines = gpiod_chip_num_lines(chip);
    gpiod_chip_close(chip);
    return 0;
}

int kiosk_gpio_line_user(const char *path, unsigned int offset, int *used, char *consumer, size_t size) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -1;
    struct gpiod_line *line = gpiod_chip_get_line(chip, offset);
    if (!line) return close_keeping_errno(chip);
    *used = gpiod_line_is_used(line) ? 1 : 0;
    copy_string(consumer, size, gpiod_line_consumer(line));
    gpiod_chip_close(chip);
    return 0;
}

// One line, either an input with both-edge events (output < 0) or an output driven to `output`
// (as request_v2 for libgpiod 2).
static kiosk_gpio_line *request_v1(const char *path, unsigned int offset, int bias, int active_low, int output,
                                   const char *consumer) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return NULL;
    struct gpiod_line *line = gpiod_chip_get_line(chip, offset);
    if (!line) goto fail;
    int flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
    switch (output < 0 ? bias : KIOSK_GPIO_BIAS_AS_IS) {
    case KIOSK_GPIO_BIAS_DISABLE: flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE; break;
    case KIOSK_GPIO_BIAS_PULL_UP: flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP; break;
    case KIOSK_GPIO_BIAS_PULL_DOWN: flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN; break;
    default: break;
    }
    struct gpiod_line_request_config config = {
        .consumer = consumer,
        .request_type = output < 0 ? GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES : GPIOD_LINE_REQUEST_DIRECTION_OUTPUT,
        .flags = flags,
    };
    if (gpiod_line_request(line, &config, output > 0 ? 1 : 0) != 0) goto fail;
    int fd = -1;
    if (output < 0) {
        fd = gpiod_line_event_get_fd(line);
        if (fd < 0 || set_nonblocking(fd) != 0) goto release;
    }
    kiosk_gpio_line *result = calloc(1, sizeof *result);
    if (!result) {
        errno = ENOMEM;
        goto release;
    }
    result->chip = chip;
    result->line = line;
    result->offset = offset;
    result->fd = fd;
    return result;
release:
    release_keeping_errno(line);
fail:
    close_keeping_errno(chip);
    return NULL;
}

kiosk_gpio_line *kiosk_gpio_line_request(const char *path, unsigned int offset, int bias, int active_low,
                                         const char *consumer) {
    return request_v1(path, offset, bias, active_low, -1, consumer);
}

kiosk_gpio_line *kiosk_gpio_output_request(const char *path, unsigned int offset, int active_low, int value,
                                           const char *consumer) {
    return request_v1(path, offset, KIOSK_GPIO_BIAS_AS_IS, active_low, value ? 1 : 0, consumer);
}

int kiosk_gpio_line_set_value(kiosk_gpio_line *line, int value) { return gpiod_line_set_value(line->line, value ? 1 : 0); }

int kiosk_gpio_line_fd(kiosk_gpio_line *line) { return line->fd; }

int kiosk_gpio_line_value(kiosk_gpio_line *line) { return gpiod_line_get_value(line->line); }

int kiosk_gpio_line_read_edges(kiosk_gpio_line *line, struct kiosk_gpio_edge *edges, int max) {
    struct gpiod_line_event events[KIOSK_GPIO_EVENT_BATCH];
    if (max > KIOSK_GPIO_EVENT_BATCH) max = KIOSK_GPIO_EVENT_BATCH;
    if (max <= 0) return 0;
    int n = gpiod_line_event_read_fd_multiple(line->fd, events, (unsigned int)max);
    if (n < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    for (int i = 0; i < n; i++) {
        edges[i].timestamp_ns = (uint64_t)events[i].ts.tv_sec * 1000000000ull + (uint64_t)events[i].ts.tv_nsec;
        edges[i].offset = line->offset;
        edges[i].rising = events[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
    }
    return n;
}

void kiosk_gpio_line_release(kiosk_gpio_line *line) {
    if (!line) return;
    gpiod_line_release(line->line);
    gpiod_chip_close(line->chip);
    free(line);
}

#else  // KIOSK_GPIOD_V2

struct kiosk_gpio_line {
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *buffer;
    unsigned int offset;
};

int kiosk_gpio_chip_info(const char *path, struct kiosk_gpio_chip_info *info) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -1;
    struct gpiod_chip_info *chip_info = gpiod_chip_get_info(chip);
    if (!chip_info) return close_keeping_errno(chip);
    copy_string(info->name, sizeof info->name, gpiod_chip_info_get_name(chip_info));
    copy_string(info->label, sizeof info->label, gpiod_chip_info_get_label(chip_info));
    info->num_lines = (unsigned int)gpiod_chip_info_get_num_lines(chip_info);
    gpiod_chip_info_free(chip_info);
    gpiod_chip_close(chip);
    return 0;
}

int kiosk_gpio_line_user(const char *path, unsigned int offset, int *used, char *consumer, size_t size) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -1;
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip, offset);
    if (!info) return close_keeping_errno(chip);
    *used = gpiod_line_info_is_used(info) ? 1 : 0;
    copy_string(consumer, size, gpiod_line_info_get_consumer(info));
    gpiod_line_info_free(info);
    gpiod_chip_close(chip);
    return 0;
}

// One line, either an input with both-edge events (output < 0) or an output driven to `output`.
static kiosk_gpio_line *request_v2(const char *path, unsigned int offset, int bias, int active_low, int output,
                                   const char *consumer) {
    struct gpiod_chip *chip = NULL;
    struct gpiod_line_settings *settings = NULL;
    struct gpiod_line_config *line_config = NULL;
    struct gpiod_request_config *request_config = NULL;
    struct gpiod_line_request *request = NULL;
    struct gpiod_edge_event_buffer *buffer = NULL;
    kiosk_gpio_line *result = NULL;
    int saved = 0;

    chip = gpiod_chip_open(path);
    if (!chip) return NULL;
    settings = gpiod_line_settings_new();
    line_config = gpiod_line_config_new();
    request_config = gpiod_request_config_new();
    if (output < 0) buffer = gpiod_edge_event_buffer_new(KIOSK_GPIO_EVENT_BATCH);
    if (!settings || !line_config || !request_config || (output < 0 && !buffer)) {
        saved = ENOMEM;
        goto done;
    }
    enum gpiod_line_bias line_bias = GPIOD_LINE_BIAS_AS_IS;
    switch (bias) {
    case KIOSK_GPIO_BIAS_DISABLE: line_bias = GPIOD_LINE_BIAS_DISABLED; break;
    case KIOSK_GPIO_BIAS_PULL_UP: line_bias = GPIOD_LINE_BIAS_PULL_UP; break;
    case KIOSK_GPIO_BIAS_PULL_DOWN: line_bias = GPIOD_LINE_BIAS_PULL_DOWN; break;
    default: break;
    }
    if (output >= 0) {
        if (gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT) != 0 ||
            gpiod_line_settings_set_output_value(settings, output ? GPIOD_LINE_VALUE_ACTIVE
                                                                  : GPIOD_LINE_VALUE_INACTIVE) != 0) {
            saved = errno;
            goto done;
        }
    } else if (gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT) != 0 ||
               gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH) != 0 ||
               gpiod_line_settings_set_bias(settings, line_bias) != 0 ||
               gpiod_line_settings_set_event_clock(settings, GPIOD_LINE_CLOCK_MONOTONIC) != 0) {
        saved = errno;
        goto done;
    }
    gpiod_line_settings_set_active_low(settings, active_low != 0);
    if (gpiod_line_config_add_line_settings(line_config, &offset, 1, settings) != 0) {
        saved = errno;
        goto done;
    }
    gpiod_request_config_set_consumer(request_config, consumer);
    if (output < 0) gpiod_request_config_set_event_buffer_size(request_config, 64);
    request = gpiod_chip_request_lines(chip, request_config, line_config);
    if (!request) {
        saved = errno;
        goto done;
    }
    if (output < 0 && set_nonblocking(gpiod_line_request_get_fd(request)) != 0) {
        saved = errno;
        goto done;
    }
    result = calloc(1, sizeof *result);
    if (!result) {
        saved = ENOMEM;
        goto done;
    }
    result->request = request;
    result->buffer = buffer;
    result->offset = offset;
    request = NULL;
    buffer = NULL;
done:
    if (request) gpiod_line_request_release(request);
    if (buffer) gpiod_edge_event_buffer_free(buffer);
    if (request_config) gpiod_request_config_free(request_config);
    if (line_config) gpiod_line_config_free(line_config);
    if (settings) gpiod_line_settings_free(settings);
    gpiod_chip_close(chip);
    if (!result) errno = saved ? saved : EIO;
    return result;
}

kiosk_gpio_line *kiosk_gpio_line_request(const char *path, unsigned int offset, int bias, int active_low,
                                         const char *consumer) {
    return request_v2(path, offset, bias, active_low, -1, consumer);
}

kiosk_gpio_line *kiosk_gpio_output_request(const char *path, unsigned int offset, int active_low, int value,
                                           const char *consumer) {
    return request_v2(path, offset, KIOSK_GPIO_BIAS_AS_IS, active_low, value ? 1 : 0, consumer);
}

int kiosk_gpio_line_set_value(kiosk_gpio_line *line, int value) {
    return gpiod_line_request_set_value(line->request, line->offset,
                                        value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
}

int kiosk_gpio_line_fd(kiosk_gpio_line *line) { return gpiod_line_request_get_fd(line->request); }

int kiosk_gpio_line_value(kiosk_gpio_line *line) {
    enum gpiod_line_value value = gpiod_line_request_get_value(line->request, line->offset);
    if (value == GPIOD_LINE_VALUE_ERROR) return -1;
    return value == GPIOD_LINE_VALUE_ACTIVE ? 1 : 0;
}

int kiosk_gpio_line_read_edges(kiosk_gpio_line *line, struct kiosk_gpio_edge *edges, int max) {
    if (max > KIOSK_GPIO_EVENT_BATCH) max = KIOSK_GPIO_EVENT_BATCH;
    if (max <= 0) return 0;
    int n = gpiod_line_request_read_edge_events(line->request, line->buffer, (size_t)max);
    if (n < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    for (int i = 0; i < n; i++) {
        struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(line->buffer, (unsigned long)i);
        edges[i].timestamp_ns = gpiod_edge_event_get_timestamp_ns(event);
        edges[i].offset = gpiod_edge_event_get_line_offset(event);
        edges[i].rising = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE;
    }
    return n;
}

void kiosk_gpio_line_release(kiosk_gpio_line *line) {
    if (!line) return;
    gpiod_line_request_release(line->request);
    if (line->buffer) gpiod_edge_event_buffer_free(line->buffer);
    free(line);
}

#endif
