// SPDX-License-Identifier: GPL-3.0-or-later
#define _GNU_SOURCE
#include "kiosk_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif
#include <sys/stat.h>
#include <sys/timex.h>
#include <termios.h>
#include <pthread.h>
#include <spawn.h>
#include <time.h>
#include <unistd.h>

int kiosk_ioctl_ptr(int fd, unsigned long request, void *arg) { return ioctl(fd, request, arg); }
int kiosk_ioctl_int(int fd, unsigned long request, unsigned long value) { return ioctl(fd, request, value); }
int kiosk_fcntl_int(int fd, int cmd, int value) { return fcntl(fd, cmd, value); }
int kiosk_open(const char *path, int flags, mode_t mode) { return open(path, flags, mode); }
int kiosk_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
int kiosk_openat(int dirfd, const char *path, int flags, mode_t mode) { return openat(dirfd, path, flags, mode); }
int kiosk_openat2_beneath(int dirfd, const char *path, int flags) {
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
    struct open_how how = {0};
    how.flags = (unsigned long long)flags;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
#else
    (void)dirfd;
    (void)path;
    (void)flags;
    errno = ENOSYS;
    return -1;
#endif
}
int kiosk_o_direct(void) { return O_DIRECT; }
void kiosk_sigset_empty(sigset_t *set) { sigemptyset(set); }
void kiosk_sigset_add(sigset_t *set, int signo) { sigaddset(set, signo); }
int kiosk_errno(void) { return errno; }
void kiosk_set_errno(int value) { errno = value; }

int kiosk_terminal_size(int fd, unsigned short *rows, unsigned short *cols) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0) return -1;
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return 0;
}

uint64_t kiosk_thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void kiosk_thread_set_name(const char *name) { pthread_setname_np(pthread_self(), name); }
int kiosk_pipe2(int fds[2], int flags) { return pipe2(fds, flags); }

int kiosk_stat(const char *path, struct stat *st) { return stat(path, st); }
int kiosk_lstat(const char *path, struct stat *st) { return lstat(path, st); }

int kiosk_clock_synchronized(void) {
    struct timex tx = {0};
    int state = adjtimex(&tx);
    return state != TIME_ERROR && state >= 0 && (tx.status & STA_UNSYNC) == 0;
}
