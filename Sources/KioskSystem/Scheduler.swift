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
}

extension Scheduler {
    /// A one-shot timer.
    @discardableResult
    public func schedule(afterMilliseconds delay: Int, _ body: @escaping () -> Void) -> TimerID {
        schedule(afterMilliseconds: delay, repeatingMilliseconds: nil, body)
    }
}
