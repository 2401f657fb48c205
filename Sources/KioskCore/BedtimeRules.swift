// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem

/// The bedtime rules (config `bedtime`) as a part of the player: whether a start may play now
/// (inside a window, before the budget is spent, not in the silent night; outside them only a
/// bedtime item, or the one more story of the night), when the announcement comes and the end
/// fades, and what is counted: the day's listening (only while playing, on the monotonic clock, so
/// no change of the wall clock adds or takes time), the one more story, the parent's override.
///
/// Time: the box's own time is the wall clock while it is synchronised, or was in this run (then
/// counted on from that reading with the monotonic clock). A Pi has no RTC: after a restart with no
/// synchronisation yet it is the last known time (saved with the counts) or the wall clock,
/// whichever is later, counted on while the box runs, so a power cut gives no new day and the time
/// never goes back. Such a time is only a lower bound: the windows and the silent night are not
/// applied on it (a child is never locked out on a guess), while the budget and the one more story
/// are, and a new day for them begins when that time passes the reset hour (or the parent's
/// override, or the first synchronisation, which brings the real day). A day that goes back (the
/// clock was set back) keeps what was counted and begins anew at the next reset hour as the clock
/// now says. Local time (weekday, minute, date, daylight saving) comes from `local`.
///
/// A part of the player: its state changes only in `handle`, which returns what the player
/// carries out (`PlayerEffect.bedtime`, `.armBedtime`, a fade, a stop); it holds no scheduler.
///
/// Thread: any (a value); the player's copy lives on the loop thread.
struct BedtimeRules {
    /// The fade before the end, at most (the sleep timer's).
    static let fadeMilliseconds = PlayerTimers.sleepFadeSeconds * 1000
    /// How often the rules look at the time when nothing is nearer.
    static let tickMilliseconds = 60_000
    /// How often the counts are saved while playing, and the last known time while not.
    static let playingSaveMilliseconds = 60_000
    static let idleSaveMilliseconds = 3_600_000

    /// The clocks as the player read them for one event.
    struct Reading: Equatable {
        /// The wall clock: seconds since 1970 UTC.
        var wallSeconds: Int
        /// The scheduler's monotonic clock.
        var monotonicNs: UInt64
        /// Whether the wall clock is synchronised (NTP, an RTC).
        var synchronized: Bool
    }

    /// What a start would play.
    struct Item: Equatable {
        /// The track (its path in its stick, or any name that tells tracks apart).
        var key: String
        /// It is one of the config's bedtime items.
        var isBedtimeItem: Bool
    }

    /// Why the box does not play, or stopped.
    enum Reason: Equatable {
        /// The silent night: nothing plays until `wake` (minutes since midnight).
        case silentNight(wake: Int)
        /// Outside the windows; the next opens at `opens` (minutes since midnight; nil: none).
        case outsideWindow(opens: Int?)
        /// The day's budget is spent; a new one begins at `resetAt`.
        case budgetSpent(resetAt: Int)
    }

    /// What the player shows, says and does for the rules.
    enum Outcome: Equatable {
        /// The start was refused (nothing plays).
        case refused(Reason)
        /// The one more story of the night plays.
        case oneMore
        /// The end comes in `minutes`: the announcement (screen, speech, light).
        case warning(minutes: Int, Reason)
        /// Playback was stopped for `reason`.
        case ended(Reason)
        /// The parent's override is on (until `resetAt`) or off.
        case overridden(on: Bool, resetAt: Int)
        /// The counts changed: `Saved` goes to the state directory.
        case save(Saved)
    }

    /// What happens.
    enum Event: Equatable {
        /// The player started, with what was saved (nil: nothing).
        case restarted(Saved?, Reading)
        /// The timer the rules asked for rang.
        case tick(Reading)
        /// Something asks to play `item` (a button, a card, a remote client, a restored queue).
        case playRequested(Item, Reading)
        /// A track ended and the engine went on to `item`, playing.
        case trackChanged(Item, Reading)
        /// Playback paused or stopped.
        case playStopped(Reading)
        /// The parent's card or chord.
        case parentOverride(Reading)
    }

