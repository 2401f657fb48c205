// SPDX-License-Identifier: GPL-3.0-or-later
// System calls whose C form is variadic or a macro: ioctl, fcntl, open with a mode, signal sets.
#pragma once
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>

/// ioctl(fd, request, arg) with a pointer argument. Returns -1 and sets errno on failure.
int kiosk_ioctl_ptr(int fd, unsigned long request, void *arg);
/// ioctl(fd, request, value) with an integer argument.
int kiosk_ioctl_int(int fd, unsigned long request, unsigned long value);
/// fcntl(fd, cmd, value).
int kiosk_fcntl_int(int fd, int cmd, int value);
/// open(path, flags, mode).
int kiosk_open(const char *path, int flags, mode_t mode);

/// Adds "close every descriptor from `lowest` up" to spawn file actions (glibc 2.34+), so a child
/// inherits none of ours that lack O_CLOEXEC (libraries' fopen()s among them).
int kiosk_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);
/// openat(dirfd, path, flags, mode).
int kiosk_openat(int dirfd, const char *path, int flags, mode_t mode);
/// openat2(dirfd, path, {flags, resolve: RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS}):
/// `path` resolved beneath `dirfd` with no symbolic link on the way (Linux 5.6+). glibc has no
/// wrapper before 2.38, so this is syscall(2). Fails with ENOSYS where the kernel (or a seccomp
/// filter) does not offer it, or where the headers it was built with do not know it.
int kiosk_openat2_beneath(int dirfd, const char *path, int flags);
/// O_DIRECT, which glibc defines only with _GNU_SOURCE and whose value differs between
/// architectures (x86_64 040000, aarch64 0200000).
int kiosk_o_direct(void);

/// sigemptyset/sigaddset are macros or inline in some libcs; these are plain functions.
void kiosk_sigset_empty(sigset_t *set);
void kiosk_sigset_add(sigset_t *set, int signo);

/// The value of errno (a thread-local macro).
int kiosk_errno(void);
void kiosk_set_errno(int value);

/// TIOCGWINSZ on fd; returns 0 and fills rows/cols, or -1.
int kiosk_terminal_size(int fd, unsigned short *rows, unsigned short *cols);

/// Wall clock of the thread's CPU (user+system) in nanoseconds (CLOCK_THREAD_CPUTIME_ID).
uint64_t kiosk_thread_cpu_ns(void);

/// pthread_setname_np(pthread_self(), name) (a GNU extension Swift's Glibc module hides).
void kiosk_thread_set_name(const char *name);
/// pipe2(fds, flags) (a GNU extension).
int kiosk_pipe2(int fds[2], int flags);

struct stat;
/// stat(2) and lstat(2) (Swift cannot call a function named like its struct).
int kiosk_stat(const char *path, struct stat *st);
int kiosk_lstat(const char *path, struct stat *st);

/// Whether the kernel's clock discipline says the clock is synchronized (adjtimex(2) neither
/// TIME_ERROR nor STA_UNSYNC): chrony or ntpd keep it so; 0 otherwise.
int kiosk_clock_synchronized(void);
