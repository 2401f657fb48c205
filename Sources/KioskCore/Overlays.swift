// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// What shows over or beside the screens: a transient message ("USB stick removed", "Shuffle:
/// tracks") that times out, the volume overlay after a change, the status line (an output fallback,
/// the under-voltage warning) and what `kiosk-player doctor` found wrong at start. A part of the
/// player: its state changes only in `handle`, which returns what must follow (a timer for the
/// message's end, a redraw).
///
/// Thread: any (a value); the player's copy lives on the loop thread.
struct Overlays: Equatable {
    private var transientMessage: MessageState?
    /// Counts the messages shown: a message's timer names the one it ends, so a timer of a message
    /// replaced since ends nothing.
    private var generation = 0
    /// nil until the volume is first changed; then the current volume (the display shows the
    /// overlay when this value changes and hides it by itself).
    private(set) var volume: Int?
    /// The output's line on the now-playing screen (nil: none).
    private(set) var outputLine: String?
    /// The doctor's findings and the under-voltage warning.
    private(set) var setupCheck = SetupCheckState()

    /// The message showing now.
    var message: MessageState? { transientMessage }

    /// What happens to the overlays.
    enum Event: Equatable {
        /// Show a message for `seconds` (replacing one that shows).
        case show(MessageState, seconds: Int)
        case clearMessage
        /// The timer of message `generation` fired.
        case messageTimedOut(generation: Int)
        /// The volume changed to this level: the overlay shows it.
        case volume(Int)
        /// The overlay belongs to the now-playing screen; elsewhere it is dropped, so that it does
        /// not pop up later when that screen returns.
        case dropVolume
        /// The output's line (a fallback, the device unplugged), nil for none.
        case outputLine(String?)
        /// What the doctor found wrong at start.
        case setupChecked([SetupCheckState.Line])
        /// The under-voltage warning, nil when the power is good again.
        case powerWarning(String?)
    }

    mutating func handle(_ event: Event) -> [PlayerEffect] {
        switch event {
        case .show(let message, let seconds):
            generation &+= 1
            transientMessage = message
            return [.after(milliseconds: seconds * 1000, .messageTimedOut(generation: generation))]
        case .clearMessage:
            transientMessage = nil
            return []
        case .messageTimedOut(let ended):
            guard ended == generation, transientMessage != nil else { return [] }
            transientMessage = nil
            return [.redraw]
        case .volume(let level):
            volume = level
            return []
        case .dropVolume:
            volume = nil
            return []
        case .outputLine(let line):
            outputLine = line
            return []
        case .setupChecked(let lines):
            setupCheck.lines = lines
            setupCheck.checked = true
            return []
        case .powerWarning(let warning):
            guard setupCheck.powerWarning != warning else { return [] }
            setupCheck.powerWarning = warning
            return [.redraw]
        }
    }

    /// The status line: the under-voltage warning while it lasts, else the output's line.
    var statusLine: String? { setupCheck.powerWarning ?? outputLine }
}
