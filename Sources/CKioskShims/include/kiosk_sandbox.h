// SPDX-License-Identifier: GPL-3.0-or-later
// Confinement of a helper process that runs untrusted code on untrusted input (the speech
// helper): prctl is variadic and Landlock has no glibc wrapper, so both are here.
#pragma once

/// prctl(PR_SET_NO_NEW_PRIVS) and prctl(PR_SET_PDEATHSIG, `signal`): no privilege gained by an exec,
/// and `signal` when the parent dies. 0, or -1 with errno set.
int kiosk_sandbox_basics(int signal);

/// Restricts the calling process, for good, to reading files and listing directories beneath
/// `paths[0..count)`: no other file may be opened, written, created, removed or executed.
/// Returns the Landlock ABI version used (1 or more), or -1 with errno set: ENOSYS or EOPNOTSUPP
/// when the kernel has no Landlock or does not enable it (the caller decides what that costs).
int kiosk_sandbox_read_only_beneath(const char *const *paths, int count);
