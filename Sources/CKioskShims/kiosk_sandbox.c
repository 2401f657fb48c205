// SPDX-License-Identifier: GPL-3.0-or-later
// Landlock through raw system calls (glibc has no wrappers): the rules are the kernel's
// Documentation/userspace-api/landlock.rst, "Landlock rules" and its ABI table.
#define _GNU_SOURCE
#include "kiosk_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int kiosk_sandbox_basics(int signal) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    if (prctl(PR_SET_PDEATHSIG, signal, 0, 0, 0) != 0) return -1;
    return 0;
}

// The numbers are those of the generic syscall table, the same on x86_64 and aarch64 (added in 5.13).
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

// ABI 1's file-system rights: every one is handled (denied unless a rule allows it).
#define KIOSK_LANDLOCK_FS_V1                                                                           \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |       \
     LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |     \
     LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |         \
     LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |      \
     LANDLOCK_ACCESS_FS_MAKE_SYM)
// ABI 2 adds linking or renaming across directories, ABI 3 truncation (values from the ABI table,
// so that older kernel headers build this too).
#define KIOSK_LANDLOCK_FS_REFER (1ULL << 13)
#define KIOSK_LANDLOCK_FS_TRUNCATE (1ULL << 14)

int kiosk_sandbox_read_only_beneath(const char *const *paths, int count) {
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) return -1;
    struct landlock_ruleset_attr attributes = {.handled_access_fs = KIOSK_LANDLOCK_FS_V1};
    if (abi >= 2) attributes.handled_access_fs |= KIOSK_LANDLOCK_FS_REFER;
    if (abi >= 3) attributes.handled_access_fs |= KIOSK_LANDLOCK_FS_TRUNCATE;
    int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attributes, sizeof attributes, 0);
    if (ruleset < 0) return -1;
    for (int i = 0; i < count; i++) {
        int parent = open(paths[i], O_PATH | O_CLOEXEC);
        if (parent < 0) {
            int e = errno;
            close(ruleset);
            errno = e;
            return -1;
        }
        struct landlock_path_beneath_attr rule = {
            .allowed_access = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR,
            .parent_fd = parent,
        };
        long added = syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
        int e = errno;
        close(parent);
        if (added != 0) {
            close(ruleset);
            errno = e;
            return -1;
        }
    }
    // restrict_self needs no_new_privs (kiosk_sandbox_basics) or CAP_SYS_ADMIN.
    long restricted = syscall(__NR_landlock_restrict_self, ruleset, 0);
    int e = errno;
    close(ruleset);
    if (restricted != 0) {
        errno = e;
        return -1;
    }
    return (int)abi;
}
