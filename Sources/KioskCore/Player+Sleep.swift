import KioskDisplay
import KioskSystem

/// The sleep timer: the `sleep` action and the menu entry cycle off → each of `sleepMinutes` →
/// off; now playing counts down; the last `sleepFadeSeconds` fade the sound out in the engine,
/// then playback stops (or the box powers off with `"sleepAction": "poweroff"`). Any input during
/// the fade cancels the timer. The time left is saved with the resume state and continues after a
/// restart. Thread: the loop thread, like `Player`.
extension Player {
    /// The length of the fade at the end of a sleep timer.
    public static let sleepFadeSeconds = 30

    /// Seconds left on the sleep timer, nil when it is off.
    public var sleepRemainingSeconds: Int? {
        guard let timer = sleepTimer else { return nil }
        let now = scheduler.nowNanoseconds
        return timer.deadlineNs > now ? Int((timer.deadlineNs - now + 999_999_999) / 1_000_000_000) : 0
    }

    /// Whether the sleep timer's fade is under way.
    public var isFadingToSleep: Bool { sleepTimer?.fading ?? false }

    /// Sets the sleep timer to `seconds` from now (nil or 0: off).
    public func setSleepTimer(seconds: Int?) {
        cancelSleepTimer()
        guard let seconds, seconds > 0 else {
            recorder.saveSoon()
            return
        }
        let deadline = scheduler.nowNanoseconds + UInt64(seconds) * 1_000_000_000
        let fadeIn = max(0, seconds - Self.sleepFadeSeconds)
        let fadeTimer = scheduler.schedule(afterMilliseconds: fadeIn * 1000) { [weak self] in self?.startSleepFade() }
        let endTimer = scheduler.schedule(afterMilliseconds: seconds * 1000) { [weak self] in self?.sleepTimerEnded() }
        sleepTimer = SleepTimer(deadlineNs: deadline, fadeTimer: fadeTimer, endTimer: endTimer, fading: false)
        Log.info("sleep timer: \(seconds / 60) min \(seconds % 60) s")
        recorder.saveSoon()
    }

    /// The next setting of the cycle: off → 15 → 30 → … → off (from the current setting's
    /// minutes, or from off).
    func cycleSleepTimer() {
        let choices = config.sleepMinutes
        let current = sleepTimer?.minutes
        let next: Int?
        if let current, let at = choices.firstIndex(of: current) {
            next = at + 1 < choices.count ? choices[at + 1] : nil
        } else if sleepTimer != nil {
            // A restored or odd time: the first choice above what is left, else off.
            let left = (sleepRemainingSeconds ?? 0) / 60
            next = choices.first { $0 > left }
        } else {
            next = choices.first
        }
        setSleepTimer(seconds: next.map { $0 * 60 })
        if let next { sleepTimer?.minutes = next }
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

    /// The countdown shown on now playing ("sleep 29:40"), nil when off.
    var sleepCountdown: String? {
        guard let left = sleepRemainingSeconds else { return nil }
        let seconds = left % 60
        return "sleep \(left / 60):\(seconds < 10 ? "0" : "")\(seconds)"
    }

    func cancelSleepTimer() {
        guard let timer = sleepTimer else { return }
        scheduler.cancel(timer.fadeTimer)
        scheduler.cancel(timer.endTimer)
        if timer.fading { engine.cancelFade() }
        sleepTimer = nil
    }

    private func startSleepFade() {
        guard var timer = sleepTimer else { return }
        timer.fading = true
        sleepTimer = timer
        let left = Int((timer.deadlineNs - min(timer.deadlineNs, scheduler.nowNanoseconds)) / 1_000_000)
        engine.fadeOut(overMilliseconds: max(1, left))
        Log.info("sleep timer: fading out over \(left) ms")
        refreshScreen()
    }

    private func sleepTimerEnded() {
        guard let timer = sleepTimer else { return }
        sleepTimer = nil
        Log.notice("sleep timer ended: \(config.sleepAction == .poweroff ? "powering off" : "stopping")")
        if config.sleepAction == .poweroff {
            requestShutdown()
        } else {
            if status != .stopped { stop() }
        }
        // After the stop the engine is silent anyway; the next play is at the set volume.
        if timer.fading { engine.cancelFade() }
        recorder.saveSoon()
        refreshScreen()
    }
}

/// A running sleep timer: when it ends, its two timers, whether the fade has begun, and the
/// choice of the cycle it came from. Thread: a value of the player's.
struct SleepTimer {
    var deadlineNs: UInt64
    var fadeTimer: TimerID
    var endTimer: TimerID
    var fading: Bool
    var minutes: Int?
}
