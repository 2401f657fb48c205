// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// An `EventLoopProtocol` for tests that runs nothing by itself: what was scheduled, posted or made
/// ready runs when the test says `run()` (everything due now) or `advanceTime(by:)` (everything due
/// up to then, in deadline order, the clock set to each timer's deadline while it runs). No thread,
/// no epoll, no wall clock: a loop-bound type is tested deterministically, and a timer of seconds
/// costs nothing. The model is swift-nio's `EmbeddedEventLoop`.
///
/// Sources are real descriptors: `run()` asks `poll` which are ready (without waiting) and calls
/// their handlers, as the epoll loop would; `fire(_:events:)` calls one as if it were ready.
/// Closures posted through `handle` (and `Mailbox` messages) from any thread run at the next `run()`.
///
/// Thread: the thread that made it (the test's), except `handle`.
public final class EmbeddedLoop: EventLoopProtocol {
    private struct Source {
        var fd: Int32
        var events: IOEvents
        var handler: (IOEvents) -> Void
    }

    private struct Timer {
        var deadline: UInt64
        /// Order among timers due at the same time: the order scheduled (or re-armed).
        var sequence: UInt64
        var interval: UInt64?
        var body: () -> Void
    }

    public private(set) var nowNanoseconds: UInt64
    public let handle: LoopHandle
    private var sources: [UInt32: Source] = [:]
    private var nextSlot: UInt32 = 0
    private var timers: [UInt64: Timer] = [:]
    private var nextTimerID: UInt64 = 1
    private var nextSequence: UInt64 = 0
    private var signalHandlers: [Int32: (SignalEvent) -> Void] = [:]
    private let owner = pthread_self()

    /// Times `stop()` was called (a type that stops its loop is seen doing so).
    public private(set) var stopCount = 0

    /// Starts the clock at `start` nanoseconds (not 0, so "never" and "at the start" differ).
    public init(start: UInt64 = 1_000_000_000) throws(Errno) {
        nowNanoseconds = start
        handle = try LoopHandle()
    }

    public var inLoopThread: Bool { pthread_equal(pthread_self(), owner) != 0 }

    // MARK: - sources

    @discardableResult
    public func addSource(fd: Int32, events: IOEvents, handler: @escaping (IOEvents) -> Void) throws(Errno)
        -> SourceID
    {
        assertInLoop()
        nextSlot += 1
        sources[nextSlot] = Source(fd: fd, events: events, handler: handler)
        return SourceID(slot: nextSlot, generation: 1)
    }

    public func modifySource(_ id: SourceID, events: IOEvents) throws(Errno) {
        assertInLoop()
        sources[id.slot]?.events = events
    }

    public func removeSource(_ id: SourceID) {
        assertInLoop()
        sources[id.slot] = nil
    }

    /// Sources registered now.
    public var sourceCount: Int { sources.count }

    /// Calls the handler of `id` with `events`, as if its descriptor were ready (nothing if removed).
    public func fire(_ id: SourceID, events: IOEvents = .readable) {
        sources[id.slot]?.handler(events)
    }

    // MARK: - timers

    @discardableResult
    public func schedule(
        afterMilliseconds delay: Int, repeatingMilliseconds interval: Int?, _ body: @escaping () -> Void
    ) -> TimerID {
        schedule(
            atNanoseconds: nowNanoseconds &+ UInt64(max(0, delay)) * 1_000_000,
            repeating: interval.map { UInt64(max(1, $0)) * 1_000_000 }, body)
    }

    @discardableResult
    public func schedule(atNanoseconds deadline: UInt64, repeating interval: UInt64?, _ body: @escaping () -> Void)
        -> TimerID
    {
        assertInLoop()
        let id = nextTimerID
        nextTimerID += 1
        nextSequence += 1
        timers[id] = Timer(
            deadline: deadline, sequence: nextSequence, interval: interval.map { max($0, 1) }, body: body)
        return TimerID(raw: id)
    }

    public func cancel(_ timer: TimerID) { timers[timer.raw] = nil }

