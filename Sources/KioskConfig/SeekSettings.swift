// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// How far a held next/previous moves (`inputs.seek` of config.json):
///
/// ```json
/// "inputs": { "seek": { "stepSeconds": 10, "accelerateAfterMs": 3000, "acceleratedStepSeconds": 30,
///                       "intervalMs": 500 } }
/// ```
/// Thread: a value; any thread.
public struct SeekSettings: Sendable, Equatable {
    /// Seconds each step moves at first.
    public var stepSeconds = 10
    /// After seeking this long in one hold, the steps are `acceleratedStepSeconds`.
    public var accelerateAfterMs = 3000
    public var acceleratedStepSeconds = 30
    /// At most one step this often: the inputs' hold-repeat (150 ms) would scrub too fast to aim.
    public var intervalMs = 500

    public init(
        stepSeconds: Int = 10, accelerateAfterMs: Int = 3000, acceleratedStepSeconds: Int = 30, intervalMs: Int = 500
    ) {
        self.stepSeconds = stepSeconds
        self.accelerateAfterMs = accelerateAfterMs
        self.acceleratedStepSeconds = acceleratedStepSeconds
        self.intervalMs = intervalMs
    }

    /// Reads the `seek` object of `inputs`; errors name the key ("inputs.seek.stepSeconds").
    public static func parse(_ reader: JSONReader) throws(ConfigError) -> SeekSettings {
        var settings = SeekSettings()
        if let v = try reader.int("stepSeconds", range: 1...600) { settings.stepSeconds = v }
        if let v = try reader.int("accelerateAfterMs", range: 0...600_000) { settings.accelerateAfterMs = v }
        if let v = try reader.int("acceleratedStepSeconds", range: 1...3600) { settings.acceleratedStepSeconds = v }
        if let v = try reader.int("intervalMs", range: 0...10_000) { settings.intervalMs = v }
        if settings.acceleratedStepSeconds < settings.stepSeconds {
            throw reader.error(
                "acceleratedStepSeconds",
                "\(settings.acceleratedStepSeconds) must be at least stepSeconds (\(settings.stepSeconds))")
        }
        try reader.finish()
        return settings
    }
}
