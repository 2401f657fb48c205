// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import Synchronization

/// The single-threaded epoll event loop that owns all of the player's state (the appliance's
/// `EventLoopProtocol`; tests of loop-bound types may use `EmbeddedLoop` instead).
///
/// One thread runs the loop (`run()`); that thread alone may register sources, schedule or
/// cancel timers, and touch anything the handlers touch. Other threads reach the loop only through
/// `handle` (a `LoopHandle`: post a closure, wake) or a `Mailbox`, both of which wake the loop
/// through one eventfd.
///
/// - fd sources: `addSource(fd:events:handler:)`, level-triggered, generation-tagged.
/// - timers: one timerfd armed for the earliest deadline of a heap (one-shot or repeating).
/// - signals: a signalfd; `init` blocks SIGINT, SIGTERM, SIGHUP and SIGCHLD in the calling
///   thread, so create the loop before starting other threads (they inherit the mask).
/// - wake-ups: an eventfd plus a handoff queue of closures (`LoopHandle.post`).
public final class EventLoop: EventLoopProtocol {
    private struct Source {
        var fd: Int32
        var generation: UInt32
        var handler: ((IOEvents) -> Void)?
    }

    private struct Timer {
        var deadline: UInt64
        var interval: UInt64?
        var body: () -> Void
    }

