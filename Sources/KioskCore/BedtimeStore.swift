// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// Where the bedtime rules' counts live (`bedtime.json` in the state directory): the day they
/// belong to, the seconds played that day, whether the one more story and the parent's override
/// were used, and the box's own time when written. Written whole and atomically by the player's
/// `StateWriter` (off the loop) at a change and every minute of playing, so a power cut loses at
/// most a minute of counting. A file that does not parse is set aside as `bedtime.json.bad` with a
/// warning, and the counts start again from none.
///
/// Thread: any (functions of values; `load` reads the file on the caller's thread, once at start).
enum BedtimeStore {
    static let fileName = "bedtime.json"
    static let format = "kiosk-player-bedtime"
    static let version = 1

    static func path(directory: String) -> String { "\(directory)/\(fileName)" }

    /// The file's text for `saved`.
    static func text(_ saved: BedtimeRules.Saved) -> String {
        let document = JSONValue.object([
            ("format", .string(format)), ("version", .number(Double(version))),
            ("day", .number(Double(saved.day))), ("usedSeconds", .number(Double(saved.usedSeconds))),
            ("oneMoreUsed", .bool(saved.oneMoreUsed)), ("overridden", .bool(saved.overridden)),
            ("lastKnownSeconds", .number(Double(saved.lastKnownSeconds))),
        ])
        return document.serialized(pretty: true) + "\n"
    }

    /// The counts saved in `directory`, nil when there are none (or they were bad).
    static func load(directory: String) -> BedtimeRules.Saved? {
        let path = path(directory: directory)
        guard Syscalls.exists(path) else { return nil }
        do {
            let r = try JSONReader.stateFile(
                try ConfigError.contents(of: path), file: path, format: format, version: version, what: "\(format) file"
            )
            func number(_ key: String, _ range: ClosedRange<Int>) throws(ConfigError) -> Int {
                guard let value = try r.int(key, range: range) else { throw r.error(key, "missing") }
                return value
            }
            let saved = BedtimeRules.Saved(
                day: try number("day", 0...1_000_000), usedSeconds: try number("usedSeconds", 0...86_400),
                oneMoreUsed: try r.bool("oneMoreUsed") ?? false, overridden: try r.bool("overridden") ?? false,
                lastKnownSeconds: try number("lastKnownSeconds", 0...Int(Int32.max) * 4))
            try r.finish()
            return saved
        } catch {
            Log.warning("ignoring the bedtime counts (kept as \(fileName).bad): \(error)")
            try? Syscalls.rename(path, path + ".bad")
            return nil
        }
    }
}
