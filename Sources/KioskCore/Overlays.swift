// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// What shows over or beside the screens: a transient message ("USB stick removed", "Shuffle:
/// tracks") that times out, the volume overlay after a change, the status line (an output fallback,
/// the under-voltage warning) and what `kiosk-player doctor` found wrong at start.
///
/// Thread: the loop thread (the scheduler's) only.
final class Overlays {
    private let scheduler: any Scheduler
    /// Called when a message timed out (the screen is drawn again).
    var onExpired: () -> Void = {}
    private var transient: (message: MessageState, timer: TimerID)?
    /// nil until the volume is first changed; then the current volume (the display shows the
    /// overlay when this value changes and hides it by itself).
    private(set) var volume: Int?
    /// The output's line on the now-playing screen (nil: none).
    private(set) var outputLine: String?
    /// The doctor's findings and the under-voltage warning.
    private(set) var setupCheck = SetupCheckState()

    init(scheduler: any Scheduler) {
        self.scheduler = scheduler
    }

    /// The message showing now.
    var message: MessageState? { transient?.message }

    /// Shows `message` for `seconds` (replacing one that shows).
    func show(_ message: MessageState, seconds: Int) {
        scheduler.assertInLoop()
        clearMessage()
        let timer = scheduler.schedule(afterMilliseconds: seconds * 1000) { [weak self] in
            self?.transient = nil
            self?.onExpired()
        }
        transient = (message, timer)
    }

    func clearMessage() {
        if let t = transient { scheduler.cancel(t.timer) }
        transient = nil
    }

    /// The volume changed to `level`: the overlay shows it.
    func showVolume(_ level: Int) { volume = level }

    /// The overlay belongs to the now-playing screen; elsewhere it is dropped, so that it does not
    /// pop up later when that screen returns.
    func dropVolume() { volume = nil }

    /// The output's line (a fallback, the device unplugged), nil for none.
    func showOutput(_ line: String?) { outputLine = line }

    /// What the doctor found wrong at start.
    func setSetupProblems(_ problems: [SetupCheckState.Problem]) { setupCheck.problems = problems }

    /// The under-voltage warning, nil when the power is good again; false when nothing changed.
    func setPowerWarning(_ warning: String?) -> Bool {
        guard setupCheck.powerWarning != warning else { return false }
        setupCheck.powerWarning = warning
        return true
    }

    /// The status line: the under-voltage warning while it lasts, else the output's line.
    var statusLine: String? { setupCheck.powerWarning ?? outputLine }
}
