// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// What the player does with its timers (`PlayerTimers`, which decides when they ring and what
/// follows): the browse timeout returns to now playing, idle power-off warns then shuts down by
/// the path of the shutdown control, the sleep timer fades out in the engine then stops (or powers
/// off with `"sleepAction": "poweroff"`). Any input during the sleep fade cancels the timer; the
/// time left is saved with the resume state and continues after a restart. Thread: the loop
/// thread, like `Player`.
extension Player {
    /// The length of the fade at the end of a sleep timer.
    public static let sleepFadeSeconds = PlayerTimers.sleepFadeSeconds
    /// How long the idle power-off warning shows before the power goes off.
    public static let powerOffWarningSeconds = PlayerTimers.powerOffWarningSeconds

    /// An input came: the browse timeout and the idle power-off countdown start again.
    func inputCame() {
        apply(timers.handle(.input(playing: status == .playing || shuttingDown)))
    }

    /// The browse timeout rang: browse, help and menu go back to now playing when something is
    /// queued.
    func browseTimedOut() {
        guard mode != .nowPlaying, !queue.isEmpty else { return }
        show(.nowPlaying)
        refreshScreen()
    }

    /// The idle power-off countdown ran out: the warning shows until the power goes off.
    func warnOfPowerOff() {
        Log.notice(
            "idle for \(config.idlePowerOffMinutes) min (\(status.rawValue)): switching off in \(Self.powerOffWarningSeconds) s unless a button is pressed"
        )
        showTransient(
            MessageState(title: "Switching off", detail: "Press any button to keep playing", kind: .info),
            seconds: Self.powerOffWarningSeconds)
        refreshScreen()
    }

    // MARK: - sleep timer

    /// Seconds left on the sleep timer, nil when it is off.
    public var sleepRemainingSeconds: Int? { timers.sleepRemainingSeconds(now: scheduler.nowNanoseconds) }

    /// Whether the sleep timer's fade is under way.
    public var isFadingToSleep: Bool { timers.isFadingToSleep }

    /// Whether the idle power-off warning shows now.
    public var isWarningOfPowerOff: Bool { timers.isWarningOfPowerOff }

    /// Sets the sleep timer to `seconds` from now (nil or 0: off).
    public func setSleepTimer(seconds: Int?, minutes: Int? = nil) {
        apply(timers.handle(.sleep(seconds: seconds, minutes: minutes, now: scheduler.nowNanoseconds)))
    }

    /// The next setting of the cycle: off → 15 → 30 → … → off.
    func cycleSleepTimer() {
        let next = timers.nextSleepChoice(now: scheduler.nowNanoseconds)
        setSleepTimer(seconds: next.map { $0 * 60 }, minutes: next)
        showTransient(MessageState(title: next.map { "Sleep in \($0) min" } ?? "Sleep timer off"), seconds: 2)
    }

    /// An input came: during the fade it cancels the timer (and the volume comes back). True when
    /// it did, so the input does nothing else.
    func inputCancelsSleepFade() -> Bool {
        guard isFadingToSleep else { return false }
        Log.info("sleep timer cancelled by an input during its fade")
        setSleepTimer(seconds: nil)
        showTransient(MessageState(title: "Sleep timer off"), seconds: 2)
        refreshScreen()
        return true
    }

    // MARK: - a card taken away

    /// The card came back, or something else plays.
    func cancelCardAway() { apply(timers.handle(.cardBack)) }
}
