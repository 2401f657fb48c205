// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc

/// Readiness conditions of a file descriptor (a subset of epoll's event bits).
public struct IOEvents: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let readable = IOEvents(rawValue: EPOLLIN.rawValue)
    public static let writable = IOEvents(rawValue: EPOLLOUT.rawValue)
    /// Exceptional condition: how /proc/self/mountinfo reports a change.
    public static let priority = IOEvents(rawValue: EPOLLPRI.rawValue)
    /// Reported whether asked for or not.
    public static let hangup = IOEvents(rawValue: EPOLLHUP.rawValue)
    /// Reported whether asked for or not.
    public static let error = IOEvents(rawValue: EPOLLERR.rawValue)
}

/// A registered file-descriptor source: a slot in the loop's table plus the slot's generation.
///
/// The pair travels in `epoll_data`, so an event still queued for a source that was removed
/// (and whose slot or fd number was reused) is recognised as stale and dropped.
public struct SourceID: Hashable, Sendable {
    let slot: UInt32
    let generation: UInt32

    var packed: UInt64 { UInt64(generation) << 32 | UInt64(slot) }
    init(slot: UInt32, generation: UInt32) {
        self.slot = slot
        self.generation = generation
    }
    init(packed: UInt64) {
        slot = UInt32(truncatingIfNeeded: packed)
        generation = UInt32(truncatingIfNeeded: packed >> 32)
    }
}

/// A timer registered with a `Scheduler` (`EventLoop.schedule`, or a virtual clock in tests).
public struct TimerID: Hashable, Sendable {
    public let raw: UInt64
    /// A scheduler's own number for the timer.
    public init(raw: UInt64) { self.raw = raw }
}

/// A signal as read from the loop's signalfd.
public struct SignalEvent: Sendable {
    public let signal: Int32
    public let senderPID: Int32
    /// For SIGCHLD: the child's exit status or signal.
    public let status: Int32
}
