// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// Timing of gestures: from the `inputs` object of config.json. (Its `keymap` changes the
/// profile's actions: `InputProfile.applyKeymap`.)
///
/// ```json
/// "inputs": { "debounceMs": 5, "longPressMs": 600, "repeatDelayMs": 400, "repeatMs": 150, "chordMs": 200,
///   "doublePressMs": 300 }
/// ```
/// Thread: a value; any thread.
public struct InputSettings: Sendable, Equatable {
    /// Software debounce of GPIO buttons whose line has no `debounceMs` of its own (0 = none).
    public var debounceMs: Int = 5
    /// A press held this long is a long press (and no short press).
    public var longPressMs: Int = 600
    /// A `hold` action first repeats after this long …
    public var repeatDelayMs: Int = 400
    /// … and then every this often while held.
    public var repeatMs: Int = 150
    /// The buttons of a chord must all go down within this window (from the first one's press).
    /// Less than `longPressMs` and `repeatDelayMs`.
    public var chordMs: Int = 200
    /// A second press of a button with `doublePress` within this long after the first's release
    /// makes a double press (the first alone acts only then).
    public var doublePressMs: Int = 300

    public init(
        debounceMs: Int = 5, longPressMs: Int = 600, repeatDelayMs: Int = 400, repeatMs: Int = 150,
        chordMs: Int = 200, doublePressMs: Int = 300
    ) {
        self.debounceMs = debounceMs
        self.longPressMs = longPressMs
        self.repeatDelayMs = repeatDelayMs
        self.repeatMs = repeatMs
        self.chordMs = chordMs
        self.doublePressMs = doublePressMs
    }

    /// The keys `parse` reads, for `JSONReader.finish(known:)`.
    public static let keys = ["debounceMs", "longPressMs", "repeatDelayMs", "repeatMs", "chordMs", "doublePressMs"]

    /// Reads the timing keys of the `inputs` object of config.json (only the keys above; the
    /// caller reads the others and calls `finish`).
    public static func parse(_ reader: JSONReader) throws(ConfigError) -> InputSettings {
        var settings = InputSettings()
        if let v = try reader.int("debounceMs", range: 0...100) { settings.debounceMs = v }
        if let v = try reader.int("longPressMs", range: 100...10_000) { settings.longPressMs = v }
        if let v = try reader.int("repeatDelayMs", range: 50...5000) { settings.repeatDelayMs = v }
        if let v = try reader.int("repeatMs", range: 20...2000) { settings.repeatMs = v }
        if let v = try reader.int("chordMs", range: 0...1000) { settings.chordMs = v }
        if let v = try reader.int("doublePressMs", range: 100...1000) { settings.doublePressMs = v }
        if settings.chordMs >= min(settings.longPressMs, settings.repeatDelayMs) {
            throw reader.error(
                "chordMs",
                "\(settings.chordMs) ms must be shorter than longPressMs (\(settings.longPressMs)) and repeatDelayMs (\(settings.repeatDelayMs))"
            )
        }
        return settings
    }
}
