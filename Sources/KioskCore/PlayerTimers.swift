// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem

/// The player's timers and what they count: the browse timeout (browse, help and menu go back to
/// now playing after `browseTimeoutMilliseconds` without input), idle power-off (config
/// `idlePowerOffMinutes`: stopped or paused with no input that long, a warning shows for
/// `powerOffWarningSeconds`, then the box shuts down), the sleep timer (its choices cycle off →
/// each of `sleepMinutes` → off; the last `sleepFadeSeconds` fade the sound out, then playback
/// stops or the box powers off) and the countdown of a playing card taken off its reader. A part
/// of the player: its state changes only in `handle`, which returns the loop timers to arm or
/// disarm (one per `Alarm`, so arming one again replaces it) and what follows when one rings; the
/// player's `apply(_:)` holds the timers and brings each ring back here as `.rang`.
///
/// Thread: any (a value); the player's copy lives on the loop thread.
struct PlayerTimers: Equatable {
    /// Inactivity after which browse/help/menu return to now playing (when something is queued).
    static let defaultBrowseTimeoutMilliseconds = 20_000
    /// How long the power-off warning shows before the power goes off.
    static let powerOffWarningSeconds = 30
    /// The length of the fade at the end of a sleep timer.
    static let sleepFadeSeconds = 30

    /// The loop timers this part runs, at most one of each.
    enum Alarm: Hashable {
        case browseTimeout
        /// The idle power-off countdown, then its warning's.
        case idlePowerOff
        case sleepFade, sleepEnd
        /// The playing card stayed off its reader.
        case cardAway
    }

    /// A running sleep timer: when it ends, whether its fade has begun, and the choice of the cycle
    /// it came from.
    private struct Sleep: Equatable {
        var deadlineNs: UInt64
        var fading: Bool
        var minutes: Int?
    }

    var browseTimeoutMilliseconds = PlayerTimers.defaultBrowseTimeoutMilliseconds
    private let idlePowerOffMinutes: Int
    private let sleepChoices: [Int]
    private let sleepAction: Config.SleepAction
    /// The idle power-off countdown, nil when it does not run; true once its warning shows.
    private var idlePowerOffWarning: Bool?
    private var sleep: Sleep?
    /// The countdown of a playing card taken off its reader runs.
    private(set) var isCardAway = false

    init(idlePowerOffMinutes: Int, sleepMinutes: [Int], sleepAction: Config.SleepAction) {
        self.idlePowerOffMinutes = idlePowerOffMinutes
        sleepChoices = sleepMinutes
        self.sleepAction = sleepAction
    }

    init(config: Config) {
        self.init(
            idlePowerOffMinutes: config.idlePowerOffMinutes, sleepMinutes: config.sleepMinutes,
            sleepAction: config.sleepAction)
    }

    /// What happens to the timers.
    enum Event: Equatable {
        /// An input came: the browse timeout and the idle power-off countdown start again (the
        /// countdown only when not `playing`).
        case input(playing: Bool)
        /// After any change: the idle power-off countdown runs while stopped or paused, not while
        /// playing.
        case follow(playing: Bool)
        /// The sleep timer set to `seconds` after `now` (nil or 0: off); `minutes`: the choice of the
        /// cycle it is.
        case sleep(seconds: Int?, minutes: Int?, now: UInt64)
        /// The playing card was taken off: it is stopped after `minutes` unless it comes back.
        case cardAway(minutes: Int)
        /// The card came back, or something else plays.
        case cardBack
        /// A timer this part armed rang at `now`.
        case rang(Alarm, now: UInt64)
    }

    mutating func handle(_ event: Event) -> [PlayerEffect] {
        switch event {
        case .input(let playing):
            return [.arm(.browseTimeout, milliseconds: browseTimeoutMilliseconds)] + cancelIdlePowerOff()
                + followIdlePowerOff(playing: playing)
        case .follow(let playing):
            return followIdlePowerOff(playing: playing)
        case .sleep(let seconds, let minutes, let now):
            return setSleep(seconds: seconds, minutes: minutes, now: now)
        case .cardAway(let minutes):
            isCardAway = true
            return [.arm(.cardAway, milliseconds: minutes * 60_000)]
        case .cardBack:
            guard isCardAway else { return [] }
            isCardAway = false
            return [.disarm(.cardAway)]
        case .rang(let alarm, let now):
            return rang(alarm, now: now)
        }
    }