    public func isScheduled(_ timer: TimerID) -> Bool { timers[timer.raw] != nil }

    /// Timers scheduled (one-shot ones not fired yet, and repeating ones).
    public var pendingTimers: Int { timers.count }

    /// The earliest timer's deadline; nil when none is scheduled.
    public var nextDeadline: UInt64? { timers.values.map(\.deadline).min() }

    // MARK: - signals

    public func onSignal(_ signal: Int32, _ handler: @escaping (SignalEvent) -> Void) {
        assertInLoop()
        signalHandlers[signal] = handler
    }

    /// Delivers `signal` to its handler as the epoll loop's signalfd would.
    public func deliver(signal: Int32, senderPID: Int32 = 0, status: Int32 = 0) {
        signalHandlers[signal]?(SignalEvent(signal: signal, senderPID: senderPID, status: status))
    }

    public func stop() { stopCount += 1 }

    // MARK: - running, when the test says

    /// Runs everything due now, until nothing is: closures posted through `handle`, handlers of
    /// ready sources, timers whose deadline has come. Returns how many ran.
    @discardableResult
    public func run() -> Int {
        assertInLoop()
        var total = 0
        while true {
            var ran = 0
            if Syscalls.readCounter(handle.eventFD) > 0 {
                handle.drain()
                ran += 1
            }
            ran += dispatchReadySources()
            ran += runTimers(dueBy: nowNanoseconds)
            total += ran
            if ran == 0 { return total }
        }
    }

    /// Moves the clock on by `nanoseconds`, running what falls due on the way (and, after each
    /// timer, what it made due now), then everything due at the new time.
    public func advanceTime(byNanoseconds nanoseconds: UInt64) {
        advanceTime(to: nowNanoseconds &+ nanoseconds)
    }

    /// Milliseconds form of `advanceTime(byNanoseconds:)`.
    public func advanceTime(byMilliseconds milliseconds: Int) {
        advanceTime(byNanoseconds: UInt64(max(0, milliseconds)) * 1_000_000)
    }

    /// Moves the clock to `deadline` (never back), running what falls due on the way.
    public func advanceTime(to deadline: UInt64) {
        run()
        while let (_, timer) = earliestTimer(), timer.deadline <= deadline {
            nowNanoseconds = max(nowNanoseconds, timer.deadline)
            run()
        }
        nowNanoseconds = max(nowNanoseconds, deadline)
        run()
    }

    private func dispatchReadySources() -> Int {
        guard !sources.isEmpty else { return 0 }
        let order = sources.keys.sorted()
        var fds = order.map {
            pollfd(fd: sources[$0]!.fd, events: Int16(truncatingIfNeeded: sources[$0]!.events.rawValue), revents: 0)
        }
        guard (try? Syscalls.pollNow(&fds)) ?? 0 > 0 else { return 0 }
        var ran = 0
        for (slot, polled) in zip(order, fds) where polled.revents != 0 {
            // A handler may have removed this source.
            guard let source = sources[slot] else { continue }
            source.handler(IOEvents(rawValue: UInt32(UInt16(bitPattern: polled.revents))))
            ran += 1
        }
        return ran
    }

    /// Runs the timers due by `deadline` that are due now, in deadline order, then scheduling order.
    private func runTimers(dueBy deadline: UInt64) -> Int {
        var ran = 0
        while let (id, timer) = earliestTimer(), timer.deadline <= deadline {
            if let interval = timer.interval {
                nextSequence += 1
                timers[id]?.deadline = timer.deadline &+ interval
                timers[id]?.sequence = nextSequence
            } else {
                timers[id] = nil
            }
            timer.body()
            ran += 1
        }
        return ran
    }

    private func earliestTimer() -> (UInt64, Timer)? {
        var best: (UInt64, Timer)?
        for (id, timer) in timers {
            if let b = best, (b.1.deadline, b.1.sequence) <= (timer.deadline, timer.sequence) { continue }
            best = (id, timer)
        }
        return best
    }
}
