// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// Bedtime rules (`bedtime` in config.json): the weekly windows when the box plays, a silent night
/// that ends at the wake time, the bedtime items that may still play outside the windows, a daily
/// listening budget, one more story per night and the warning before the end. Every key is
/// optional; a rule left out does not apply (`BedtimeRules` in KioskCore keeps them).
///
/// Thread: a value; any.
public struct BedtimeConfig: Sendable, Equatable {
    /// What may still play outside the windows and after the budget (a lullaby, a chapter).
    public enum Item: Sendable, Equatable, CustomStringConvertible {
        /// Whatever a card with this number starts.
        case card(CardUID)
        /// Every track under this folder of a stick (relative to its top).
        case folder(String)
        /// One file of a stick (relative to its top).
        case track(String)

        /// Whether the track at `relativePath` (inside its stick) is this folder or file (what a
        /// card plays, the player knows from its link).
        public func admits(relativePath: String) -> Bool {
            switch self {
            case .card: false
            case .folder(let folder): relativePath.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
            case .track(let path): relativePath == path
            }
        }

        public var description: String {
            switch self {
            case .card(let uid): "card \(uid.rawValue)"
            case .folder(let folder): "folder \(folder)"
            case .track(let path): "track \(path)"
            }
        }
    }

    /// The one more story a night: one more track, or this many minutes.
    public enum OneMore: Sendable, Equatable {
        case track
        case minutes(Int)
    }

    /// When the box plays, on local time (none: any time of day). The same lines as an exhibit's
    /// opening hours.
    public var windows: [OpeningHours] = []
    /// The end of the silent night (minutes since local midnight; nil: no silent night).
    public var wake: Int?
    /// The start of the silent night (minutes since local midnight).
    public var silentFrom = 0
    public var items: [Item] = []
    /// Minutes of playing a day (nil: no budget).
    public var dailyMinutes: Int?
    /// When a new day begins for the budget and the one more story (minutes since local midnight).
    public var resetAt = 4 * 60
    public var oneMore: OneMore?
    /// Minutes between the announcement and the end (0: no announcement, the fade alone).
    public var warningMinutes = 2
    /// Whether the announcements are spoken even when `speech.mode` is off.
    public var speak = true

    public init() {}

    /// Whether local `minute` (since midnight) lies in the silent night.
    public func isSilent(minute: Int) -> Bool {
        guard let wake, wake != silentFrom else { return false }
        return silentFrom < wake ? (silentFrom..<wake).contains(minute) : minute >= silentFrom || minute < wake
    }

    /// Whether the windows have the box playing at `weekday` (0 Sunday) `minute` (no windows: always).
    public func isInWindow(weekday: Int, minute: Int) -> Bool {
        OpeningHours.isOpen(windows, weekday: weekday, minute: minute)
    }

    // MARK: - parsing

    /// Reads the `bedtime` object; errors name the key (`bedtime.windows[1].close`).
    public static func parse(_ r: JSONReader) throws(ConfigError) -> BedtimeConfig {
        var c = BedtimeConfig()
        if let lines = try r.objects("windows", maxCount: 50) {
            guard !lines.isEmpty else {
                throw r.error("windows", "expected at least one window, or no \"windows\" (any time of day)")
            }
            for line in lines { c.windows.append(try OpeningHours.parse(line)) }
        }
        c.wake = try time(r, "wake")
        if let from = try time(r, "silentFrom") {
            guard c.wake != nil else { throw r.error("silentFrom", "needs \"wake\", the end of the silent night") }
            c.silentFrom = from
        }
        if let wake = c.wake, wake == c.silentFrom {
            throw r.error("wake", "the same as silentFrom (\(OpeningHours.text(wake))): no silent night is left")
        }
        for item in try r.objects("allowed", maxCount: 32) ?? [] { c.items.append(try parseItem(item)) }
        c.dailyMinutes = try r.int("dailyMinutes", range: 1...1440)
        c.resetAt = try time(r, "resetAt") ?? c.resetAt
        if let raw = r.raw("oneMore") {
            if raw.string == "track" {
                c.oneMore = .track
            } else if raw.object != nil, let more = try r.object("oneMore"),
                let minutes = try more.int("minutes", range: 1...120)
            {
                try more.finish()
                c.oneMore = .minutes(minutes)
            } else {
                throw r.error("oneMore", "expected \"track\" or {\"minutes\": 1…120}, got \(JSONReader.show(raw))")
            }
        }
        c.warningMinutes = try r.int("warningMinutes", range: 0...30) ?? c.warningMinutes
        c.speak = try r.bool("speak") ?? c.speak
        try r.finish()
        return c
    }

    /// A local time "HH:MM" at `key`, in minutes since midnight.
    private static func time(_ r: JSONReader, _ key: String) throws(ConfigError) -> Int? {
        guard let text = try r.string(key) else { return nil }
        guard let minute = OpeningHours.parseTime(text) else {
            throw r.error(key, "expected a time \"HH:MM\" (00:00…23:59), got \"\(text)\"")
        }
        return minute
    }

    /// `{"card": "04A2B3C4"}`, `{"folder": "Lullabies"}` or `{"track": "Stories/Moon.mp3"}`.
    private static func parseItem(_ r: JSONReader) throws(ConfigError) -> Item {
        let kinds = ["card", "folder", "track"].filter { r.has($0) }
        guard kinds.count == 1, let text = try r.string(kinds[0]) else {
            throw r.error(kinds.first ?? "card", "expected exactly one of \"card\", \"folder\" or \"track\"")
        }
        let item: Item
        switch kinds[0] {
        case "card":
            guard let uid = CardUID(text) else {
                throw r.error("card", "expected a card number such as \"04A2B3C4\", got \"\(text)\"")
            }
            item = .card(uid)
        default:
            if text.hasPrefix("/") || text.split(separator: "/").contains("..") || text.utf8.contains(0) {
                throw r.error(kinds[0], "\"\(text)\" must be a path inside the stick (relative, no \"..\")")
            }
            item = kinds[0] == "folder" ? .folder(text) : .track(text)
        }
        try r.finish()
        return item
    }

    /// The rules as `check-config` prints them.
    public func json() -> JSONValue {
        let windows = windows.map { line -> JSONValue in
            .object([
                ("days", .string(OpeningHours.dayText(line.days))), ("open", .string(OpeningHours.text(line.open))),
                ("close", .string(OpeningHours.text(line.close))),
            ])
        }
        let items = items.map { item -> JSONValue in
            switch item {
            case .card(let uid): .object([("card", .string(uid.rawValue))])
            case .folder(let folder): .object([("folder", .string(folder))])
            case .track(let path): .object([("track", .string(path))])
            }
        }
        let oneMore: JSONValue =
            switch oneMore {
            case .track: .string("track")
            case .minutes(let n): .object([("minutes", .number(Double(n)))])
            case nil: .null
            }
        let members: [(String, JSONValue)] = [
            ("windows", windows.isEmpty ? .string("any time") : .array(windows)),
            ("wake", wake.map { .string(OpeningHours.text($0)) } ?? .null),
            ("silentFrom", wake == nil ? .null : .string(OpeningHours.text(silentFrom))),
            ("allowed", .array(items)),
            ("dailyMinutes", dailyMinutes.map { .number(Double($0)) } ?? .null),
            ("resetAt", .string(OpeningHours.text(resetAt))),
            ("oneMore", oneMore),
            ("warningMinutes", .number(Double(warningMinutes))),
            ("speak", .bool(speak)),
        ]
        return .object(members)
    }
}
