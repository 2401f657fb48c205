import CKioskShims
import Glibc
import Synchronization

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

/// The single-threaded epoll event loop that owns all of the player's state.
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
public final class EventLoop: Scheduler {
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

    private let epollFD: Int32
    /// Where `epoll_wait` writes a batch: allocated once, so a loop turn allocates nothing.
    private let readyEvents = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: 32)
    private let timerFD: Int32
    private let signalFD: Int32
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
        epollFD = try Syscalls.epollCreate()
        timerFD = try Syscalls.timerfdCreate()
        signalFD = try Syscalls.signalfdCreate(EventLoop.handledSignals)
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
        Syscalls.closeIgnoringErrors(epollFD)
        Syscalls.closeIgnoringErrors(timerFD)
        Syscalls.closeIgnoringErrors(signalFD)
    }

    /// CLOCK_MONOTONIC now: the clock the loop's timers run on.
    public var nowNanoseconds: UInt64 { Syscalls.monotonicNanoseconds() }

    /// Whether the caller is on the loop thread.
    public var inLoopThread: Bool { pthread_equal(pthread_self(), loopThread) != 0 }

    // MARK: - fd sources

    /// Watches `fd` for `events` (level-triggered). The handler runs on the loop thread with the
    /// events that are ready. The loop does not own `fd`: remove the source before closing it.
    @discardableResult
    public func addSource(fd: Int32, events: IOEvents, handler: @escaping (IOEvents) -> Void) throws(Errno)
        -> SourceID
    {
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
        guard let fd = liveFD(id) else { return }
        try Syscalls.epollControl(epollFD, EPOLL_CTL_MOD, fd, events: events.rawValue, data: id.packed)
    }

    /// Stops watching; events already read for this source are dropped. Safe to call twice.
    public func removeSource(_ id: SourceID) {
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
        let id = nextTimerID
        nextTimerID += 1
        timers[id] = Timer(deadline: deadline, interval: interval.map { max($0, 1) }, body: body)
        timerHeap.push(deadline: deadline, id: id)
        rearmTimer()
        return TimerID(raw: id)
    }

    /// Cancels a timer; it will not run again. Cancelling a fired one-shot timer does nothing.
    public func cancel(_ timer: TimerID) {
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
        precondition(EventLoop.handledSignals.contains(signal), "signal \(signal) is not routed to the loop")
        signalHandlers[signal] = handler
    }

    private func readSignals() {
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        while true {
            let n = withUnsafeMutableBytes(of: &info) { raw in Glibc.read(signalFD, raw.baseAddress, size) }
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

/// The part of an `EventLoop` other threads may use: post closures to run on the loop thread.
///
/// Thread: any. `post` takes a lock and allocates, so audio threads must not call it; they use
/// their own preallocated queue plus an eventfd registered as a source.
public final class LoopHandle: Sendable {
    let eventFD: Int32
    private let pending = Mutex<[@Sendable () -> Void]>([])

    init() throws(Errno) {
        eventFD = try Syscalls.eventfdCreate()
    }

    deinit {
        Syscalls.closeIgnoringErrors(eventFD)
    }

    /// Queues `body` to run on the loop thread and wakes the loop.
    public func post(_ body: @escaping @Sendable () -> Void) {
        pending.withLock { $0.append(body) }
        Syscalls.eventfdSignal(eventFD)
    }

    /// Wakes the loop without work (it re-checks its conditions).
    public func wake() {
        Syscalls.eventfdSignal(eventFD)
    }

    func drain() {
        let work = pending.withLock { queue -> [@Sendable () -> Void] in
            let taken = queue
            queue.removeAll(keepingCapacity: true)
            return taken
        }
        for body in work { body() }
    }
}

/// A typed channel from any thread to a handler on the loop thread.
///
/// Unlike `LoopHandle.post`, the handler is not `@Sendable`: it lives on the loop and may touch
/// loop state; only the messages cross threads.
public final class Mailbox<Message: Sendable>: Sendable {
    private final class Queue: Sendable {
        let messages = Mutex<[Message]>([])
    }
    private let queue: Queue
    private let handle: LoopHandle
    private let deliver: @Sendable () -> Void

    /// Creates a mailbox whose messages are passed to `handler` on `loop`'s thread, in order.
    public init(loop: EventLoop, handler: @escaping (Message) -> Void) {
        let queue = Queue()
        let box = UncheckedBox(handler)
        self.queue = queue
        handle = loop.handle
        deliver = {
            let messages = queue.messages.withLock { q -> [Message] in
                let taken = q
                q.removeAll(keepingCapacity: true)
                return taken
            }
            for message in messages { box.value(message) }
        }
    }

    /// Sends `message` to the loop thread. Thread: any (not audio threads: it locks).
    public func send(_ message: Message) {
        queue.messages.withLock { $0.append(message) }
        handle.post(deliver)
    }
}

/// Carries a non-Sendable value across an isolation boundary where the code guarantees it is
/// only used on one thread (here: a handler created on the loop thread and called only there).
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// A binary min-heap of (deadline, id), ordered by deadline then id (the order timers were made).
struct DeadlineHeap {
    private var items: [(deadline: UInt64, id: UInt64)] = []

    var top: (deadline: UInt64, id: UInt64)? { items.first }
    var count: Int { items.count }

    private static func less(_ a: (deadline: UInt64, id: UInt64), _ b: (deadline: UInt64, id: UInt64)) -> Bool {
        a.deadline != b.deadline ? a.deadline < b.deadline : a.id < b.id
    }

    mutating func push(deadline: UInt64, id: UInt64) {
        items.append((deadline, id))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            if !Self.less(items[child], items[parent]) { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func pop() -> (deadline: UInt64, id: UInt64)? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let result = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count && Self.less(items[left], items[smallest]) { smallest = left }
            if right < items.count && Self.less(items[right], items[smallest]) { smallest = right }
            if smallest == parent { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return result
    }
}
