// Small C helpers for the library scanner (KioskLibrary) that Swift's Glibc module does not expose.
#pragma once

/// setpriority(PRIO_PROCESS, gettid(), nice): the nice value of the calling thread only.
/// Returns 0, or -1 with errno set.
int kiosk_set_thread_nice(int nice);
