// SPDX-License-Identifier: GPL-3.0-or-later
// Terminal raw mode for the keyboard input backend, restored whatever way the process ends.
#pragma once

/// Saves the terminal settings of `fd` and switches it to non-canonical input without echo (one
/// byte at a time; ^C still sends SIGINT, which the event loop handles). Restores the saved settings
/// at exit(), on fatal signals (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT, SIGQUIT: restore,
/// then the previous handler or the default action), around ^Z (SIGTSTP restores, SIGCONT re-enters
/// raw mode). One terminal per process. Returns 0, or -1 with errno set (ENOTTY: not a terminal;
/// EBUSY: another fd is already in raw mode).
int kiosk_keyboard_raw_begin(int fd);

/// Restores the terminal saved by kiosk_keyboard_raw_begin and removes the signal handlers.
/// Safe to call when raw mode is not on. Returns 0 or -1 with errno set.
int kiosk_keyboard_raw_end(void);

/// Whether raw mode is on (for tests).
int kiosk_keyboard_raw_active(void);

#include <stddef.h>
/// Opens a new pseudo-terminal (posix_openpt, grantpt, unlockpt: hidden from Swift): returns the
/// master fd and writes the slave's path (/dev/pts/N) to `slave_path`, or -1 with errno set.
/// For tests of the keyboard backend.
int kiosk_pty_open(char *slave_path, size_t size);