    /// What survives a restart and a power cut (`BedtimeStore`).
    struct Saved: Equatable {
        /// The day the counts belong to (local days since 1970, each beginning at `resetAt`).
        var day: Int
        var usedSeconds: Int
        var oneMoreUsed: Bool
        /// The parent's override holds for the rest of `day`.
        var overridden: Bool
        /// The box's own time when saved (wall-clock seconds): an untrusted clock goes on from it.
        var lastKnownSeconds: Int
    }

    /// What plays, as the rules see it.
    private enum Kind: Equatable {
        /// Inside the rules: counted against the budget.
        case counted
        /// A bedtime item outside the windows or after the budget: not counted.
        case bedtimeItem
        /// The one more story.
        case oneMore
        /// The parent's override: nothing counted, nothing ends.
        case free
    }

    private struct Session: Equatable {
        var kind: Kind
        var key: String
        /// The one more story's end (monotonic ns), when it is minutes.
        var endsAt: UInt64?
    }

    /// The announcement was made: the stop comes at `stopAt` (monotonic ns), the fade before it.
    private struct Ending: Equatable {
        var stopAt: UInt64
        var reason: Reason
        var fading = false
    }

    let config: BedtimeConfig
    /// Local time of a wall-clock second (the process's time zone; tests give their own).
    private let local: @Sendable (Int) -> ExhibitClock.Local
    private var saved: Saved?
    /// The reading the box's own time counts on from, and whether it was synchronised.
    private var anchor: (wall: Int, monotonic: UInt64, trusted: Bool)?
    /// The monotonic clock at the last event (what plays between two events is counted).
    private var lastMonotonic: UInt64?
    private var savedAt: UInt64?
    private var session: Session?
    private var ending: Ending?
    /// Milliseconds played today, counted precisely (`Saved.usedSeconds` rounds them).
    private var usedMilliseconds = 0

    init(config: BedtimeConfig, local: @escaping @Sendable (Int) -> ExhibitClock.Local) {
        self.config = config
        self.local = local
    }

    // MARK: - what the player reads

    /// Whether the rules see something playing.
    var isPlaying: Bool { session != nil }
    /// The announcement was made and the end is coming.
    var isEnding: Bool { ending != nil }
    /// The counts as they would be saved now.
    var state: Saved? { saved }
    /// Whether the box's own time is trusted (the windows and the silent night apply).
    var isClockTrusted: Bool { anchor?.trusted ?? false }

    // MARK: - events

    mutating func handle(_ event: Event) -> [PlayerEffect] {
        switch event {
        case .restarted(let found, let reading):
            saved = found
            usedMilliseconds = (found?.usedSeconds ?? 0) * 1000
            anchor = nil
            if let found, !reading.synchronized {
                // Untrusted: the box's own time goes on from what it last knew, never back.
                anchor = (max(reading.wallSeconds, found.lastKnownSeconds), reading.monotonicNs, false)
            }
            return follow(reading) + save(reading) + nextTick(reading)
        case .tick(let reading):
            return follow(reading) + endingDue(reading) + warningDue(reading) + nextTick(reading)
        case .playRequested(let item, let reading):
            var effects = follow(reading)
            if let session, session.key == item.key { return effects + nextTick(reading) }
            effects += start(item, reading)
            return effects + warningDue(reading) + nextTick(reading)
        case .trackChanged(let item, let reading):
            var effects = follow(reading)
            guard let running = session, running.key != item.key else { return effects + nextTick(reading) }
            if running.kind == .oneMore && config.oneMore == .track {
                // The one more story was one track: the next does not play.
                session = nil
                ending = nil
                return effects + stopEffects(.outsideWindow(opens: nextOpening(reading))) + save(reading)
                    + nextTick(reading)
            }
            session = nil
            effects += start(item, reading, continuing: true)
            return effects + warningDue(reading) + nextTick(reading)
        case .playStopped(let reading):
            var effects = follow(reading)
            if let ending, ending.fading { effects.append(.engine(.cancelFade)) }
            session = nil
            ending = nil
            return effects + save(reading) + nextTick(reading)
        case .parentOverride(let reading):
            var effects = follow(reading)
            guard var counts = saved else { return effects }
            counts.overridden.toggle()
            saved = counts
            Log.notice("bedtime: the parent's override \(counts.overridden ? "on until the reset hour" : "off")")
            if counts.overridden, let running = session {
                if ending?.fading == true { effects.append(.engine(.cancelFade)) }
                ending = nil
                session = Session(kind: .free, key: running.key)
            } else if !counts.overridden, let running = session, running.kind == .free {
                session = Session(kind: .counted, key: running.key)
            }
            effects.append(.bedtime(.overridden(on: counts.overridden, resetAt: config.resetAt)))
            return effects + warningDue(reading) + save(reading) + nextTick(reading)
        }
    }

