// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// What the player does when one of its timers (`PlayerTimers`) fires: the browse timeout returns
/// to now playing, idle power-off warns then shuts down by the path of the shutdown control, the
/// sleep timer fades out in the engine then stops (or powers off with `"sleepAction":
/// "poweroff"`). Any input during the sleep fade cancels the timer; the time left is saved with the
/// resume state and continues after a restart. Thread: the loop thread, like `Player`.
extension Player {
    /// The length of the fade at the end of a sleep timer.
    public static let sleepFadeSeconds = PlayerTimers.sleepFadeSeconds
    /// How long the idle power-off warning shows before the power goes off.
    public static let powerOffWarningSeconds = PlayerTimers.powerOffWarningSeconds

    func timerEvents() -> PlayerTimers.Events {
        var events = PlayerTimers.Events()
        events.browseTimedOut = { [unowned self] in
            guard mode != .nowPlaying, !queue.isEmpty else { return }
            show(.nowPlaying)
            refreshScreen()
        }
        events.powerOffWarning = { [unowned self] in
            Log.notice(
                "idle for \(config.idlePowerOffMinutes) min (\(status.rawValue)): switching off in \(Self.powerOffWarningSeconds) s unless a button is pressed"
            )
            showTransient(
                MessageState(title: "Switching off", detail: "Press any button to keep playing", kind: .info),
                seconds: Self.powerOffWarningSeconds)
            refreshScreen()
        }
        events.cardAwayTooLong = { [unowned self] in self.cardStayedAway() }
        events.powerOff = { [unowned self] in
            Log.notice("idle power-off")
            requestShutdown()
        }
        events.sleepFade = { [unowned self] milliseconds in
            engine.fadeOut(overMilliseconds: milliseconds)
            refreshScreen()
        }
        events.sleepEnded = { [unowned self] fading in
            Log.notice("sleep timer ended: \(config.sleepAction == .poweroff ? "powering off" : "stopping")")
            if config.sleepAction == .poweroff {
                requestShutdown()
            } else if status != .stopped {
                stop()
            }
            // After the stop the engine is silent anyway; the next play is at the set volume.
            if fading { engine.cancelFade() }
            // A sleeping box need not clock a DAC kept open (`audio.keepOpen`).
            engine.releaseDevice()
            recorder.saveSoon()
            refreshScreen()
        }
        return events
    }

    /// An input came: the browse timeout and the idle power-off countdown start again.
    func inputCame() {
        timers.rearmBrowseTimeout()
        timers.restartIdlePowerOff(playing: status == .playing || shuttingDown)
    }

    // MARK: - sleep timer

    /// Seconds left on the sleep timer, nil when it is off.
    public var sleepRemainingSeconds: Int? { timers.sleepRemainingSeconds }

    /// Whether the sleep timer's fade is under way.
    public var isFadingToSleep: Bool { timers.isFadingToSleep }

    /// Whether the idle power-off warning shows now.
    public var isWarningOfPowerOff: Bool { timers.isWarningOfPowerOff }

    /// Sets the sleep timer to `seconds` from now (nil or 0: off).
    public func setSleepTimer(seconds: Int?, minutes: Int? = nil) {
        if timers.setSleep(seconds: seconds, minutes: minutes) { engine.cancelFade() }
        recorder.saveSoon()
    }

    /// The next setting of the cycle: off → 15 → 30 → … → off.
    func cycleSleepTimer() {
        let next = timers.nextSleepChoice
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
}
