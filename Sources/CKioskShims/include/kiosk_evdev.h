// SPDX-License-Identifier: GPL-3.0-or-later
// Linux input devices: evdev (reading /dev/input/event*) and uinput (creating virtual devices, for
// tests and the system test). The ioctl request numbers are macros Swift cannot import.
#pragma once
#include <linux/input-event-codes.h>
#include <stddef.h>
#include <stdint.h>

/// One input event with its timestamp in nanoseconds (of CLOCK_MONOTONIC once
/// kiosk_evdev_use_monotonic_clock succeeded, else of CLOCK_REALTIME).
struct kiosk_input_event {
    uint64_t timestamp_ns;
    uint16_t type;
    uint16_t code;
    int32_t value;
};

/// Reads pending events from an evdev fd, at most `max`. Returns the count, 0 when none is pending
/// (EAGAIN), or -1 with errno set (ENODEV when the device was unplugged; EINTR is the caller's to retry).
int kiosk_evdev_read(int fd, struct kiosk_input_event *events, int max);
/// EVIOCGNAME: the device's name. Returns 0 or -1 with errno set.
int kiosk_evdev_name(int fd, char *name, size_t size);
/// EVIOCSCLOCKID(CLOCK_MONOTONIC): event timestamps on the event loop's clock. 0 or -1.
int kiosk_evdev_use_monotonic_clock(int fd);
/// EVIOCGBIT: whether the device can send `code` of event type `type` (EV_KEY, EV_REL). 1, 0 or -1.
/// Takes the device for this descriptor alone (EVIOCGRAB 1): no other reader, console or X sees
/// its events while the descriptor is open (a card reader that types like a keyboard). 0 or -1.
int kiosk_evdev_grab(int fd);

int kiosk_evdev_has_code(int fd, unsigned int type, unsigned int code);
/// EVIOCGKEY: whether key `code` is down now. 1, 0 or -1.
int kiosk_evdev_key_is_down(int fd, unsigned int code);

/// The code of an event-code name (`KEY_PLAYPAUSE`, `BTN_0`, `REL_X`) and its type (EV_KEY or
/// EV_REL). Returns 0, or -1 when the name is not known.
int kiosk_evdev_code_from_name(const char *name, unsigned int *type, unsigned int *code);
/// The name of a code of type EV_KEY or EV_REL, or NULL when it has none in our table.
const char *kiosk_evdev_code_name(unsigned int type, unsigned int code);

/// Creates a virtual input device through /dev/uinput (`path`) named `name`, able to send the
/// `key_count` key codes in `keys` and the `rel_count` relative axes in `rels`. Returns the uinput
/// fd (the device lives while it is open), or -1 with errno set.
int kiosk_uinput_create(const char *path, const char *name, const uint16_t *keys, int key_count,
                        const uint16_t *rels, int rel_count);
/// Sends one event through a uinput fd (add EV_SYN/SYN_REPORT to end a frame). 0 or -1 (EINTR not retried).
int kiosk_uinput_emit(int fd, uint16_t type, uint16_t code, int32_t value);
/// UI_GET_SYSNAME: the device's name under /sys/devices/virtual/input ("input7"). 0 or -1.
int kiosk_uinput_sysname(int fd, char *name, size_t size);
/// UI_DEV_DESTROY and close. 0 or -1.
int kiosk_uinput_destroy(int fd);