    // MARK: - time and days

    /// The box's own time at `reading`, and whether it is trusted (see the type's comment).
    private mutating func ownTime(_ reading: Reading) -> (seconds: Int, trusted: Bool) {
        if reading.synchronized {
            anchor = (reading.wallSeconds, reading.monotonicNs, true)
            return (reading.wallSeconds, true)
        }
        guard let anchor else {
            anchor = (reading.wallSeconds, reading.monotonicNs, false)
            return (reading.wallSeconds, false)
        }
        let counted = anchor.wall + Int((reading.monotonicNs &- anchor.monotonic) / 1_000_000_000)
        // Once trusted in this run the count stands; a guess follows a wall clock set forward.
        return anchor.trusted ? (counted, true) : (max(reading.wallSeconds, counted), false)
    }

    /// The day of the counts at local time `time`: local days, each beginning at `resetAt`.
    private func day(_ time: ExhibitClock.Local) -> Int { time.day - (time.minute < config.resetAt ? 1 : 0) }

    /// Counts what played since the last event, and begins a new day when one began.
    private mutating func follow(_ reading: Reading) -> [PlayerEffect] {
        if let last = lastMonotonic, let session, session.kind == .counted, reading.monotonicNs > last {
            usedMilliseconds += Int((reading.monotonicNs - last) / 1_000_000)
        }
        lastMonotonic = reading.monotonicNs
        let now = ownTime(reading)
        let today = day(local(now.seconds))
        guard var counts = saved else {
            saved = Saved(
                day: today, usedSeconds: 0, oneMoreUsed: false, overridden: false, lastKnownSeconds: now.seconds)
            return []
        }
        // The local day can go back while the time does not: the repeated hour of a daylight-saving end.
        let wentBack = now.seconds < counts.lastKnownSeconds
        counts.lastKnownSeconds = now.seconds
        var effects: [PlayerEffect] = []
        if today > counts.day {
            Log.info("bedtime: a new day (\(counts.usedSeconds / 60) min played the day before)")
            counts = Saved(
                day: today, usedSeconds: 0, oneMoreUsed: false, overridden: false, lastKnownSeconds: now.seconds)
            usedMilliseconds = 0
            if session?.kind == .free { session?.kind = .counted }
            if let coming = ending, case .budgetSpent = coming.reason {
                // The new day's budget: what plays goes on.
                if coming.fading { effects.append(.engine(.cancelFade)) }
                ending = nil
            }
            effects.append(.bedtime(.save(counts)))
        } else if today < counts.day, wentBack {
            // The clock went back: what was counted stays, the next day begins at its reset hour.
            Log.warning("bedtime: the clock went back a day or more; keeping today's counts")
            counts.day = today
            effects.append(.bedtime(.save(counts)))
        }
        counts.usedSeconds = usedMilliseconds / 1000
        saved = counts
        // Any event may be the one after a minute: track changes re-arm the timer before it rings.
        return effects + periodicSave(reading)
    }

    // MARK: - starting

