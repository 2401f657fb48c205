// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem

/// The player's timers and what they count: the browse timeout (browse, help and menu go back to
/// now playing after `browseTimeoutMilliseconds` without input), idle power-off (config
/// `idlePowerOffMinutes`: stopped or paused with no input that long, a warning shows for
/// `powerOffWarningSeconds`, then the box shuts down) and the sleep timer (its choices cycle off →
/// each of `sleepMinutes` → off; the last `sleepFadeSeconds` fade the sound out, then playback
/// stops or the box powers off). What happens when one fires is the player's (`Events`).
///
/// Thread: the loop thread (the scheduler's) only.
final class PlayerTimers {
    /// Inactivity after which browse/help/menu return to now playing (when something is queued).
    static let defaultBrowseTimeoutMilliseconds = 20_000
    /// How long the power-off warning shows before the power goes off.
    static let powerOffWarningSeconds = 30
    /// The length of the fade at the end of a sleep timer.
    static let sleepFadeSeconds = 30

    /// What the player does when a timer fires.
    struct Events {
        var browseTimedOut: () -> Void = {}
        var powerOffWarning: () -> Void = {}
        var powerOff: () -> Void = {}
        /// The sleep timer's fade begins, over this many milliseconds.
        var sleepFade: (Int) -> Void = { _ in }
        /// The sleep timer ended (`fading`: its fade had begun).
        var sleepEnded: (_ fading: Bool) -> Void = { _ in }
        /// The playing card stayed off its reader for `cards.removedStopMinutes`.
        var cardAwayTooLong: () -> Void = {}
    }

    /// A running sleep timer: when it ends, its two timers, whether the fade has begun, and the
    /// choice of the cycle it came from.
    private struct Sleep {
        var deadlineNs: UInt64
        var fadeTimer: TimerID
        var endTimer: TimerID
        var fading: Bool
        var minutes: Int?
    }

    let scheduler: any Scheduler
    var events = Events()
    var browseTimeoutMilliseconds = PlayerTimers.defaultBrowseTimeoutMilliseconds
    private let idlePowerOffMinutes: Int
    private let sleepChoices: [Int]
    private var browseTimer: TimerID?
    /// The idle power-off countdown: its timer, and whether the warning shows.
    private var idlePowerOff: (timer: TimerID, warning: Bool)?
    private var sleep: Sleep?
    /// The countdown of a playing card taken off its reader.
    private var cardAway: TimerID?

    init(scheduler: any Scheduler, config: Config) {
        self.scheduler = scheduler
        idlePowerOffMinutes = config.idlePowerOffMinutes
        sleepChoices = config.sleepMinutes
    }

    // MARK: - browse timeout

    /// An input came: the browse timeout starts again.
    func rearmBrowseTimeout() {
        scheduler.assertInLoop()
        if let timer = browseTimer { scheduler.cancel(timer) }
        browseTimer = scheduler.schedule(afterMilliseconds: browseTimeoutMilliseconds) { [weak self] in
            self?.events.browseTimedOut()
        }
    }

    // MARK: - idle power-off

    /// Whether the power-off warning shows now.
    var isWarningOfPowerOff: Bool { idlePowerOff?.warning ?? false }

    /// An input came: the countdown starts again from the full time (when it should run).
    func restartIdlePowerOff(playing: Bool) {
        cancelIdlePowerOff()
        followIdlePowerOff(playing: playing)
    }

    /// After any change: the countdown runs while stopped or paused, not while playing.
    func followIdlePowerOff(playing: Bool) {
        guard idlePowerOffMinutes > 0 else { return }
        if playing {
            cancelIdlePowerOff()
        } else if idlePowerOff == nil {
            let timer = scheduler.schedule(afterMilliseconds: idlePowerOffMinutes * 60_000) { [weak self] in
                self?.warnOfPowerOff()
            }
            idlePowerOff = (timer, false)
        }
    }

    private func cancelIdlePowerOff() {
        if let countdown = idlePowerOff { scheduler.cancel(countdown.timer) }
        idlePowerOff = nil
    }

