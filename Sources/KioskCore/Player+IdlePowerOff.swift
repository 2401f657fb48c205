import KioskDisplay
import KioskSystem

/// Idle power-off (config `idlePowerOffMinutes`): stopped or paused with no input that long, a
/// warning shows for `powerOffWarningSeconds` ("Switching off — press any button"), then the box
/// shuts down by the same path as the shutdown control. Any input restarts the countdown (and a
/// press during the warning only dismisses it); playback stops it.
/// Thread: the loop thread, like `Player`.
extension Player {
    /// How long the warning shows before the power goes off.
    public static let powerOffWarningSeconds = 30

    /// Whether the power-off warning shows now.
    public var isWarningOfPowerOff: Bool { idlePowerOff?.warning ?? false }

    /// An input came: the countdown starts again from the full time.
    func restartIdlePowerOff() {
        cancelIdlePowerOff()
        followIdlePowerOff()
    }

    /// After any change: the countdown runs while stopped or paused, not while playing.
    func followIdlePowerOff() {
        let minutes = config.idlePowerOffMinutes
        guard minutes > 0, !shuttingDown else { return }
        if status == .playing {
            cancelIdlePowerOff()
        } else if idlePowerOff == nil {
            let timer = scheduler.schedule(afterMilliseconds: minutes * 60_000) { [weak self] in
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
        Log.notice(
            "idle for \(config.idlePowerOffMinutes) min (\(status.rawValue)): switching off in \(Self.powerOffWarningSeconds) s unless a button is pressed"
        )
        let timer = scheduler.schedule(afterMilliseconds: Self.powerOffWarningSeconds * 1000) { [weak self] in
            guard let self else { return }
            self.idlePowerOff = nil
            Log.notice("idle power-off")
            self.requestShutdown()
        }
        idlePowerOff = (timer, true)
        showTransient(
            MessageState(title: "Switching off", detail: "Press any button to keep playing", kind: .info),
            seconds: Self.powerOffWarningSeconds)
        refreshScreen()
    }
}