    /// Whether `item` may play now, and as what; a refusal says why.
    private mutating func start(_ item: Item, _ reading: Reading, continuing: Bool = false) -> [PlayerEffect] {
        guard let counts = saved else { return [] }
        let now = ownTime(reading)
        let time = local(now.seconds)
        if counts.overridden {
            session = Session(kind: .free, key: item.key)
            return []
        }
        let refusal: Reason?
        if now.trusted, config.isSilent(minute: time.minute), let wake = config.wake {
            // Not even a bedtime item: the night is for sleeping.
            return refuse(.silentNight(wake: wake), continuing: continuing, reading)
        } else if now.trusted, !config.isInWindow(weekday: time.weekday, minute: time.minute) {
            refusal = .outsideWindow(opens: nextOpening(reading))
        } else if budgetLeftMilliseconds == 0 {
            refusal = .budgetSpent(resetAt: config.resetAt)
        } else {
            refusal = nil
        }
        guard let refusal else {
            session = Session(kind: .counted, key: item.key)
            return []
        }
        if item.isBedtimeItem {
            session = Session(kind: .bedtimeItem, key: item.key)
            return []
        }
        if !continuing, let more = config.oneMore, !counts.oneMoreUsed, oneMoreIsDue(refusal, time) {
            saved?.oneMoreUsed = true
            var endsAt: UInt64?
            if case .minutes(let minutes) = more { endsAt = reading.monotonicNs + UInt64(minutes) * 60_000_000_000 }
            session = Session(kind: .oneMore, key: item.key, endsAt: endsAt)
            Log.notice("bedtime: one more story (\(refusal))")
            var effects: [PlayerEffect] = [.bedtime(.oneMore)]
            // One track: the queue pauses at the next entry's start (MPD's single oneshot).
            if more == .track { effects.append(.command(.setSingle(.oneshot))) }
            return effects + save(reading)
        }
        return refuse(refusal, continuing: continuing, reading)
    }

    private mutating func refuse(_ reason: Reason, continuing: Bool, _ reading: Reading) -> [PlayerEffect] {
        session = nil
        ending = nil
        Log.info("bedtime: \(continuing ? "stopped" : "refused"): \(reason)")
        return continuing ? stopEffects(reason) : [.bedtime(.refused(reason))]
    }

    /// The one more story follows the budget's end, or the day's last window (no window opens
    /// again before the reset hour): not the afternoon's gap between two windows.
    private func oneMoreIsDue(_ refusal: Reason, _ time: ExhibitClock.Local) -> Bool {
        guard case .outsideWindow = refusal else { return true }
        let reset = (config.resetAt - time.minute + 1439) % 1440 + 1
        let opening = minutesUntil(time, within: reset) { config.isInWindow(weekday: $0, minute: $1) }
        return (opening ?? reset) >= reset
    }

    /// The local minute the next window opens (nil: none within a week).
    private mutating func nextOpening(_ reading: Reading) -> Int? {
        let time = local(ownTime(reading).seconds)
        let ahead = minutesUntil(time, within: 7 * 1440) { config.isInWindow(weekday: $0, minute: $1) }
        return ahead.map { (time.minute + $0) % 1440 }
    }

    private var budgetLeftMilliseconds: Int? {
        config.dailyMinutes.map { max(0, $0 * 60_000 - usedMilliseconds) }
    }

    // MARK: - the end

    /// Milliseconds until what plays must end, and why (nil: nothing ends it).
    private mutating func timeLeft(_ reading: Reading) -> (milliseconds: Int, reason: Reason)? {
        guard let session, session.kind != .free else { return nil }
        let now = ownTime(reading)
        let time = local(now.seconds)
        let second = now.seconds % 60
        var candidates: [(Int, Reason)] = []
        if now.trusted, let wake = config.wake {
            let minutes = minutesUntil(time) { config.isSilent(minute: $1) }
            if let minutes { candidates.append((minutes * 60_000 - second * 1000, .silentNight(wake: wake))) }
        }
        switch session.kind {
        case .counted:
            if now.trusted, !config.windows.isEmpty,
                let minutes = minutesUntil(time, { !config.isInWindow(weekday: $0, minute: $1) })
            {
                candidates.append((minutes * 60_000 - second * 1000, .outsideWindow(opens: nil)))
            }
            if let left = budgetLeftMilliseconds { candidates.append((left, .budgetSpent(resetAt: config.resetAt))) }
        case .oneMore:
            if let endsAt = session.endsAt {
                let left = endsAt > reading.monotonicNs ? Int((endsAt - reading.monotonicNs) / 1_000_000) : 0
                candidates.append((left, .outsideWindow(opens: nil)))
            }
        case .bedtimeItem, .free:
            break
        }
        return candidates.min { $0.0 < $1.0 }.map { (max(0, $0.0), $0.1) }
    }