    /// Signals the loop takes over from their default actions.
    public static let handledSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGCHLD]

    private let epoll: FileDescriptor
    /// Where `epoll_wait` writes a batch: allocated once, so a loop turn allocates nothing.
    private let readyEvents = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: 32)
    private let timer: FileDescriptor
    private let signals: FileDescriptor
    private var epollFD: Int32 { epoll.rawValue }
    private var timerFD: Int32 { timer.rawValue }
    private var signalFD: Int32 { signals.rawValue }
    /// Shared with other threads to post work and wake the loop.
    public let handle: LoopHandle

    private var sources: [Source] = []
    private var freeSlots: [UInt32] = []
    private var timerHeap = DeadlineHeap()
    private var timers: [UInt64: Timer] = [:]
    private var nextTimerID: UInt64 = 1
    private var armedDeadline: UInt64 = 0
    private var signalHandlers: [Int32: (SignalEvent) -> Void] = [:]
    private var stopRequested = false
    private let loopThread: pthread_t

    private var timerSource: SourceID?
    private var signalSource: SourceID?
    private var wakeSource: SourceID?

    /// Creates the loop on the calling thread, which becomes the loop thread.
    public init() throws(Errno) {
        Syscalls.blockSignals(EventLoop.handledSignals)
        epoll = FileDescriptor(owning: try Syscalls.epollCreate())
        timer = FileDescriptor(owning: try Syscalls.timerfdCreate())
        signals = FileDescriptor(owning: try Syscalls.signalfdCreate(EventLoop.handledSignals))
        handle = try LoopHandle()
        loopThread = pthread_self()
        timerSource = try addSource(fd: timerFD, events: .readable) { [unowned self] _ in self.fireTimers() }
        signalSource = try addSource(fd: signalFD, events: .readable) { [unowned self] _ in self.readSignals() }
        wakeSource = try addSource(fd: handle.eventFD, events: .readable) { [unowned self] _ in
            _ = Syscalls.readCounter(self.handle.eventFD)
            self.handle.drain()
        }
    }

    deinit {
        readyEvents.deallocate()
    }

    /// CLOCK_MONOTONIC now: the clock the loop's timers run on.
    public var nowNanoseconds: UInt64 { Syscalls.monotonicNanoseconds() }

    /// Whether the caller is on the loop thread.
    public var inLoopThread: Bool { pthread_equal(pthread_self(), loopThread) != 0 }

    /// Stops a debug build at once when loop state is touched from another thread (a data race
    /// that would otherwise corrupt the source table or the timer heap now and then). Nothing in
    /// a release build.
    @inline(__always)
    private func assertLoopThread(_ what: StaticString) {
        assert(inLoopThread, "EventLoop.\(what) called off the loop thread: use handle.post or a Mailbox")
    }

    // MARK: - fd sources

    /// Watches `fd` for `events` (level-triggered). The handler runs on the loop thread with the
    /// events that are ready. The loop does not own `fd`: remove the source before closing it.
    @discardableResult
    public func addSource(fd: Int32, events: IOEvents, handler: @escaping (IOEvents) -> Void) throws(Errno)
        -> SourceID
    {
        assertLoopThread("addSource")
        let slot: UInt32
        let generation: UInt32
        if let free = freeSlots.popLast() {
            slot = free
            generation = sources[Int(free)].generation &+ 1
            sources[Int(free)] = Source(fd: fd, generation: generation, handler: handler)
        } else {
            slot = UInt32(sources.count)
            generation = 1
            sources.append(Source(fd: fd, generation: generation, handler: handler))
        }
        let id = SourceID(slot: slot, generation: generation)
        do throws(Errno) {
            try Syscalls.epollControl(epollFD, EPOLL_CTL_ADD, fd, events: events.rawValue, data: id.packed)
        } catch {
            sources[Int(slot)].handler = nil
            freeSlots.append(slot)
            throw error
        }
        return id
    }

    /// Changes the events watched for `id`.
    public func modifySource(_ id: SourceID, events: IOEvents) throws(Errno) {
        assertLoopThread("modifySource")
        guard let fd = liveFD(id) else { return }
        try Syscalls.epollControl(epollFD, EPOLL_CTL_MOD, fd, events: events.rawValue, data: id.packed)
    }

    /// Stops watching; events already read for this source are dropped. Safe to call twice.
    public func removeSource(_ id: SourceID) {
        assertLoopThread("removeSource")
        guard let fd = liveFD(id) else { return }
        // The fd may already be closed (epoll then dropped it itself): ignore errors.
        try? Syscalls.epollControl(epollFD, EPOLL_CTL_DEL, fd, events: 0, data: 0)
        sources[Int(id.slot)].handler = nil
        freeSlots.append(id.slot)
    }

    private func liveFD(_ id: SourceID) -> Int32? {
        guard Int(id.slot) < sources.count else { return nil }
        let source = sources[Int(id.slot)]
        guard source.generation == id.generation, source.handler != nil else { return nil }
        return source.fd
    }

    // MARK: - timers

    /// Runs `body` on the loop thread once `delay` nanoseconds have passed (never before), and
    /// then every `interval` nanoseconds when one is given. Timers due together run in deadline
    /// order, then in the order they were scheduled.
    @discardableResult
    public func schedule(
        afterNanoseconds delay: UInt64, repeating interval: UInt64? = nil, _ body: @escaping () -> Void
    )
        -> TimerID
    {
        schedule(atNanoseconds: Syscalls.monotonicNanoseconds() &+ delay, repeating: interval, body)
    }

    /// Milliseconds form of `schedule(afterNanoseconds:repeating:_:)`.
    @discardableResult
    public func schedule(
        afterMilliseconds delay: Int, repeatingMilliseconds interval: Int? = nil,
        _ body: @escaping () -> Void
    ) -> TimerID {
        schedule(
            afterNanoseconds: UInt64(max(0, delay)) * 1_000_000,
            repeating: interval.map { UInt64(max(1, $0)) * 1_000_000 }, body)
    }

    /// Runs `body` at the absolute `CLOCK_MONOTONIC` time `deadline` (nanoseconds).
    @discardableResult
    public func schedule(
        atNanoseconds deadline: UInt64, repeating interval: UInt64? = nil, _ body: @escaping () -> Void
    )
        -> TimerID
    {
        assertLoopThread("schedule")
        let id = nextTimerID
        nextTimerID += 1
        timers[id] = Timer(deadline: deadline, interval: interval.map { max($0, 1) }, body: body)
        timerHeap.push(deadline: deadline, id: id)
        rearmTimer()
        return TimerID(raw: id)
    }

    /// Cancels a timer; it will not run again. Cancelling a fired one-shot timer does nothing.
    public func cancel(_ timer: TimerID) {
        assertLoopThread("cancel")
        timers[timer.raw] = nil
    }

    /// Whether `timer` is still scheduled.
    public func isScheduled(_ timer: TimerID) -> Bool { timers[timer.raw] != nil }

    private func rearmTimer() {
        // Drop cancelled entries from the top so the timerfd is armed for a live deadline.
        while let top = timerHeap.top, timers[top.id]?.deadline != top.deadline {
            timerHeap.pop()
        }
        let next = timerHeap.top?.deadline ?? 0
        if next == armedDeadline { return }
        armedDeadline = next
        // A deadline of 0 disarms; a deadline in the past fires at once.
        try? Syscalls.timerfdSetAbsolute(timerFD, deadlineNanoseconds: next == 0 ? 0 : max(next, 1))
    }

    private func fireTimers() {
        _ = Syscalls.readCounter(timerFD)
        armedDeadline = 0
        let now = Syscalls.monotonicNanoseconds()
        var due: [(deadline: UInt64, id: UInt64)] = []
        while let top = timerHeap.top, top.deadline <= now {
            timerHeap.pop()
            if timers[top.id]?.deadline == top.deadline { due.append(top) }
        }
        for entry in due {
            guard var timer = timers[entry.id], timer.deadline == entry.deadline else { continue }
            if let interval = timer.interval {
                var next = timer.deadline &+ interval
                if next <= now { next = now &+ interval }  // fell behind: keep the rate, skip missed ticks
                timer.deadline = next
                timers[entry.id] = timer
                timerHeap.push(deadline: next, id: entry.id)
            } else {
                timers[entry.id] = nil
            }
            timer.body()
        }
        rearmTimer()
    }

    // MARK: - signals

    /// Runs `handler` on the loop thread when `signal` (one of `handledSignals`) is delivered.
    public func onSignal(_ signal: Int32, _ handler: @escaping (SignalEvent) -> Void) {
        assertLoopThread("onSignal")
        precondition(EventLoop.handledSignals.contains(signal), "signal \(signal) is not routed to the loop")
        signalHandlers[signal] = handler
    }

    private func readSignals() {
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        while true {
            let n = withUnsafeMutableBytes(of: &info) { raw in (try? Syscalls.read(signalFD, raw)) ?? -1 }
            if n != size { return }
            let event = SignalEvent(
                signal: Int32(info.ssi_signo), senderPID: Int32(bitPattern: info.ssi_pid), status: info.ssi_status)
            signalHandlers[event.signal]?(event)
        }
    }

    // MARK: - running

    /// Runs until `stop()` is called. Sleeps in `epoll_wait` with no timeout: an idle loop uses no CPU.
    public func run() throws(Errno) {
        stopRequested = false
        while !stopRequested {
            try runOnce(timeoutMilliseconds: -1)
        }
    }

    /// Runs until `stop()`, or until `nanoseconds` have passed (for tests and tools).
    public func run(forNanoseconds nanoseconds: UInt64) throws(Errno) {
        let deadline = Syscalls.monotonicNanoseconds() &+ nanoseconds
        let guardTimer = schedule(atNanoseconds: deadline) { [unowned self] in self.stop() }
        defer { cancel(guardTimer) }
        try run()
    }

    /// Runs until `condition()` is true (checked after each batch of events) or `nanoseconds` pass.
    /// Returns whether the condition became true.
    @discardableResult
    public func run(until condition: () -> Bool, timeoutNanoseconds: UInt64) throws(Errno) -> Bool {
        let deadline = Syscalls.monotonicNanoseconds() &+ timeoutNanoseconds
        var timedOut = false
        let guardTimer = schedule(atNanoseconds: deadline) { timedOut = true }
        defer { cancel(guardTimer) }
        stopRequested = false
        while !condition() && !timedOut && !stopRequested {
            try runOnce(timeoutMilliseconds: -1)
        }
        return condition()
    }

    /// Makes `run()` return after the current batch of events. Loop thread only; other threads
    /// use `handle.post { … }` to reach the loop.
    public func stop() {
        stopRequested = true
    }

    /// Waits once for events (at most `timeoutMilliseconds`, -1 = no limit) and dispatches them. Not
    /// re-entrant (one batch buffer): a handler must not run the loop.
    public func runOnce(timeoutMilliseconds: Int32) throws(Errno) {
        assertLoopThread("runOnce")
        let events = readyEvents
        let count = try Syscalls.epollWait(epollFD, events, timeoutMs: timeoutMilliseconds)
        for i in 0..<count {
            let id = SourceID(packed: events[i].data.u64)
            guard Int(id.slot) < sources.count else { continue }
            let source = sources[Int(id.slot)]
            // Stale: the source was removed (and maybe its slot reused) after this batch was read.
            guard source.generation == id.generation, let handler = source.handler else { continue }
            handler(IOEvents(rawValue: events[i].events))
        }
    }
}
