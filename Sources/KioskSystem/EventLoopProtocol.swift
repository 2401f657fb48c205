// SPDX-License-Identifier: GPL-3.0-or-later
/// What a type bound to the loop thread uses of its loop: file-descriptor sources, timers, signals,
/// and the `handle` other threads post through. `EventLoop` (epoll) is the appliance's;
/// `EmbeddedLoop` is a test double that runs nothing until the test says so, as swift-nio's
/// `EmbeddedEventLoop` is for its channels. Named as the standard library names a protocol whose
/// natural name a concrete type holds (`IteratorProtocol`): `EventLoop` stays the epoll loop.
///
/// Thread: the loop thread only (`inLoopThread`), except `handle`, which any thread may use.
public protocol EventLoopProtocol: Scheduler {
    /// Shared with other threads to post work and wake the loop.
    var handle: LoopHandle { get }

    /// Watches `fd` for `events` (level-triggered); `handler` runs on the loop thread with the
    /// events that are ready. The loop does not own `fd`: remove the source before closing it.
    @discardableResult
    func addSource(fd: Int32, events: IOEvents, handler: @escaping (IOEvents) -> Void) throws(Errno) -> SourceID

    /// Changes the events watched for `id`.
    func modifySource(_ id: SourceID, events: IOEvents) throws(Errno)

    /// Stops watching; events already read for this source are dropped. Safe to call twice.
    func removeSource(_ id: SourceID)

    /// Runs `body` at the loop's time `deadline` (nanoseconds, `nowNanoseconds`'s clock), then every
    /// `interval` nanoseconds when one is given.
    @discardableResult
    func schedule(atNanoseconds deadline: UInt64, repeating interval: UInt64?, _ body: @escaping () -> Void)
        -> TimerID

    /// Whether `timer` is still scheduled.
    func isScheduled(_ timer: TimerID) -> Bool

    /// Runs `handler` on the loop thread when `signal` (one of `EventLoop.handledSignals`) arrives.
    func onSignal(_ signal: Int32, _ handler: @escaping (SignalEvent) -> Void)

    /// Makes a running loop return after the current batch of events.
    func stop()
}

extension EventLoopProtocol {
    /// Runs `body` once `delay` nanoseconds have passed (never before), then every `interval`.
    @discardableResult
    public func schedule(
        afterNanoseconds delay: UInt64, repeating interval: UInt64? = nil, _ body: @escaping () -> Void
    )
        -> TimerID
    {
        schedule(atNanoseconds: nowNanoseconds &+ delay, repeating: interval, body)
    }
}