    /// Local minutes from `time` until `ends(weekday, minute)` holds (0: it holds now; nil: not
    /// within `within` minutes).
    private func minutesUntil(_ time: ExhibitClock.Local, within: Int = 1440, _ ends: (Int, Int) -> Bool) -> Int? {
        var weekday = time.weekday
        var minute = time.minute
        for ahead in 0...within {
            if ends(weekday, minute) { return ahead }
            minute += 1
            if minute == 1440 {
                minute = 0
                weekday = (weekday + 1) % 7
            }
        }
        return nil
    }

    /// The announcement when the end is within the warning's lead (or has passed: a clock that
    /// jumped, a daylight-saving change; the lead is then given in full, on the monotonic clock).
    private mutating func warningDue(_ reading: Reading) -> [PlayerEffect] {
        guard ending == nil, let (left, reason) = timeLeft(reading) else { return [] }
        let lead = config.warningMinutes * 60_000
        let fadeOnly = Self.fadeMilliseconds
        guard left <= max(lead, fadeOnly) else { return [] }
        let stopIn = left > 0 ? left : max(lead, fadeOnly)
        ending = Ending(stopAt: reading.monotonicNs + UInt64(stopIn) * 1_000_000, reason: reason)
        guard config.warningMinutes > 0 else { return endingDue(reading) }
        let minutes = (stopIn + 59_999) / 60_000
        Log.info("bedtime: \(minutes) min left (\(reason))")
        return [.bedtime(.warning(minutes: minutes, reason))] + endingDue(reading)
    }

    /// The fade in the last seconds, then the stop.
    private mutating func endingDue(_ reading: Reading) -> [PlayerEffect] {
        guard var coming = ending else { return [] }
        let now = reading.monotonicNs
        if now >= coming.stopAt {
            ending = nil
            session = nil
            return stopEffects(coming.reason, faded: coming.fading) + save(reading)
        }
        let left = Int((coming.stopAt - now) / 1_000_000)
        guard !coming.fading, left <= Self.fadeMilliseconds else { return [] }
        coming.fading = true
        ending = coming
        return [.engine(.fadeOut(milliseconds: max(1, left)))]
    }

    private func stopEffects(_ reason: Reason, faded: Bool = false) -> [PlayerEffect] {
        // After the stop the next play is at the set volume; a sleeping box lets its DAC go.
        [.stopPlayback] + (faded ? [.engine(.cancelFade)] : []) + [.engine(.releaseDevice), .bedtime(.ended(reason))]
    }

    // MARK: - saving and the timer

    private mutating func save(_ reading: Reading) -> [PlayerEffect] {
        guard var counts = saved else { return [] }
        counts.usedSeconds = usedMilliseconds / 1000
        savedAt = reading.monotonicNs
        return [.bedtime(.save(counts))]
    }

    /// A minute of playing (the budget), or an hour of not (the last known time), since the last save.
    private mutating func periodicSave(_ reading: Reading) -> [PlayerEffect] {
        let every = session == nil ? Self.idleSaveMilliseconds : Self.playingSaveMilliseconds
        guard let at = savedAt, reading.monotonicNs >= at + UInt64(every) * 1_000_000 else { return [] }
        return save(reading)
    }

    /// When the rules want to look again: at the fade or the stop, at the announcement, else in a minute.
    private mutating func nextTick(_ reading: Reading) -> [PlayerEffect] {
        var wait = Self.tickMilliseconds
        if let coming = ending {
            let left = coming.stopAt > reading.monotonicNs ? Int((coming.stopAt - reading.monotonicNs) / 1_000_000) : 0
            wait = coming.fading || left <= Self.fadeMilliseconds ? left : left - Self.fadeMilliseconds
        } else if let (left, _) = timeLeft(reading) {
            wait = min(wait, left - max(config.warningMinutes * 60_000, Self.fadeMilliseconds))
        }
        return [.armBedtime(milliseconds: max(1, wait))]
    }
}