    private mutating func rang(_ alarm: Alarm, now: UInt64) -> [PlayerEffect] {
        switch alarm {
        case .browseTimeout:
            return [.browseTimedOut]
        case .idlePowerOff where idlePowerOffWarning == false:
            idlePowerOffWarning = true
            return [.arm(.idlePowerOff, milliseconds: Self.powerOffWarningSeconds * 1000), .powerOffWarning]
        case .idlePowerOff:
            idlePowerOffWarning = nil
            Log.notice("idle power-off")
            return [.shutdown]
        case .sleepFade:
            guard let deadline = sleep?.deadlineNs else { return [] }
            sleep?.fading = true
            let left = Int((deadline - min(deadline, now)) / 1_000_000)
            Log.info("sleep timer: fading out over \(left) ms")
            return [.engine(.fadeOut(milliseconds: max(1, left))), .redraw]
        case .sleepEnd:
            guard let ended = sleep else { return [] }
            sleep = nil
            Log.notice("sleep timer ended: \(sleepAction == .poweroff ? "powering off" : "stopping")")
            let action: PlayerEffect = sleepAction == .poweroff ? .shutdown : .stopPlayback
            // After the stop the engine is silent anyway; the next play is at the set volume. A
            // sleeping box need not clock a DAC kept open (`audio.keepOpen`).
            return [action] + (ended.fading ? [.engine(.cancelFade)] : []) + [
                .engine(.releaseDevice), .save(.soon), .redraw,
            ]
        case .cardAway:
            isCardAway = false
            return [.cardStayedAway]
        }
    }

    // MARK: - idle power-off

    /// Whether the power-off warning shows now.
    var isWarningOfPowerOff: Bool { idlePowerOffWarning ?? false }

    private mutating func followIdlePowerOff(playing: Bool) -> [PlayerEffect] {
        guard idlePowerOffMinutes > 0 else { return [] }
        if playing { return cancelIdlePowerOff() }
        guard idlePowerOffWarning == nil else { return [] }
        idlePowerOffWarning = false
        return [.arm(.idlePowerOff, milliseconds: idlePowerOffMinutes * 60_000)]
    }

    private mutating func cancelIdlePowerOff() -> [PlayerEffect] {
        guard idlePowerOffWarning != nil else { return [] }
        idlePowerOffWarning = nil
        return [.disarm(.idlePowerOff)]
    }

    // MARK: - sleep timer

    /// Seconds left on the sleep timer at `now`, nil when it is off.
    func sleepRemainingSeconds(now: UInt64) -> Int? {
        guard let sleep else { return nil }
        return sleep.deadlineNs > now ? Int((sleep.deadlineNs - now + 999_999_999) / 1_000_000_000) : 0
    }

    /// Whether the sleep timer's fade is under way.
    var isFadingToSleep: Bool { sleep?.fading ?? false }

    private mutating func setSleep(seconds: Int?, minutes: Int?, now: UInt64) -> [PlayerEffect] {
        var effects: [PlayerEffect] = []
        if let running = sleep {
            sleep = nil
            effects = [.disarm(.sleepFade), .disarm(.sleepEnd)]
            // The volume comes back.
            if running.fading { effects.append(.engine(.cancelFade)) }
        }
        if let seconds, seconds > 0 {
            let fadeIn = max(0, seconds - Self.sleepFadeSeconds)
            sleep = Sleep(deadlineNs: now + UInt64(seconds) * 1_000_000_000, fading: false, minutes: minutes)
            effects += [.arm(.sleepFade, milliseconds: fadeIn * 1000), .arm(.sleepEnd, milliseconds: seconds * 1000)]
            Log.info("sleep timer: \(seconds / 60) min \(seconds % 60) s")
        }
        return effects + [.save(.soon)]
    }

    /// The next choice of the cycle off → 15 → 30 → … → off (from the current choice, from what
    /// is left at `now` of a restored or odd time, or from off), in minutes; nil is off.
    func nextSleepChoice(now: UInt64) -> Int? {
        if let current = sleep?.minutes, let at = sleepChoices.firstIndex(of: current) {
            return at + 1 < sleepChoices.count ? sleepChoices[at + 1] : nil
        }
        if sleep != nil {
            let left = (sleepRemainingSeconds(now: now) ?? 0) / 60
            return sleepChoices.first { $0 > left }
        }
        return sleepChoices.first
    }

    /// The countdown shown on now playing at `now` ("sleep 29:40"), nil when off.
    func sleepCountdown(now: UInt64) -> String? {
        guard let left = sleepRemainingSeconds(now: now) else { return nil }
        let seconds = left % 60
        return "sleep \(left / 60):\(seconds < 10 ? "0" : "")\(seconds)"
    }
}
