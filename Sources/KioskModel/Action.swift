// SPDX-License-Identifier: GPL-3.0-or-later
/// What a person asked the player to do, whichever input they used. The board profile's action
/// names (`boards/README.md`) are the raw values.
///
/// Thread: a value; any thread.
public enum Action: String, CaseIterable, Sendable {
    case playPause = "play-pause"
    case play
    case pause
    case stop
    case next
    case previous
    case volumeUp = "volume-up"
    case volumeDown = "volume-down"
    case nextCategory = "next-category"
    case previousCategory = "previous-category"
    case nextCollection = "next-collection"
    case previousCollection = "previous-collection"
    case up
    case down
    case select
    case back
    case menu
    case help
    case shutdown
    /// Cycles the shuffle: off, tracks, albums.
    case shuffle
    /// Cycles the sleep timer: off, then each of the config's `sleepMinutes`.
    case sleep
    /// Plays the selected (in browse) or playing collection from its first track, whatever its
    /// bookmark says.
    case playFromStart = "play-from-start"
    /// Locks every input but this action (and remote clients), or unlocks (`Player.locked`).
    case lock
    /// Moves forward in the track (a `hold` on next: `inputs.seek` says how far each repeat goes).
    case seekForward = "seek-forward"
    /// Moves back in the track (a `hold` on previous).
    case seekBackward = "seek-backward"
    /// The parent's override of the bedtime rules: off until their reset hour, or on again.
    case parentOverride = "parent-override"
    /// Bluetooth headphones on (the remembered pair, connected) or off again (the speaker): the way
    /// out of Bluetooth mode works whether the headphones are there or not.
    case bluetooth
    /// Pairs new Bluetooth headphones (put in pairing mode), spoken step by step.
    case bluetoothPair = "bluetooth-pair"

    /// Every action name, for error messages ("actions are: play-pause, play, …").
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// One action from an input, with where and when it happened.
///
/// Thread: a value; any thread.
public struct ActionEvent: Sendable, Equatable, CustomStringConvertible {
    public let action: Action
    /// 0 for the first action of a press; 1, 2, … for the hold-repeats that follow while held.
    public let repeatCount: Int
    /// For an encoder or a relative axis: steps including acceleration (always ≥ 1; the direction is
    /// in the action). 1 for everything else.
    public let steps: Int
    /// The input, for logs and `kiosk-player inputs`: "button A", "encoder knob",
    /// "key KEY_NEXTSONG", "keyboard n", "chord A+X", "script".
    public let source: String
    /// When it happened: CLOCK_MONOTONIC nanoseconds, from the kernel's event timestamp where there
    /// is one (GPIO, evdev), from the gesture's deadline for long presses and repeats.
    public let timestampNs: UInt64

    public init(action: Action, repeatCount: Int = 0, steps: Int = 1, source: String, timestampNs: UInt64) {
        self.action = action
        self.repeatCount = repeatCount
        self.steps = steps
        self.source = source
        self.timestampNs = timestampNs
    }

    public var description: String {
        var text = "\(source) → \(action.rawValue)"
        if steps != 1 { text += " ×\(steps)" }
        if repeatCount > 0 { text += " (repeat \(repeatCount))" }
        return text
    }
}
