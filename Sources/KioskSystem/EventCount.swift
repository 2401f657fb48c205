// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Synchronization

/// The one way a thread sleeps until another has work for it: an event count over a futex word
/// (see kiosk_audio.h). `signal` is cheap when nobody waits; neither side allocates or locks, so
/// the audio threads use it as well as the workers (artwork, SPI panel). The pattern: `prepare`,
/// check the condition, `wait(key)` if it does not hold (a signal after `prepare` is not lost);
/// or `wait(until:)`. State shared under a lock with waiting (the scan's pools) uses
/// `ConditionLock` instead.
///
/// Thread: any number of signallers and waiters.
public final class EventCount: @unchecked Sendable {
    private let word: UnsafeMutablePointer<UInt32>
    private let wakeCount = Atomic<UInt64>(0)

    /// Times a waiter returned from the futex (woken, timed out or spuriously): what the threads
    /// that wait here cost in context switches.
    public var wakeups: UInt64 { wakeCount.load(ordering: .relaxed) }

    public init() {
        word = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
        word.initialize(to: 0)
    }

    deinit { word.deallocate() }

    /// Announces a wait; re-check the condition after this, then `wait(key)`.
    public func prepare() -> UInt32 { kiosk_evc_prepare(word) }

    /// Sleeps until signalled after `prepare`, or `timeoutNanoseconds` (negative: no limit).
    public func wait(_ key: UInt32, timeoutNanoseconds: Int64 = -1) {
        kiosk_evc_wait(word, key, timeoutNanoseconds)
        wakeCount.add(1, ordering: .relaxed)
    }

    /// Wakes the waiters, if any.
    public func signal() { kiosk_evc_signal(word) }

    /// Waits until `condition()` holds (true), or the timeout passes (false). A wake-up whose
    /// signal was for an earlier change (it came between the caller's last look and `prepare`)
    /// waits again (the cross-thread event-count test found it returning false there).
    @discardableResult
    public func wait(until condition: () -> Bool, timeoutNanoseconds: Int64 = -1) -> Bool {
        if condition() { return true }
        let deadline = timeoutNanoseconds < 0 ? nil : Syscalls.monotonicNanoseconds() &+ UInt64(timeoutNanoseconds)
        while true {
            let key = prepare()
            if condition() { return true }
            var left: Int64 = -1
            if let deadline {
                let now = Syscalls.monotonicNanoseconds()
                if now >= deadline { return false }
                left = Int64(deadline - now)
            }
            wait(key, timeoutNanoseconds: left)
            if condition() { return true }
        }
    }
}
