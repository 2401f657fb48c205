import CKioskShims

extension Syscalls {
    /// Sets the nice value (-20…19) of the calling thread only (Linux keeps one per thread), so a
    /// background worker yields to the loop and the player. Failure (e.g. raising priority without
    /// CAP_SYS_NICE) is ignored. The corresponding C function is `setpriority(2)` on `gettid()`.
    public static func setThreadNiceness(_ value: Int32) {
        _ = kiosk_set_thread_nice(value)
    }
}
