// SPDX-License-Identifier: GPL-3.0-or-later
/// Timers, as the state machines on the loop thread use them (the player, the output supervisor):
/// the event loop's real timers in the appliance, a virtual clock in tests, so that logic which
/// waits seconds is tested in microseconds and deterministically.
///
/// Thread: the loop thread only (the scheduler's own thread), like `EventLoop`.
public protocol Scheduler: AnyObject {
    /// The scheduler's clock, in nanoseconds (CLOCK_MONOTONIC for the event loop).
    var nowNanoseconds: UInt64 { get }

    /// Runs `body` once `delay` milliseconds have passed (never before), then every `interval`
    /// milliseconds when one is given. Timers due together run in deadline order, then in the order
    /// they were scheduled.
    @discardableResult
    func schedule(afterMilliseconds delay: Int, repeatingMilliseconds interval: Int?, _ body: @escaping () -> Void)
        -> TimerID

    /// Cancels a timer; it will not run again. Cancelling a fired one-shot timer does nothing.
    func cancel(_ timer: TimerID)

    /// Whether the caller is on the scheduler's thread (`pthread_equal`: a few nanoseconds).
    var inLoopThread: Bool { get }
}

extension Scheduler {
    /// Stops the program when a type that belongs to the loop thread is entered from another
    /// thread (a data race that would corrupt its state now and then): called at the public entries
    /// of loop-thread types, as swift-nio's `assertInEventLoop()`. Cheap enough for release builds.
    @inline(__always)
    public func assertInLoop(file: StaticString = #fileID, line: UInt = #line) {
        precondition(inLoopThread, "called off the loop thread: use handle.post or a Mailbox", file: file, line: line)
    }

    /// A one-shot timer.
    @discardableResult
    public func schedule(afterMilliseconds delay: Int, _ body: @escaping () -> Void) -> TimerID {
        schedule(afterMilliseconds: delay, repeatingMilliseconds: nil, body)
    }
}
