// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// A `Scheduler` whose time moves only when a test says so: `advance(byMilliseconds:)` runs every
/// timer that falls due on the way, in deadline order (then in the order scheduled), with `now` set
/// to each timer's deadline while it runs, so timers scheduled from a timer fire at the right
/// virtual time too. A test of logic that waits seconds takes microseconds and cannot race.
///
/// Thread: the test's thread only.
public final class VirtualClock: Scheduler {
    private struct Entry {
        var deadline: UInt64
        var sequence: UInt64
        var interval: UInt64?
        var body: () -> Void
    }

    public private(set) var nowNanoseconds: UInt64
    private var entries: [UInt64: Entry] = [:]
    private var nextID: UInt64 = 1
    private var nextSequence: UInt64 = 0
    /// The thread that asked `inLoopThread` first: the clock's loop thread from then on.
    private var owner: pthread_t?

    /// Starts at `start` nanoseconds (not 0, so "never" and "at the start" differ).
    public init(start: UInt64 = 1_000_000_000) { nowNanoseconds = start }

    @discardableResult
    public func schedule(
        afterMilliseconds delay: Int, repeatingMilliseconds interval: Int?, _ body: @escaping () -> Void
    ) -> TimerID {
        let id = nextID
        nextID += 1
        nextSequence += 1
        entries[id] = Entry(
            deadline: nowNanoseconds + UInt64(max(0, delay)) * 1_000_000, sequence: nextSequence,
            interval: interval.map { UInt64(max(1, $0)) * 1_000_000 }, body: body)
        return TimerID(raw: id)
    }

    public func cancel(_ timer: TimerID) { entries[timer.raw] = nil }

    public var inLoopThread: Bool {
        let caller = pthread_self()
        guard let owner else {
            owner = caller
            return true
        }
        return pthread_equal(owner, caller) != 0
    }

    /// Whether `timer` is still scheduled.
    public func isScheduled(_ timer: TimerID) -> Bool { entries[timer.raw] != nil }

    /// Timers scheduled (one-shot ones not yet fired, and repeating ones).
    public var pendingCount: Int { entries.count }

    /// The deadline of the earliest timer, nil when none is scheduled.
    public var nextDeadline: UInt64? { entries.values.map(\.deadline).min() }

    /// Moves the clock forward by `milliseconds`, running the timers due on the way.
    public func advance(byMilliseconds milliseconds: Int) {
        advance(to: nowNanoseconds + UInt64(max(0, milliseconds)) * 1_000_000)
    }

    /// Moves the clock to `deadline` (nanoseconds), running the timers due on the way.
    public func advance(to deadline: UInt64) {
        while let (id, entry) = earliest(), entry.deadline <= deadline {
            nowNanoseconds = max(nowNanoseconds, entry.deadline)
            if let interval = entry.interval {
                nextSequence += 1
                entries[id]?.deadline = entry.deadline + interval
                entries[id]?.sequence = nextSequence
            } else {
                entries[id] = nil
            }
            entry.body()
        }
        nowNanoseconds = max(nowNanoseconds, deadline)
    }

    /// Runs the timers due now (those scheduled with a delay of 0), without moving the clock.
    public func runDue() { advance(to: nowNanoseconds) }

    private func earliest() -> (UInt64, Entry)? {
        var best: (UInt64, Entry)?
        for (id, entry) in entries {
            if let b = best, (b.1.deadline, b.1.sequence) <= (entry.deadline, entry.sequence) { continue }
            best = (id, entry)
        }
        return best
    }
}
