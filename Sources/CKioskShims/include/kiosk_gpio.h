// SPDX-License-Identifier: GPL-3.0-or-later
// libgpiod behind one interface. Debian 12 ships the v1 API (1.6); Raspberry Pi OS trixie ships v2 (2.x).
// The implementation is chosen at build time from the header in use (see kiosk_gpio.c); both paths
// are compiled: v1 by every build here, v2 by Tests/gpiod-v2/build-check.sh against libgpiod 2 sources.
//
// One request per line: each line has its own file descriptor, so a busy or missing line fails
// alone and every other input keeps working. Edge types are logical (active-low already applied):
// `rising` means the line became active.
#pragma once
#include <stddef.h>
#include <stdint.h>

/// 1 or 2: the libgpiod API major version this build was compiled against.
int kiosk_gpio_api_version(void);
/// The runtime libgpiod version string, e.g. "1.6.3".
const char *kiosk_gpio_library_version(void);

/// What a chip says about itself. Strings are NUL-terminated (truncated to fit).
struct kiosk_gpio_chip_info {
    char name[64];
    char label[64];
    unsigned int num_lines;
};

/// Opens the chip at `path` (a /dev/gpiochipN), reads its name, label and line count, closes it.
/// Returns 0, or -1 with errno set (ENOENT: no such file; EACCES: no permission; ENOTTY/ENODEV:
/// not a GPIO chip).
int kiosk_gpio_chip_info(const char *path, struct kiosk_gpio_chip_info *info);

/// Whether line `offset` of the chip at `path` is in use, and by whom (for "busy" messages).
/// Returns 0, or -1 with errno set. `consumer` gets "" when the kernel names no consumer.
int kiosk_gpio_line_user(const char *path, unsigned int offset, int *used, char *consumer, size_t size);

/// Pull resistor setting of a requested line.
enum kiosk_gpio_bias {
    KIOSK_GPIO_BIAS_AS_IS = 0,
    KIOSK_GPIO_BIAS_DISABLE = 1,
    KIOSK_GPIO_BIAS_PULL_UP = 2,
    KIOSK_GPIO_BIAS_PULL_DOWN = 3,
};

/// One requested input line with edge events on both edges.
typedef struct kiosk_gpio_line kiosk_gpio_line;

/// Requests line `offset` of the chip at `path` as an input with events on both edges, `bias`
/// (a `kiosk_gpio_bias`), optional active-low, and `consumer` as the name other tools show.
/// Event timestamps come from the kernel on CLOCK_MONOTONIC (v2: asked for explicitly; v1: the
/// kernel's clock for line events since Linux 5.7). The event fd is non-blocking.
/// Returns NULL with errno set: ENOENT no chip, EACCES permission, EINVAL offset out of range,
/// EBUSY line in use.
kiosk_gpio_line *kiosk_gpio_line_request(const char *path, unsigned int offset, int bias, int active_low,
                                         const char *consumer);

/// The event file descriptor to watch for readability (owned by the request).
int kiosk_gpio_line_fd(kiosk_gpio_line *line);

/// The line's current logical value (1 active, 0 inactive), or -1 with errno set.
int kiosk_gpio_line_value(kiosk_gpio_line *line);

/// One edge event.
struct kiosk_gpio_edge {
    /// Kernel timestamp, nanoseconds of CLOCK_MONOTONIC (see kiosk_gpio_line_request).
    uint64_t timestamp_ns;
    unsigned int offset;
    /// 1: the line became active (logical rising edge); 0: it became inactive.
    int rising;
};

/// Reads the pending edge events, at most `max`. Returns the count, 0 when none is pending, or -1
/// with errno set (ENODEV when the chip went away).
int kiosk_gpio_line_read_edges(kiosk_gpio_line *line, struct kiosk_gpio_edge *edges, int max);

/// Requests line `offset` of the chip at `path` as an output driven to `value` (logical: 1 active,
/// 0 inactive; `active_low` inverts the physical level), for panel control lines (data/command,
/// reset, backlight). Release it with kiosk_gpio_line_release; kiosk_gpio_line_fd is -1 (v1) or
/// the request's fd (v2) and has no events. Returns NULL with errno set, like
/// kiosk_gpio_line_request.
kiosk_gpio_line *kiosk_gpio_output_request(const char *path, unsigned int offset, int active_low, int value,
                                           const char *consumer);

/// Drives a line requested with kiosk_gpio_output_request: 1 active, 0 inactive. Returns 0, or -1
/// with errno set.
int kiosk_gpio_line_set_value(kiosk_gpio_line *line, int value);

/// Releases the line and frees the request.
void kiosk_gpio_line_release(kiosk_gpio_line *line);
