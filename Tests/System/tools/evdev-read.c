// SPDX-License-Identifier: GPL-3.0-or-later
/* evdev-read DEVICE|--name NAME [--count N] [--timeout-ms MS]
 * Prints input events from an evdev node, one per line ("KEY KEY_PLAYPAUSE 1", "REL REL_X -1"),
 * until N events were printed (exit 0) or the timeout passed (exit 1). SYN events are not printed.
 * --name finds the /dev/input/event* whose device name (EVIOCGNAME) equals NAME. */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/input.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int open_by_name(const char *want, char *path, size_t size) {
    DIR *dir = opendir("/dev/input");
    if (!dir) return -1;
    struct dirent *entry;
    int found = -1;
    while (found < 0 && (entry = readdir(dir))) {
        if (strncmp(entry->d_name, "event", 5) != 0) continue;
        snprintf(path, size, "/dev/input/%s", entry->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        char name[256] = "";
        if (ioctl(fd, EVIOCGNAME(sizeof name), name) >= 0 && strcmp(name, want) == 0) found = fd;
        else close(fd);
    }
    closedir(dir);
    return found;
}

int main(int argc, char **argv) {
    tool_name = "evdev-read";
    const char *device = NULL, *name = NULL;
    long count = -1, timeout_ms = 5000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--name") == 0 && i + 1 < argc) name = argv[++i];
        else if (strcmp(argv[i], "--count") == 0 && i + 1 < argc) count = parse_long(argv[++i], "--count");
        else if (strcmp(argv[i], "--timeout-ms") == 0 && i + 1 < argc) timeout_ms = parse_long(argv[++i], "--timeout-ms");
        else if (argv[i][0] != '-' && !device) device = argv[i];
        else die("usage: evdev-read DEVICE|--name NAME [--count N] [--timeout-ms MS]");
    }
    char path[300];
    int fd = -1;
    if (name) {
        for (long waited = 0; fd < 0 && waited <= timeout_ms; waited += 20) {
            fd = open_by_name(name, path, sizeof path);
            if (fd < 0) sleep_ms(20);
        }
        if (fd < 0) die("no input device named '%s' under /dev/input", name);
    } else if (device) {
        fd = open(device, O_RDONLY | O_CLOEXEC);
        if (fd < 0) die("open %s: %s", device, strerror(errno));
    } else die("give a DEVICE or --name NAME");
    fprintf(stderr, "evdev-read: reading %s\n", name ? path : device);

    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long printed = 0;
    while (count < 0 || printed < count) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (elapsed >= timeout_ms) return count < 0 ? 0 : 1;
        struct pollfd pfd = {fd, POLLIN, 0};
        int r = poll(&pfd, 1, (int)(timeout_ms - elapsed));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) die("poll: %s", strerror(errno));
        if (r == 0) continue;
        struct input_event ev;
        ssize_t got = read(fd, &ev, sizeof ev);
        if (got != (ssize_t)sizeof ev) die("read: %s", got < 0 ? strerror(errno) : "short read");
        char buf[160];
        switch (ev.type) {
        case EV_KEY: printf("KEY %s %d\n", code_to_name(ev.code, ev.code >= BTN_MISC && ev.code < KEY_OK ? "BTN_" : "KEY_", buf, sizeof buf), ev.value); break;
        case EV_REL: printf("REL %s %d\n", code_to_name(ev.code, "REL_", buf, sizeof buf), ev.value); break;
        case EV_ABS: printf("ABS %s %d\n", code_to_name(ev.code, "ABS_", buf, sizeof buf), ev.value); break;
        case EV_SYN: case EV_MSC: continue;
        default: printf("TYPE%d %d %d\n", ev.type, ev.code, ev.value); break;
        }
        fflush(stdout);
        printed++;
    }
    return 0;
}
