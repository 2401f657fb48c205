import KioskSystem
import KioskTestSupport

// SPDX-License-Identifier: GPL-3.0-or-later
@testable import KioskConfig
@testable import KioskCore

/// Local time in a test's own zone, without the process's TZ (which other tests share): UTC, or
/// Europe/Berlin by the EU's rule (summer time from the last Sunday of March, 01:00 UTC, to the
/// last Sunday of October, 01:00 UTC).
///
/// Thread: any (functions).
enum TestZone {
    static func utc(_ epochSeconds: Int) -> ExhibitClock.Local { local(epochSeconds, offset: 0) }

    static func berlin(_ epochSeconds: Int) -> ExhibitClock.Local {
        let year = civil(Int((Double(epochSeconds) / 86_400).rounded(.down))).year
        let summer = lastSunday(year: year, month: 3) * 86_400 + 3600
        let winter = lastSunday(year: year, month: 10) * 86_400 + 3600
        return local(epochSeconds, offset: (summer..<winter).contains(epochSeconds) ? 7200 : 3600)
    }

    /// Seconds since 1970 of local `hour`:`minute` on `year-month-day` at UTC offset `offset`.
    static func epoch(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, offset: Int = 0) -> Int {
        ExhibitClock.daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 - offset
    }

    private static func local(_ epochSeconds: Int, offset: Int) -> ExhibitClock.Local {
        let seconds = epochSeconds + offset
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let date = civil(days)
        let minute = (seconds - days * 86_400) / 60
        let text = "\(date.year)-\(date.month < 10 ? "0" : "")\(date.month)-\(date.day < 10 ? "0" : "")\(date.day)"
        return ExhibitClock.Local(weekday: ((days % 7) + 11) % 7, minute: minute, date: text, day: days)
    }

    /// The civil date of a day number (Howard Hinnant's civil_from_days).
    private static func civil(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The day number of the last Sunday of `month`.
    private static func lastSunday(year: Int, month: Int) -> Int {
        let last = ExhibitClock.daysSinceEpoch(year: year, month: month + 1, day: 1) - 1
        return last - ((last % 7) + 11) % 7
    }
}

/// The bedtime rules on a test's clocks: a wall clock (which a test may set, jump or unsynchronise)
/// and a monotonic clock that only moves forward, both moved by `pass`, which rings the rules'
/// timer on the way as the player would. What the rules returned is kept in `effects`.
///
/// Thread: the test's (a value).
struct RulesClock {
    var rules: BedtimeRules
    var wall: Int
    var monotonic: UInt64 = 1_000_000_000
    var synchronized = true
    private(set) var effects: [PlayerEffect] = []
    private var tickAt: UInt64?

    init(_ config: BedtimeConfig, at wall: Int, zone: @escaping @Sendable (Int) -> ExhibitClock.Local = TestZone.utc) {
        rules = BedtimeRules(config: config, local: zone)
        self.wall = wall
        take(rules.handle(.restarted(nil, reading)))
    }

    var reading: BedtimeRules.Reading {
        BedtimeRules.Reading(wallSeconds: wall, monotonicNs: monotonic, synchronized: synchronized)
    }

    /// Keeps `new` and the timer it asks for.
    private mutating func take(_ new: [PlayerEffect]) {
        effects += new
        for case .armBedtime(let milliseconds) in new { tickAt = monotonic + UInt64(milliseconds) * 1_000_000 }
    }

    /// Lets `seconds` pass on both clocks, ringing the rules' timer when it falls due.
    mutating func pass(seconds: Int) {
        let end = monotonic + UInt64(seconds) * 1_000_000_000
        while let at = tickAt, at <= end {
            wall += Int((at - monotonic) / 1_000_000_000)
            monotonic = at
            tickAt = nil
            take(rules.handle(.tick(reading)))
        }
        wall += Int((end - monotonic) / 1_000_000_000)
        monotonic = end
    }

    mutating func pass(minutes: Int) { pass(seconds: minutes * 60) }

    /// Effects from now on only.
    mutating func forget() { effects = [] }

    /// Asks to play `key` (a bedtime item or not); the rules' answer: refused, the one more
    /// story, or nil (plays).
    @discardableResult
    mutating func play(_ key: String = "Stories/01.flac", bedtimeItem: Bool = false) -> BedtimeRules.Outcome? {
        forget()
        take(rules.handle(.playRequested(.init(key: key, isBedtimeItem: bedtimeItem), reading)))
        for case .bedtime(let outcome) in effects {
            switch outcome {
            case .refused, .oneMore: return outcome
            default: continue
            }
        }
        return nil
    }

    mutating func stop() { take(rules.handle(.playStopped(reading))) }

    mutating func handle(_ event: BedtimeRules.Event) { take(rules.handle(event)) }

    /// The outcomes shown or said since `forget` (saves left out).
    var outcomes: [BedtimeRules.Outcome] {
        effects.compactMap {
            if case .bedtime(let outcome) = $0, !outcome.isSave { outcome } else { nil }
        }
    }

    /// Whether the rules stopped playback since `forget`.
    var stopped: Bool { effects.contains(.stopPlayback) }

    /// The fade asked for since `forget`, in milliseconds.
    var fade: Int? {
        effects.lazy.compactMap { if case .engine(.fadeOut(let ms)) = $0 { ms } else { nil } }.first
    }
}

extension BedtimeRules.Outcome {
    var isSave: Bool { if case .save = self { true } else { false } }
}
