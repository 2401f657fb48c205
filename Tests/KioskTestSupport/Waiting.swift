// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// Waits (polling every 10 ms) until `condition` holds or `seconds` pass; returns whether it held.
/// For tests of a child process or another thread, where there is no event to wait on.
/// Thread: the caller's; `condition` runs on it.
@discardableResult
public func waitFor(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Syscalls.monotonicNanoseconds() + UInt64(seconds * 1e9)
    while Syscalls.monotonicNanoseconds() < deadline {
        if condition() { return true }
        Syscalls.sleep(nanoseconds: 10_000_000)
    }
    return condition()
}

/// A failure with a message, thrown by test helpers (a set-up that did not come up, a reply that
/// did not come). Thread: any.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
