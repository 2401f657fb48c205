// SPDX-License-Identifier: GPL-3.0-or-later
#include "kiosk_evdev.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define KIOSK_EVDEV_BATCH 64

int kiosk_evdev_read(int fd, struct kiosk_input_event *events, int max) {
    struct input_event raw[KIOSK_EVDEV_BATCH];
    if (max > KIOSK_EVDEV_BATCH) max = KIOSK_EVDEV_BATCH;
    if (max <= 0) return 0;
    // EINTR is returned (-1), not retried: the Swift caller retries through Syscalls.retrying.
    ssize_t n = read(fd, raw, sizeof raw[0] * (size_t)max);
    if (n < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    if (n == 0) {
        errno = ENODEV;
        return -1;
    }
    int count = (int)(n / (ssize_t)sizeof raw[0]);
    for (int i = 0; i < count; i++) {
        events[i].timestamp_ns =
            (uint64_t)raw[i].input_event_sec * 1000000000ull + (uint64_t)raw[i].input_event_usec * 1000ull;
        events[i].type = raw[i].type;
        events[i].code = raw[i].code;
        events[i].value = raw[i].value;
    }
    return count;
}

int kiosk_evdev_name(int fd, char *name, size_t size) {
    if (size == 0) return 0;
    memset(name, 0, size);
    int n = ioctl(fd, EVIOCGNAME(size - 1), name);
    return n < 0 ? -1 : 0;
}

int kiosk_evdev_use_monotonic_clock(int fd) {
    int clock = CLOCK_MONOTONIC;
    return ioctl(fd, EVIOCSCLOCKID, &clock);
}

int kiosk_evdev_grab(int fd) {
    return ioctl(fd, EVIOCGRAB, 1);
}

int kiosk_evdev_has_code(int fd, unsigned int type, unsigned int code) {
    unsigned char bits[KEY_MAX / 8 + 1];
    memset(bits, 0, sizeof bits);
    if (code > KEY_MAX) return 0;
    if (ioctl(fd, EVIOCGBIT(type, sizeof bits), bits) < 0) return -1;
    return (bits[code / 8] >> (code % 8)) & 1;
}

int kiosk_evdev_key_is_down(int fd, unsigned int code) {
    unsigned char bits[KEY_MAX / 8 + 1];
    memset(bits, 0, sizeof bits);
    if (code > KEY_MAX) return 0;
    if (ioctl(fd, EVIOCGKEY(sizeof bits), bits) < 0) return -1;
    return (bits[code / 8] >> (code % 8)) & 1;
}

struct code_name {
    const char *name;
    unsigned short type;
    unsigned short code;
};

#define K(x) {#x, EV_KEY, x}
#define R(x) {#x, EV_REL, x}

// The keys a music box may have: media keys, remote-control keys, keypads, a keyboard's letters,
// digits and navigation keys, and generic buttons.
static const struct code_name code_names[] = {
    K(KEY_ESC), K(KEY_1), K(KEY_2), K(KEY_3), K(KEY_4), K(KEY_5), K(KEY_6), K(KEY_7), K(KEY_8), K(KEY_9),
    K(KEY_0), K(KEY_MINUS), K(KEY_EQUAL), K(KEY_BACKSPACE), K(KEY_TAB), K(KEY_Q), K(KEY_W), K(KEY_E),
    K(KEY_R), K(KEY_T), K(KEY_Y), K(KEY_U), K(KEY_I), K(KEY_O), K(KEY_P), K(KEY_LEFTBRACE),
    K(KEY_RIGHTBRACE), K(KEY_ENTER), K(KEY_LEFTCTRL), K(KEY_A), K(KEY_S), K(KEY_D), K(KEY_F), K(KEY_G),
    K(KEY_H), K(KEY_J), K(KEY_K), K(KEY_L), K(KEY_SEMICOLON), K(KEY_APOSTROPHE), K(KEY_GRAVE),
    K(KEY_LEFTSHIFT), K(KEY_BACKSLASH), K(KEY_Z), K(KEY_X), K(KEY_C), K(KEY_V), K(KEY_B), K(KEY_N),
    K(KEY_M), K(KEY_COMMA), K(KEY_DOT), K(KEY_SLASH), K(KEY_RIGHTSHIFT), K(KEY_KPASTERISK),
    K(KEY_LEFTALT), K(KEY_SPACE), K(KEY_CAPSLOCK), K(KEY_F1), K(KEY_F2), K(KEY_F3), K(KEY_F4), K(KEY_F5),
    K(KEY_F6), K(KEY_F7), K(KEY_F8), K(KEY_F9), K(KEY_F10), K(KEY_NUMLOCK), K(KEY_SCROLLLOCK), K(KEY_KP7),
    K(KEY_KP8), K(KEY_KP9), K(KEY_KPMINUS), K(KEY_KP4), K(KEY_KP5), K(KEY_KP6), K(KEY_KPPLUS), K(KEY_KP1),
    K(KEY_KP2), K(KEY_KP3), K(KEY_KP0), K(KEY_KPDOT), K(KEY_F11), K(KEY_F12), K(KEY_KPENTER),
    K(KEY_RIGHTCTRL), K(KEY_KPSLASH), K(KEY_RIGHTALT), K(KEY_HOME), K(KEY_UP), K(KEY_PAGEUP), K(KEY_LEFT),
    K(KEY_RIGHT), K(KEY_END), K(KEY_DOWN), K(KEY_PAGEDOWN), K(KEY_INSERT), K(KEY_DELETE), K(KEY_MUTE),
    K(KEY_VOLUMEDOWN), K(KEY_VOLUMEUP), K(KEY_POWER), K(KEY_KPEQUAL), K(KEY_PAUSE), K(KEY_STOP),
    K(KEY_AGAIN), K(KEY_PROPS), K(KEY_UNDO), K(KEY_FRONT), K(KEY_COPY), K(KEY_OPEN), K(KEY_PASTE),
    K(KEY_FIND), K(KEY_CUT), K(KEY_HELP), K(KEY_MENU), K(KEY_SLEEP), K(KEY_WAKEUP), K(KEY_BACK),
    K(KEY_FORWARD), K(KEY_CLOSECD), K(KEY_EJECTCD), K(KEY_EJECTCLOSECD), K(KEY_NEXTSONG),
    K(KEY_PLAYPAUSE), K(KEY_PREVIOUSSONG), K(KEY_STOPCD), K(KEY_RECORD), K(KEY_REWIND), K(KEY_HOMEPAGE),
    K(KEY_EXIT), K(KEY_SCROLLUP), K(KEY_SCROLLDOWN), K(KEY_PLAYCD), K(KEY_PAUSECD), K(KEY_PLAY),
    K(KEY_FASTFORWARD), K(KEY_PRINT), K(KEY_SEARCH), K(KEY_CANCEL), K(KEY_MEDIA), K(KEY_SELECT),
    K(KEY_OK), K(KEY_GOTO), K(KEY_INFO), K(KEY_PROGRAM), K(KEY_LIST), K(KEY_OPTION), K(KEY_FAVORITES),
    K(KEY_AUDIO), K(KEY_SHUFFLE), K(KEY_RED), K(KEY_GREEN), K(KEY_YELLOW), K(KEY_BLUE),
    K(KEY_CHANNELUP), K(KEY_CHANNELDOWN), K(KEY_FIRST), K(KEY_LAST), K(KEY_NEXT), K(KEY_RESTART),
    K(KEY_PREVIOUS), K(KEY_NUMERIC_0), K(KEY_NUMERIC_1), K(KEY_NUMERIC_2), K(KEY_NUMERIC_3),
    K(KEY_NUMERIC_4), K(KEY_NUMERIC_5), K(KEY_NUMERIC_6), K(KEY_NUMERIC_7), K(KEY_NUMERIC_8),
    K(KEY_NUMERIC_9), K(KEY_NUMERIC_STAR), K(KEY_NUMERIC_POUND), K(KEY_CONTEXT_MENU), K(KEY_ROOT_MENU),
    K(BTN_0), K(BTN_1), K(BTN_2), K(BTN_3), K(BTN_4), K(BTN_5), K(BTN_6), K(BTN_7), K(BTN_8), K(BTN_9),
    K(BTN_LEFT), K(BTN_RIGHT), K(BTN_MIDDLE), K(BTN_SIDE), K(BTN_EXTRA), K(BTN_SOUTH), K(BTN_EAST),
    K(BTN_NORTH), K(BTN_WEST), K(BTN_TL), K(BTN_TR), K(BTN_SELECT), K(BTN_START), K(BTN_MODE),
    K(BTN_DPAD_UP), K(BTN_DPAD_DOWN), K(BTN_DPAD_LEFT), K(BTN_DPAD_RIGHT), K(BTN_TRIGGER_HAPPY1),
    K(BTN_TRIGGER_HAPPY2), K(BTN_TRIGGER_HAPPY3), K(BTN_TRIGGER_HAPPY4),
    R(REL_X), R(REL_Y), R(REL_Z), R(REL_RX), R(REL_RY), R(REL_RZ), R(REL_HWHEEL), R(REL_DIAL),
    R(REL_WHEEL), R(REL_MISC),
};

int kiosk_evdev_code_from_name(const char *name, unsigned int *type, unsigned int *code) {
    for (size_t i = 0; i < sizeof code_names / sizeof code_names[0]; i++) {
        if (strcmp(code_names[i].name, name) == 0) {
            *type = code_names[i].type;
            *code = code_names[i].code;
            return 0;
        }
    }
    return -1;
}

const char *kiosk_evdev_code_name(unsigned int type, unsigned int code) {
    for (size_t i = 0; i < sizeof code_names / sizeof code_names[0]; i++) {
        if (code_names[i].type == type && code_names[i].code == code) return code_names[i].name;
    }
    return NULL;
}

int kiosk_uinput_create(const char *path, const char *name, const uint16_t *keys, int key_count,
                        const uint16_t *rels, int rel_count) {
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    if (key_count > 0 && ioctl(fd, UI_SET_EVBIT, EV_KEY) < 0) goto fail;
    for (int i = 0; i < key_count; i++) {
        if (ioctl(fd, UI_SET_KEYBIT, keys[i]) < 0) goto fail;
    }
    if (rel_count > 0 && ioctl(fd, UI_SET_EVBIT, EV_REL) < 0) goto fail;
    for (int i = 0; i < rel_count; i++) {
        if (ioctl(fd, UI_SET_RELBIT, rels[i]) < 0) goto fail;
    }
    struct uinput_setup setup;
    memset(&setup, 0, sizeof setup);
    setup.id.bustype = BUS_VIRTUAL;
    setup.id.vendor = 0x1209;  // pid.codes test vendor
    setup.id.product = 0x0001;
    strncpy(setup.name, name, UINPUT_MAX_NAME_SIZE - 1);
    if (ioctl(fd, UI_DEV_SETUP, &setup) < 0) goto fail;
    if (ioctl(fd, UI_DEV_CREATE) < 0) goto fail;
    return fd;
fail:;
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

int kiosk_uinput_emit(int fd, uint16_t type, uint16_t code, int32_t value) {
    struct input_event event;
    memset(&event, 0, sizeof event);
    event.type = type;
    event.code = code;
    event.value = value;
    ssize_t n = write(fd, &event, sizeof event);  // EINTR: -1, retried by the Swift caller
    if (n < 0) return -1;
    if (n != (ssize_t)sizeof event) {
        errno = EIO;
        return -1;
    }
    return 0;
}

int kiosk_uinput_sysname(int fd, char *name, size_t size) {
    if (size == 0) return 0;
    memset(name, 0, size);
    return ioctl(fd, UI_GET_SYSNAME(size - 1), name) < 0 ? -1 : 0;
}

int kiosk_uinput_destroy(int fd) {
    int rc = ioctl(fd, UI_DEV_DESTROY);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc < 0 ? -1 : 0;
}
