// SPDX-License-Identifier: GPL-3.0-or-later
// Small C helpers for the library scanner (KioskLibrary) that Swift's Glibc module does not expose.
#pragma once

/// setpriority(PRIO_PROCESS, gettid(), nice): the nice value of the calling thread only.
/// Returns 0, or -1 with errno set.
int kiosk_set_thread_nice(int nice);

/// The scan's read journal (KioskLibrary's ScanReadJournal): while a thread reads a file it sets
/// where its journal slot is (`kiosk_read_journal_enter`); when that thread dies of a fault (SIGSEGV,
/// SIGBUS, SIGILL, SIGTRAP — a Swift trap —, SIGFPE, SIGABRT) the handler writes `mark` at that
/// offset, so the next start knows which file the crash was in, then lets the previous handler
/// (the Swift runtime's backtracer, or the default: the core dump) take the signal.
/// Install once per process; returns 0, or -1 with errno set.
int kiosk_read_journal_install_crash_handler(void);
/// The calling thread is reading a file whose slot is at `offset` in `fd`; `leave` ends it.
void kiosk_read_journal_enter(int fd, long long offset);
void kiosk_read_journal_leave(void);
