// SPDX-License-Identifier: GPL-3.0-or-later
// Links Sources/CKioskShims/kiosk_gpio.c built against libgpiod v2 and checks the v2 path at run
// time as far as a machine without GPIO chips allows (errors of missing chips and non-chips).
// With a chip present (gpio-sim in the VM, a Raspberry Pi), it also lists the chip and requests
// line 0 with a pull-up, reads its value and releases it. Given a gpio-sim line directory
// (/sys/devices/platform/gpio-sim.0/gpiochip0/sim_gpio0) as second argument, it also pulls the line
// down and reads the falling edge with its kernel timestamp.
//
//   check [CHIP_PATH [SIM_LINE_DIR]]
#include "kiosk_gpio.h"

#include <errno.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int ok = fputs(text, f) >= 0;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

static uint64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int failures = 0;
static int passes = 0;
static int skips = 0;

static void expect(int ok, const char *what) {
    printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    if (ok) passes++; else failures++;
}

int main(int argc, char **argv) {
    const char *chip = argc > 1 ? argv[1] : "/dev/gpiochip0";
    expect(kiosk_gpio_api_version() == 2, "kiosk_gpio_api_version() == 2");
    printf("libgpiod %s\n", kiosk_gpio_library_version());

    struct kiosk_gpio_chip_info info;
    errno = 0;
    int rc = kiosk_gpio_chip_info("/dev/no-such-gpiochip", &info);
    expect(rc == -1 && errno == ENOENT, "chip info of a missing chip fails with ENOENT");

    errno = 0;
    kiosk_gpio_line *line =
        kiosk_gpio_line_request("/dev/no-such-gpiochip", 5, KIOSK_GPIO_BIAS_PULL_UP, 1, "kiosk-player");
    expect(line == NULL && errno == ENOENT, "requesting a line of a missing chip fails with ENOENT");

    errno = 0;
    rc = kiosk_gpio_chip_info("/dev/null", &info);
    int saved = errno;
    expect(rc == -1 && saved != 0, "/dev/null is not taken for a GPIO chip");
    printf("  (/dev/null: %s)\n", strerror(saved));

    if (access(chip, F_OK) == 0) {
        rc = kiosk_gpio_chip_info(chip, &info);
        expect(rc == 0, "chip info of an existing chip");
        if (rc == 0) printf("  %s: name %s, label %s, %u lines\n", chip, info.name, info.label, info.num_lines);
        line = kiosk_gpio_line_request(chip, 0, KIOSK_GPIO_BIAS_PULL_UP, 0, "kiosk-player");
        expect(line != NULL, "request line 0 with pull-up and both edges");
        if (line) {
            int value = kiosk_gpio_line_value(line);
            expect(value == 0 || value == 1, "read the line's value");
            struct kiosk_gpio_edge edges[4];
            expect(kiosk_gpio_line_read_edges(line, edges, 4) >= 0, "non-blocking read of pending edges");
            if (argc > 2) {
                char pull[512];
                snprintf(pull, sizeof pull, "%s/pull", argv[2]);
                uint64_t before = monotonic_ns();
                expect(write_text(pull, "pull-down") == 0, "pull the simulated line down");
                struct pollfd pfd = {.fd = kiosk_gpio_line_fd(line), .events = POLLIN};
                expect(poll(&pfd, 1, 5000) == 1, "the event fd becomes readable");
                int n = kiosk_gpio_line_read_edges(line, edges, 4);
                expect(n >= 1 && edges[0].rising == 0 && edges[0].offset == 0, "a falling edge of line 0");
                expect(n >= 1 && edges[0].timestamp_ns >= before && edges[0].timestamp_ns <= monotonic_ns(),
                       "its timestamp is on CLOCK_MONOTONIC");
                expect(kiosk_gpio_line_value(line) == 0, "the line reads 0");
                write_text(pull, "pull-up");
            }
            int used = 0;
            char consumer[64];
            rc = kiosk_gpio_line_user(chip, 0, &used, consumer, sizeof consumer);
            expect(rc == 0 && used && strcmp(consumer, "kiosk-player") == 0, "line 0 shows consumer kiosk-player");
            kiosk_gpio_line_release(line);
        }
        // An output line, as the SPI panel drives data/command, reset and backlight.
        line = kiosk_gpio_output_request(chip, 0, 0, 1, "kiosk-player");
        expect(line != NULL, "request line 0 as an output driven high");
        if (line) {
            char value_path[512], text[8] = "";
            if (argc > 2) {
                snprintf(value_path, sizeof value_path, "%s/value", argv[2]);
                FILE *f = fopen(value_path, "r");
                if (f) { if (!fgets(text, sizeof text, f)) text[0] = 0; fclose(f); }
                expect(text[0] == '1', "the simulated line is driven high");
            }
            expect(kiosk_gpio_line_set_value(line, 0) == 0, "drive the output line low");
            if (argc > 2) {
                FILE *f = fopen(value_path, "r");
                text[0] = 0;
                if (f) { if (!fgets(text, sizeof text, f)) text[0] = 0; fclose(f); }
                expect(text[0] == '0', "the simulated line is driven low");
            }
            kiosk_gpio_line_release(line);
        }
    } else {
        printf("skipped: no %s here, so no request of a real line\n", chip);
        skips++;
    }
    printf("gpiod-v2: %d passed, %d failed, %d skipped\n", passes, failures, skips);
    return failures == 0 ? 0 : 1;
}
