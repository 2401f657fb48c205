// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// One line of an exhibit's opening hours: on `days`, open from `open` to `close` (minutes since
/// local midnight). A close before the open runs past midnight into the next day (a bar's 18:00–02:00).
///
/// Decided on local wall-clock time (weekday, hour, minute) each time it is asked, so a DST change
/// or a clock set by NTP takes effect at the next check; nothing is scheduled ahead.
///
/// Thread: a value; any.
public struct OpeningHours: Sendable, Equatable {
    /// Weekdays as `tm_wday` counts them: 0 Sunday … 6 Saturday.
    public var days: Set<Int>
    public var open: Int
    public var close: Int

    public init(days: Set<Int>, open: Int, close: Int) {
        self.days = days
        self.open = open
        self.close = close
    }

    static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// Whether this line has the exhibit open at `weekday` (0 Sunday) `minute` (since midnight).
    public func isOpen(weekday: Int, minute: Int) -> Bool {
        if open < close { return days.contains(weekday) && (open..<close).contains(minute) }
        // Past midnight: the evening part belongs to its day, the morning part to the day before.
        if days.contains(weekday) && minute >= open { return true }
        return days.contains((weekday + 6) % 7) && minute < close
    }

    /// Whether any of `hours` has the exhibit open then (no hours: always).
    public static func isOpen(_ hours: [OpeningHours], weekday: Int, minute: Int) -> Bool {
        hours.isEmpty || hours.contains { $0.isOpen(weekday: weekday, minute: minute) }
    }

    /// Reads `{"days": "mon-fri", "open": "09:00", "close": "17:30"}`; errors name the key.
    static func parse(_ r: JSONReader) throws(ConfigError) -> OpeningHours {
        guard let dayText = try r.string("days") else { throw r.error("days", "needs \"days\", e.g. \"mon-fri\"") }
        guard let days = parseDays(dayText) else {
            throw r.error(
                "days", "expected days such as \"mon-fri\", \"sat,sun\" or \"daily\", got \"\(dayText)\"")
        }
        guard let openText = try r.string("open"), let open = parseTime(openText) else {
            throw r.error("open", "expected a time \"HH:MM\" (00:00…23:59)")
        }
        guard let closeText = try r.string("close"), let close = parseTime(closeText, allowMidnightEnd: true) else {
            throw r.error("close", "expected a time \"HH:MM\" (00:00…24:00)")
        }
        guard open != close % 1440 else {
            throw r.error("close", "the same as open: use two lines, or no hours at all")
        }
        try r.finish()
        return OpeningHours(days: days, open: open, close: close == 1440 ? 0 : close)
    }

    /// "mon-fri", "sat,sun", "mon,wed-fri", "daily".
    static func parseDays(_ text: String) -> Set<Int>? {
        if text == "daily" { return Set(0..<7) }
        var days = Set<Int>()
        for part in text.lowercased().split(separator: ",", omittingEmptySubsequences: false) {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false).map {
                $0.trimmingSpaces()
            }
            guard (1...2).contains(ends.count), let first = dayNames.firstIndex(of: ends[0]),
                let last = dayNames.firstIndex(of: ends[ends.count - 1])
            else { return nil }
            var d = first
            while true {
                days.insert(d)
                if d == last { break }
                d = (d + 1) % 7
            }
        }
        return days.isEmpty ? nil : days
    }

    /// "HH:MM" of `minute` (since midnight), as the config writes it.
    public static func text(_ minute: Int) -> String {
        let h = minute / 60 % 24
        let m = minute % 60
        return "\(h < 10 ? "0" : "")\(h):\(m < 10 ? "0" : "")\(m)"
    }

    /// `days` as the config writes them: "daily", or the names in week order ("mon,tue,sat").
    static func dayText(_ days: Set<Int>) -> String {
        days.count == 7 ? "daily" : days.sorted().map { dayNames[$0] }.joined(separator: ",")
    }

    /// Minutes since midnight of "HH:MM" (24:00 only as an end).
    static func parseTime(_ text: String, allowMidnightEnd: Bool = false) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]),
            (0...59).contains(m)
        else { return nil }
        if h == 24 && m == 0 && allowMidnightEnd { return 1440 }
        guard (0...23).contains(h) else { return nil }
        return h * 60 + m
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(self.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
