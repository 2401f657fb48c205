// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// What the box shows on its status light: the player's state, as the light tells it apart.
/// There is no low-power state: the player does not watch the supply (only `doctor` reads the
/// under-voltage flags), so no light pattern can follow it.
public enum LightState: String, Sendable, CaseIterable {
    case playing, paused, stopped, linking, error
    /// The supply's voltage is too low (the Pi's under-voltage alarm): the box may reset or
    /// corrupt the SD card, and the sound may crackle.
    case lowPower
    /// Exhibit mode, open and waiting for a visitor (the attract loop or silence): the light says
    /// the station is alive and a press will play.
    case ready
    /// Exhibit mode outside its opening hours: inputs are ignored.
    case closed
    /// Bedtime: the announcement was made, the end comes within minutes (`bedtime` in config.json).
    case sleepSoon
    /// The battery is low and the box runs from it (`battery` in config.json): "Battery low" was
    /// said; the box turns itself off at the empty level.
    case batteryLow
}

/// How a light shows a state: on, off, or blinking at 1 Hz (`slow`) or 4 Hz (`fast`), half on
/// and half off.
public enum LightPattern: String, Sendable, CaseIterable {
    case steady, slow, fast, off

    /// How long the light stays on, then off, while blinking; nil for a steady level.
    public var halfPeriodMilliseconds: Int? {
        switch self {
        case .slow: 500
        case .fast: 125
        case .steady, .off: nil
        }
    }
}

/// The GPIO output lines of a board profile (`outputs`, boards/README.md): a status light with a
/// pattern per `LightState`, an optional second light for errors, and a power latch held active
/// while the player runs. The one home of the state → pattern mapping.
///
/// Thread: any (a value).
public struct BoardOutputs: Sendable, Equatable {
    /// One output line of the board's GPIO chip.
    public struct Line: Sendable, Equatable {
        public var line: Int
        /// Active (lit, latched) at the low physical level.
        public var activeLow: Bool

        /// The config.txt line that makes the firmware drive this line active from power-on
        /// (raspberrypi/documentation config-txt/gpio.md: `op` output, `dh`/`dl` driven high/low).
        public var heldConfigTxt: String { "gpio=\(line)=op,\(activeLow ? "dl" : "dh")" }

        public init(line: Int, activeLow: Bool = false) {
            self.line = line
            self.activeLow = activeLow
        }
    }

    /// The patterns when the profile names none for a state.
    public static let defaultPatterns: [LightState: LightPattern] = [
        .playing: .steady, .paused: .slow, .stopped: .off, .linking: .fast, .error: .fast, .lowPower: .fast,
        .ready: .slow, .closed: .off, .sleepSoon: .slow, .batteryLow: .fast,
    ]

    public var statusLight: Line?
    /// A second light that shows only errors (in the error pattern).
    public var errorLight: Line?
    public var patterns = BoardOutputs.defaultPatterns
    /// Held active while the player runs; `kiosk-player power-latch release` lets it go at power-off.
    public var powerLatch: Line?

    public init() {}

    /// Nothing is configured.
    public var isEmpty: Bool { statusLight == nil && errorLight == nil && powerLatch == nil }

    /// What the status light and the error light show in `state`. With an error light, an error
    /// or low power shows there alone and the status light keeps showing playback (nil: keep its
    /// pattern).
    public func patterns(for state: LightState) -> (status: LightPattern?, error: LightPattern) {
        let shown = patterns[state] ?? .off
        guard errorLight != nil else { return (shown, .off) }
        return state == .error || state == .lowPower ? (nil, shown) : (shown, .off)
    }

    /// The lines and what uses them, for the profile's conflict check.
    public var usedLines: [(line: Int, use: String)] {
        [(statusLight, "the status light"), (errorLight, "the error light"), (powerLatch, "the power latch")]
            .compactMap { line, use in line.map { ($0.line, use) } }
    }

    /// Parses the `outputs` object of a board profile; errors name the key.
    public static func parse(_ r: JSONReader) throws(ConfigError) -> BoardOutputs {
        var outputs = BoardOutputs()
        outputs.statusLight = try line(r, "statusLight") { light throws(ConfigError) in
            guard let patterns = try light.object("patterns") else { return }
            for state in LightState.allCases {
                if let pattern = try patterns.choice(state.rawValue, LightPattern.self) {
                    outputs.patterns[state] = pattern
                }
            }
            try patterns.finish(known: LightState.allCases.map(\.rawValue))
        }
        outputs.errorLight = try line(r, "errorLight") { _ throws(ConfigError) in }
        outputs.powerLatch = try line(r, "powerLatch") { _ throws(ConfigError) in }
        if outputs.errorLight != nil && outputs.statusLight == nil {
            throw r.error("errorLight", "needs a statusLight too (the error light shows only errors)")
        }
        try r.finish(known: ["statusLight", "errorLight", "powerLatch"])
        return outputs
    }

    private static func line(
        _ r: JSONReader, _ key: String, more: (JSONReader) throws(ConfigError) -> Void
    ) throws(ConfigError) -> Line? {
        guard let object = try r.object(key) else { return nil }
        guard let number = try object.int("line", range: 0...4095) else { throw object.error("line", "required") }
        let activeLow = try object.bool("activeLow") ?? false
        try more(object)
        try object.finish()
        return Line(line: number, activeLow: activeLow)
    }
}