    private func warnOfPowerOff() {
        let timer = scheduler.schedule(afterMilliseconds: Self.powerOffWarningSeconds * 1000) { [weak self] in
            self?.idlePowerOff = nil
            self?.events.powerOff()
        }
        idlePowerOff = (timer, true)
        events.powerOffWarning()
    }

    // MARK: - sleep timer

    /// Seconds left on the sleep timer, nil when it is off.
    var sleepRemainingSeconds: Int? {
        guard let sleep else { return nil }
        let now = scheduler.nowNanoseconds
        return sleep.deadlineNs > now ? Int((sleep.deadlineNs - now + 999_999_999) / 1_000_000_000) : 0
    }

    /// Whether the sleep timer's fade is under way.
    var isFadingToSleep: Bool { sleep?.fading ?? false }

    /// Sets the sleep timer to `seconds` from now (nil or 0: off); `minutes`: the choice of the
    /// cycle it is. Returns whether a fade under way was cancelled (the volume comes back).
    @discardableResult
    func setSleep(seconds: Int?, minutes: Int? = nil) -> Bool {
        scheduler.assertInLoop()
        let wasFading = cancelSleep()
        guard let seconds, seconds > 0 else { return wasFading }
        let deadline = scheduler.nowNanoseconds + UInt64(seconds) * 1_000_000_000
        let fadeIn = max(0, seconds - Self.sleepFadeSeconds)
        let fadeTimer = scheduler.schedule(afterMilliseconds: fadeIn * 1000) { [weak self] in self?.startFade() }
        let endTimer = scheduler.schedule(afterMilliseconds: seconds * 1000) { [weak self] in self?.sleepEnded() }
        sleep = Sleep(deadlineNs: deadline, fadeTimer: fadeTimer, endTimer: endTimer, fading: false, minutes: minutes)
        Log.info("sleep timer: \(seconds / 60) min \(seconds % 60) s")
        return wasFading
    }

    /// The next choice of the cycle off → 15 → 30 → … → off (from the current choice, from what
    /// is left of a restored or odd time, or from off), in minutes; nil is off.
    var nextSleepChoice: Int? {
        if let current = sleep?.minutes, let at = sleepChoices.firstIndex(of: current) {
            return at + 1 < sleepChoices.count ? sleepChoices[at + 1] : nil
        }
        if sleep != nil {
            let left = (sleepRemainingSeconds ?? 0) / 60
            return sleepChoices.first { $0 > left }
        }
        return sleepChoices.first
    }

    /// The countdown shown on now playing ("sleep 29:40"), nil when off.
    var sleepCountdown: String? {
        guard let left = sleepRemainingSeconds else { return nil }
        let seconds = left % 60
        return "sleep \(left / 60):\(seconds < 10 ? "0" : "")\(seconds)"
    }

    /// Stops the sleep timer; true when its fade had begun.
    private func cancelSleep() -> Bool {
        guard let sleep else { return false }
        scheduler.cancel(sleep.fadeTimer)
        scheduler.cancel(sleep.endTimer)
        self.sleep = nil
        return sleep.fading
    }

    private func startFade() {
        guard let deadline = sleep?.deadlineNs else { return }
        sleep?.fading = true
        let left = Int((deadline - min(deadline, scheduler.nowNanoseconds)) / 1_000_000)
        Log.info("sleep timer: fading out over \(left) ms")
        events.sleepFade(max(1, left))
    }

    private func sleepEnded() {
        guard let ended = sleep else { return }
        sleep = nil
        events.sleepEnded(ended.fading)
    }

    // MARK: - a card taken away

    /// The playing card was taken off: `cardAwayTooLong` fires after `minutes` unless it comes back.
    func startCardAway(minutes: Int) {
        cancelCardAway()
        cardAway = scheduler.schedule(afterMilliseconds: minutes * 60_000) { [weak self] in
            self?.cardAway = nil
            self?.events.cardAwayTooLong()
        }
    }

    /// The card came back, or something else plays.
    func cancelCardAway() {
        if let timer = cardAway { scheduler.cancel(timer) }
        cardAway = nil
    }
}
