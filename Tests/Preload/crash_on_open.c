// SPDX-License-Identifier: GPL-3.0-or-later
// An LD_PRELOAD library for tests of what a crash in the scan costs: opening a file whose path ends
// with $KIOSK_CRASH_ON kills the calling thread's process the way a parser bug would
// ($KIOSK_CRASH_HOW = "trap": an illegal instruction in that thread, as a Swift overflow trap;
// "kill": SIGKILL, as the kernel's OOM killer or a cgroup memory ceiling). Nothing in the player
// knows about it: the crash happens in the real reader, on the real thread.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void maybe_crash(const char *path) {
    const char *suffix = getenv("KIOSK_CRASH_ON");
    if (path == NULL || suffix == NULL || *suffix == 0) return;
    size_t n = strlen(path), m = strlen(suffix);
    if (n < m || strcmp(path + n - m, suffix) != 0) return;
    const char *how = getenv("KIOSK_CRASH_HOW");
    if (how != NULL && strcmp(how, "kill") == 0) raise(SIGKILL);
    __builtin_trap();
}

#define FORWARD_OPEN(name)                                                    \
    int name(const char *path, int flags, ...) {                              \
        static int (*next)(const char *, int, ...);                           \
        if (next == NULL) next = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name); \
        maybe_crash(path);                                                    \
        va_list ap;                                                           \
        va_start(ap, flags);                                                  \
        int mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, int) : 0;     \
        va_end(ap);                                                           \
        return next(path, flags, mode);                                       \
    }
FORWARD_OPEN(open)
FORWARD_OPEN(open64)

#define FORWARD_OPENAT(name)                                                  \
    int name(int dir, const char *path, int flags, ...) {                     \
        static int (*next)(int, const char *, int, ...);                      \
        if (next == NULL) next = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, #name); \
        maybe_crash(path);                                                    \
        va_list ap;                                                           \
        va_start(ap, flags);                                                  \
        int mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, int) : 0;     \
        va_end(ap);                                                           \
        return next(dir, path, flags, mode);                                  \
    }
FORWARD_OPENAT(openat)
FORWARD_OPENAT(openat64)

#define FORWARD_FOPEN(name)                                                   \
    FILE *name(const char *path, const char *mode) {                          \
        static FILE *(*next)(const char *, const char *);                     \
        if (next == NULL) next = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, #name); \
        maybe_crash(path);                                                    \
        return next(path, mode);                                              \
    }
FORWARD_FOPEN(fopen)
FORWARD_FOPEN(fopen64)
