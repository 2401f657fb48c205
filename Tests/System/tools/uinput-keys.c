// SPDX-License-Identifier: GPL-3.0-or-later
/* uinput-keys NAME [KEY...]
 * Creates a virtual keyboard named NAME through /dev/uinput that can send every key the kernel
 * knows (or only the listed KEY... names), prints "ready /dev/input/eventN", then reads commands
 * from stdin, one per line, until end of input:
 *   press KEY | release KEY | tap KEY [HOLD_MS] | sleep MS
 * KEY is a name from linux/input-event-codes.h (KEY_PLAYPAUSE) or a number. Each command prints
 * "ok ..." once its events are written, so a caller can wait for it. */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int fd = -1;

static void emit(int type, int code, int value) {
    struct input_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = (unsigned short)type;
    ev.code = (unsigned short)code;
    ev.value = value;
    if (write(fd, &ev, sizeof ev) != (ssize_t)sizeof ev) die("write to /dev/uinput: %s", strerror(errno));
}

static void key(int code, int value) {
    emit(EV_KEY, code, value);
    emit(EV_SYN, SYN_REPORT, 0);
}

int main(int argc, char **argv) {
    tool_name = "uinput-keys";
    if (argc < 2) die("usage: uinput-keys NAME [KEY...] (commands on stdin: press|release|tap KEY [MS], sleep MS)");
    fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) die("open /dev/uinput: %s (is the uinput module loaded?)", strerror(errno));
    if (ioctl(fd, UI_SET_EVBIT, EV_KEY) < 0) die("UI_SET_EVBIT: %s", strerror(errno));
    if (argc > 2) {
        for (int i = 2; i < argc; i++) {
            int code = code_from_name(argv[i]);
            if (code < 0 || code > KEY_MAX) die("unknown key '%s'", argv[i]);
            ioctl(fd, UI_SET_KEYBIT, code);
        }
    } else {
        for (int code = 1; code < BTN_MISC; code++) ioctl(fd, UI_SET_KEYBIT, code);
        for (int code = KEY_OK; code < BTN_DPAD_UP; code++) ioctl(fd, UI_SET_KEYBIT, code);
    }
    struct uinput_setup setup;
    memset(&setup, 0, sizeof setup);
    setup.id.bustype = BUS_VIRTUAL;
    setup.id.vendor = 0x1209;
    setup.id.product = 0x5157;
    snprintf(setup.name, sizeof setup.name, "%s", argv[1]);
    if (ioctl(fd, UI_DEV_SETUP, &setup) < 0) die("UI_DEV_SETUP: %s", strerror(errno));
    if (ioctl(fd, UI_DEV_CREATE) < 0) die("UI_DEV_CREATE: %s", strerror(errno));

    char sysname[64] = "";
    if (ioctl(fd, UI_GET_SYSNAME(sizeof sysname), sysname) < 0) die("UI_GET_SYSNAME: %s", strerror(errno));
    char path[128], node[300] = "";
    snprintf(path, sizeof path, "/sys/devices/virtual/input/%s", sysname);
    for (int tries = 0; tries < 200 && node[0] == '\0'; tries++) {
        DIR *dir = opendir(path);
        if (dir) {
            struct dirent *entry;
            while ((entry = readdir(dir)))
                if (strncmp(entry->d_name, "event", 5) == 0) snprintf(node, sizeof node, "/dev/input/%s", entry->d_name);
            closedir(dir);
        }
        if (node[0] == '\0') sleep_ms(10);
    }
    if (node[0] == '\0') die("no event node appeared under %s (is evdev loaded?)", path);
    for (int tries = 0; tries < 200 && access(node, R_OK) != 0; tries++) sleep_ms(10);
    printf("ready %s\n", node);
    fflush(stdout);

    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        char verb[32] = "", arg[128] = "";
        double ms = 0;
        int n = sscanf(line, "%31s %127s %lf", verb, arg, &ms);
        if (n < 1) continue;
        if (strcmp(verb, "sleep") == 0) {
            sleep_ms(parse_long(arg, "sleep"));
        } else {
            int code = n >= 2 ? code_from_name(arg) : -1;
            if (code < 0) die("unknown key in '%s'", line);
            if (strcmp(verb, "press") == 0) key(code, 1);
            else if (strcmp(verb, "release") == 0) key(code, 0);
            else if (strcmp(verb, "tap") == 0) {
                key(code, 1);
                sleep_ms(n >= 3 ? ms : 50);
                key(code, 0);
            } else die("unknown command '%s'", verb);
        }
        printf("ok %s %s\n", verb, arg);
        fflush(stdout);
    }
    sleep_ms(100); /* let readers drain the last events before the device disappears */
    ioctl(fd, UI_DEV_DESTROY);
    close(fd);
    return 0;
}
