// SPDX-License-Identifier: GPL-3.0-or-later
#define _GNU_SOURCE
#include "kiosk_keyboard.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

// State shared with the signal handlers: written before the handlers are installed, read-only
// while they may run (plain loads/stores of ints and a struct; tcsetattr is async-signal-safe).
static volatile sig_atomic_t raw_active = 0;
static int raw_fd = -1;
static struct termios saved_termios;
static struct termios raw_termios;
static int atexit_registered = 0;

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT, SIGQUIT};
#define FATAL_COUNT (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction previous_fatal[FATAL_COUNT];
static struct sigaction previous_tstp;
static struct sigaction previous_cont;

static void restore_now(void) {
    if (raw_active) tcsetattr(raw_fd, TCSANOW, &saved_termios);
}

static void on_fatal(int signo) {
    int saved = errno;
    restore_now();
    raw_active = 0;
    for (size_t i = 0; i < FATAL_COUNT; i++) {
        if (fatal_signals[i] == signo) {
            // Hand over to whoever was there before (Swift's backtracer, or the default action).
            sigaction(signo, &previous_fatal[i], NULL);
        }
    }
    errno = saved;
    raise(signo);
}

static void install_tstp(void);

// ^Z: give the terminal back, stop with the default action, and take it again when continued
// (or at once when the stop is ignored: an orphaned process group does not stop).
static void on_tstp(int signo) {
    (void)signo;
    int saved = errno;
    restore_now();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGTSTP, &dfl, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTSTP);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(SIGTSTP);  // stops here until SIGCONT
    if (raw_active) {
        tcsetattr(raw_fd, TCSAFLUSH, &raw_termios);
        install_tstp();
    }
    errno = saved;
}

// Continued after a stop we did not see (SIGSTOP): the shell may have reset the terminal.
static void on_cont(int signo) {
    (void)signo;
    int saved = errno;
    if (raw_active) tcsetattr(raw_fd, TCSAFLUSH, &raw_termios);
    errno = saved;
}

static void install_tstp(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_tstp;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGTSTP, &action, NULL);
}

static void at_exit(void) { restore_now(); }

int kiosk_keyboard_raw_begin(int fd) {
    if (raw_active) {
        if (fd == raw_fd) return 0;
        errno = EBUSY;
        return -1;
    }
    struct termios current;
    if (tcgetattr(fd, &current) != 0) return -1;
    saved_termios = current;
    raw_termios = current;
    raw_termios.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ECHONL | IEXTEN);
    raw_termios.c_iflag &= ~(tcflag_t)(IXON | ICRNL | INLCR | IGNCR | ISTRIP);
    raw_termios.c_cc[VMIN] = 1;
    raw_termios.c_cc[VTIME] = 0;
    raw_fd = fd;
    // The handlers go in before the terminal turns raw: whoever sees it raw (a test, a shell's ^Z)
    // may signal at once, and a ^Z taken by the default action would leave the terminal raw.
    raw_active = 1;
    if (!atexit_registered) {
        atexit(at_exit);
        atexit_registered = 1;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_fatal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_NODEFER | SA_RESETHAND;
    for (size_t i = 0; i < FATAL_COUNT; i++) sigaction(fatal_signals[i], &action, &previous_fatal[i]);
    struct sigaction cont;
    memset(&cont, 0, sizeof cont);
    cont.sa_handler = on_cont;
    sigemptyset(&cont.sa_mask);
    cont.sa_flags = SA_RESTART;
    sigaction(SIGCONT, &cont, &previous_cont);
    sigaction(SIGTSTP, NULL, &previous_tstp);
    install_tstp();
    if (tcsetattr(fd, TCSAFLUSH, &raw_termios) != 0) {
        int saved = errno;
        kiosk_keyboard_raw_end();
        errno = saved;
        return -1;
    }
    return 0;
}

int kiosk_keyboard_raw_end(void) {
    if (!raw_active) return 0;
    for (size_t i = 0; i < FATAL_COUNT; i++) sigaction(fatal_signals[i], &previous_fatal[i], NULL);
    sigaction(SIGTSTP, &previous_tstp, NULL);
    sigaction(SIGCONT, &previous_cont, NULL);
    int rc = tcsetattr(raw_fd, TCSANOW, &saved_termios);
    raw_active = 0;
    raw_fd = -1;
    return rc;
}

int kiosk_keyboard_raw_active(void) { return raw_active ? 1 : 0; }

int kiosk_pty_open(char *slave_path, size_t size) {
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) return -1;
    if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, slave_path, size) != 0) {
        int saved = errno;
        close(master);
        errno = saved;
        return -1;
    }
    return master;
}
