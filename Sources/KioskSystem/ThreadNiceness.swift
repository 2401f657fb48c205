// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc

extension Syscalls {
    /// Sets the nice value (-20…19) of the calling thread only (Linux keeps one per thread), so a
    /// background worker yields to the loop and the player. Failure (e.g. raising priority without
    /// CAP_SYS_NICE) is ignored. The corresponding C function is `setpriority(2)` on `gettid()`.
    public static func setThreadNiceness(_ value: Int32) {
        _ = kiosk_set_thread_nice(value)
    }
}

extension Syscalls {
    /// Puts the calling thread in Linux's SCHED_IDLE class: it runs only when no other thread of
    /// normal or real-time priority wants the CPU (weaker than nice 19), for work that may wait
    /// for the box to be idle. Failure is ignored (the thread keeps its class). The corresponding
    /// C function is `sched_setscheduler(2)` with pid 0, which Linux applies to the calling thread.
    public static func setThreadIdle() {
        var parameters = sched_param()
        parameters.sched_priority = 0
        // SCHED_IDLE is 5 (<linux/sched.h>); glibc declares it only with _GNU_SOURCE.
        _ = sched_setscheduler(0, 5, &parameters)
    }
}
