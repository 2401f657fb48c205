// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// The bedtime rules as a part (`BedtimeRules`): event → what the player is told, on test clocks
/// (`RulesClock`: a wall clock and a monotonic one, moved by the test; no loop, no engine).
struct BedtimeRulesTests {
    /// Weekdays 07:00–08:00 and 16:00–19:30, weekends 08:00–20:00; silent from 21:00 to 06:30.
    static var family: BedtimeConfig {
        var c = BedtimeConfig()
        c.windows = [
            OpeningHours(days: [1, 2, 3, 4, 5], open: 7 * 60, close: 8 * 60),
            OpeningHours(days: [1, 2, 3, 4, 5], open: 16 * 60, close: 19 * 60 + 30),
            OpeningHours(days: [0, 6], open: 8 * 60, close: 20 * 60),
        ]
        c.wake = 6 * 60 + 30
        c.silentFrom = 21 * 60
        c.items = [.folder("Lullabies")]
        return c
    }

    /// Monday 2026-12-07, `hour`:`minute` UTC (the test zone).
    static func monday(_ hour: Int, _ minute: Int = 0) -> Int { TestZone.epoch(2026, 12, 7, hour, minute) }

    static let sleep = BedtimeRules.Outcome.refused(.outsideWindow(opens: nil))

    // MARK: - a whole day

    @Test func aWeekdayTableOfWhatPlaysOutsideAndInsideTheWindows() {
        typealias Row = (time: String, story: BedtimeRules.Outcome?, lullaby: BedtimeRules.Outcome?)
        let silent = BedtimeRules.Outcome.refused(.silentNight(wake: 6 * 60 + 30))
        let table: [Row] = [
            ("00:00", silent, silent),
            ("06:29", silent, silent),
            ("06:30", .refused(.outsideWindow(opens: 7 * 60)), nil),
            ("07:00", nil, nil),
            ("07:59", nil, nil),
            ("08:00", .refused(.outsideWindow(opens: 16 * 60)), nil),
            ("12:00", .refused(.outsideWindow(opens: 16 * 60)), nil),
            ("16:00", nil, nil),
            ("19:29", nil, nil),
            ("19:30", .refused(.outsideWindow(opens: 7 * 60)), nil),
            ("20:59", .refused(.outsideWindow(opens: 7 * 60)), nil),
            ("21:00", silent, silent),
            ("23:59", silent, silent),
        ]
        for row in table {
            let parts = row.time.split(separator: ":").compactMap { Int($0) }
            var day = RulesClock(Self.family, at: Self.monday(parts[0], parts[1]))
            #expect(day.play() == row.story, "a story at \(row.time)")
            day.stop()
            #expect(day.play("Lullabies/Moon.flac", bedtimeItem: true) == row.lullaby, "a lullaby at \(row.time)")
        }
    }

    @Test func aWeekendHasItsOwnWindow() {
        var day = RulesClock(Self.family, at: TestZone.epoch(2026, 12, 12, 7, 30))
        #expect(day.play() == .refused(.outsideWindow(opens: 8 * 60)), "Saturday 07:30")
        day.pass(minutes: 30)
        #expect(day.play() == nil, "Saturday 08:00")
    }

    // MARK: - the end of a window

    @Test func theWindowsEndIsAnnouncedTwoMinutesBeforeThenFadesThenStops() {
        var day = RulesClock(Self.family, at: Self.monday(19, 0))
        #expect(day.play() == nil)
        day.pass(minutes: 27)
        #expect(day.outcomes.isEmpty, "19:27: nothing yet")
        day.pass(minutes: 1)
        #expect(day.outcomes == [.warning(minutes: 2, .outsideWindow(opens: nil))], "19:28")
        #expect(day.rules.isEnding)
        day.forget()
        day.pass(seconds: 90)
        #expect(day.fade == 30_000 && !day.stopped, "19:29:30: the last 30 s fade")
        day.pass(seconds: 30)
        #expect(day.stopped && day.outcomes == [.ended(.outsideWindow(opens: nil))], "19:30: stopped")
        #expect(day.effects.contains(.engine(.cancelFade)), "the next play is at the set volume")
    }

    @Test func aBedtimeItemPlaysOnAfterTheWindowUntilTheSilentNight() {
        var day = RulesClock(Self.family, at: Self.monday(20, 30))
        #expect(day.play("Lullabies/Moon.flac", bedtimeItem: true) == nil)
        day.pass(minutes: 28)
        #expect(day.outcomes == [.warning(minutes: 2, .silentNight(wake: 6 * 60 + 30))], "20:58")
        day.pass(minutes: 2)
        #expect(day.stopped, "21:00")
    }

    @Test func aTrackAfterTheBedtimeItemThatIsNotOneStops() {
        var day = RulesClock(Self.family, at: Self.monday(20, 0))
        #expect(day.play("Lullabies/Moon.flac", bedtimeItem: true) == nil)
        day.forget()
        day.handle(.trackChanged(.init(key: "Lullabies/Stars.flac", isBedtimeItem: true), day.reading))
        #expect(!day.stopped, "the next lullaby plays")
        day.handle(.trackChanged(.init(key: "Rock/Loud.flac", isBedtimeItem: false), day.reading))
        #expect(day.stopped && day.outcomes == [.ended(.outsideWindow(opens: 7 * 60))])
    }

    // MARK: - the budget

    static func budget(_ minutes: Int) -> BedtimeConfig {
        var c = BedtimeConfig()
        c.dailyMinutes = minutes
        return c
    }

    @Test func theBudgetCountsOnlyWhilePlaying() {
        var day = RulesClock(Self.budget(60), at: Self.monday(9, 0))
        day.play()
        day.pass(minutes: 20)
        day.stop()
        day.pass(minutes: 180)
        #expect(day.rules.state?.usedSeconds == 20 * 60)
        day.play()
        day.pass(minutes: 10)
        day.stop()
        #expect(day.rules.state?.usedSeconds == 30 * 60)
    }

    @Test func theBudgetsEndIsAnnouncedThenPlayIsRefusedForTheDay() {
        var day = RulesClock(Self.budget(30), at: Self.monday(9, 0))
        day.play()
        day.pass(minutes: 28)
        #expect(day.outcomes == [.warning(minutes: 2, .budgetSpent(resetAt: 4 * 60))])
        day.pass(minutes: 2)
        #expect(day.stopped)
        day.pass(minutes: 600)
        #expect(day.play() == .refused(.budgetSpent(resetAt: 4 * 60)), "19:00")
    }

    @Test func theBudgetBeginsAgainAtTheResetHour() {
        var day = RulesClock(Self.budget(30), at: Self.monday(22, 0))
        day.play()
        day.pass(minutes: 30)
        day.pass(minutes: 5 * 60 + 29)
        #expect(day.play() == .refused(.budgetSpent(resetAt: 4 * 60)), "03:59")
        day.pass(minutes: 1)
        #expect(day.play() == nil, "04:00: a new day")
        #expect(day.rules.state?.usedSeconds == 0)
    }

    @Test func aBedtimeItemPlaysWhenTheBudgetIsSpentAndIsNotCounted() {
        var config = Self.budget(10)
        config.items = [.folder("Lullabies")]
        var day = RulesClock(config, at: Self.monday(18, 0))
        day.play()
        day.pass(minutes: 10)
        #expect(day.play("Lullabies/Moon.flac", bedtimeItem: true) == nil)
        day.pass(minutes: 20)
        #expect(!day.stopped && day.rules.state?.usedSeconds == 10 * 60)
    }

    // MARK: - one more story

    static var withOneMore: BedtimeConfig {
        var c = family
        c.oneMore = .track
        return c
    }

    @Test func oneMoreStoryIsOneTrackOncePerNight() {
        var day = RulesClock(Self.withOneMore, at: Self.monday(19, 45))
        #expect(day.play() == .oneMore)
        #expect(day.effects.contains(.command(.setSingle(.oneshot))), "the queue pauses after the track")
        day.pass(minutes: 5)
        day.stop()
        #expect(day.play() == .refused(.outsideWindow(opens: 7 * 60)), "not twice")
        day.pass(minutes: 24 * 60)
        #expect(day.play() == .oneMore, "the next night again")
    }

    @Test func oneMoreStoryEndsWhenTheEngineGoesOnToAnotherTrack() {
        var day = RulesClock(Self.withOneMore, at: Self.monday(20, 0))
        #expect(day.play("Stories/01.flac") == .oneMore)
        day.forget()
        day.handle(.trackChanged(.init(key: "Stories/02.flac", isBedtimeItem: false), day.reading))
        #expect(day.stopped)
    }

    @Test func oneMoreStoryOfMinutesEndsAfterThemWithTheAnnouncement() {
        var config = Self.family
        config.oneMore = .minutes(10)
        var day = RulesClock(config, at: Self.monday(20, 0))
        #expect(day.play() == .oneMore)
        day.forget()
        day.pass(minutes: 8)
        #expect(day.outcomes == [.warning(minutes: 2, .outsideWindow(opens: nil))])
        day.pass(minutes: 2)
        #expect(day.stopped)
    }

    @Test func oneMoreStoryIsNotGivenInTheAfternoonsGapBetweenTwoWindows() {
        var day = RulesClock(Self.withOneMore, at: Self.monday(12, 0))
        #expect(day.play() == .refused(.outsideWindow(opens: 16 * 60)))
        #expect(day.rules.state?.oneMoreUsed == false)
    }

    @Test func oneMoreStoryFollowsASpentBudget() {
        var config = Self.budget(15)
        config.oneMore = .track
        var day = RulesClock(config, at: Self.monday(10, 0))
        day.play()
        day.pass(minutes: 15)
        #expect(day.play() == .oneMore)
    }

    @Test func theSilentNightGivesNoOneMoreStory() {
        var day = RulesClock(Self.withOneMore, at: Self.monday(22, 0))
        #expect(day.play() == .refused(.silentNight(wake: 6 * 60 + 30)))
    }

    // MARK: - the parent's override

    @Test func theParentsOverrideLetsEverythingPlayUntilTheResetHour() {
        var day = RulesClock(Self.family, at: Self.monday(22, 0))
        day.handle(.parentOverride(day.reading))
        #expect(day.outcomes == [.overridden(on: true, resetAt: 4 * 60)])
        #expect(day.play() == nil, "22:00, with the override")
        day.forget()
        day.pass(minutes: 5 * 60)
        #expect(day.outcomes.isEmpty, "no announcement while overridden")
        day.pass(minutes: 60)
        #expect(day.play("Stories/02.flac") == .refused(.silentNight(wake: 6 * 60 + 30)), "04:00: the rules again")
    }

    @Test func theOverrideGivenAgainTurnsTheRulesBackOnAndEndsWhatPlays() {
        var day = RulesClock(Self.family, at: Self.monday(20, 0))
        day.handle(.parentOverride(day.reading))
        day.play()
        day.forget()
        day.handle(.parentOverride(day.reading))
        #expect(day.outcomes.contains(.overridden(on: false, resetAt: 4 * 60)))
        day.pass(minutes: 3)
        #expect(day.stopped, "announced, then stopped")
    }

    // MARK: - daylight saving in Europe/Berlin

    /// 2026-03-29 (a Sunday): at 01:00 UTC the clocks go from 02:00 to 03:00.
    @Test func springForwardTheWakeTimeAndTheWindowAreLocalTime() {
        var config = Self.family
        config.dailyMinutes = 60
        var day = RulesClock(config, at: TestZone.epoch(2026, 3, 29, 0, 30), zone: TestZone.berlin)
        #expect(TestZone.berlin(day.wall).minute == 90, "01:30 CET")
        #expect(day.play() == .refused(.silentNight(wake: 6 * 60 + 30)))
        day.pass(minutes: 30)
        #expect(TestZone.berlin(day.wall).minute == 3 * 60, "03:00 CEST, half an hour later")
        // 06:30 CEST is 04:30 UTC: three and a half hours after 03:00.
        day.pass(minutes: 3 * 60 + 29)
        #expect(day.play() == .refused(.silentNight(wake: 6 * 60 + 30)), "06:29 CEST")
        day.pass(minutes: 1)
        #expect(day.play() == .refused(.outsideWindow(opens: 8 * 60)), "06:30 CEST")
        day.pass(minutes: 90)
        #expect(day.play() == nil, "08:00 CEST, 06:00 UTC")
        #expect(day.rules.state?.day == TestZone.berlin(day.wall).day, "Sunday's day began at 04:00 CEST")
    }

    @Test func aWindowEndingInTheSkippedHourIsStillAnnouncedBeforeTheStop() {
        var config = BedtimeConfig()
        config.windows = [OpeningHours(days: Set(0..<7), open: 60, close: 2 * 60 + 30)]
        var day = RulesClock(config, at: TestZone.epoch(2026, 3, 29, 0, 50), zone: TestZone.berlin)
        #expect(day.play() == nil, "01:50 CET")
        day.pass(minutes: 10)
        // 02:00 CET is 03:00 CEST: past 02:30 at once.
        #expect(day.outcomes == [.warning(minutes: 2, .outsideWindow(opens: nil))] && !day.stopped)
        day.pass(minutes: 2)
        #expect(day.stopped, "two minutes of real time later")
    }

    /// 2026-10-25 (a Sunday): at 01:00 UTC the clocks go from 03:00 back to 02:00.
    @Test func fallBackTheRepeatedHourBeginsNoSecondDay() {
        var config = Self.budget(30)
        config.resetAt = 2 * 60 + 30
        var day = RulesClock(config, at: TestZone.epoch(2026, 10, 25, 0, 0), zone: TestZone.berlin)
        day.play()
        day.pass(minutes: 29)
        #expect(day.play() == nil && day.rules.state?.usedSeconds == 29 * 60, "02:29 CEST")
        day.pass(minutes: 1)
        #expect(day.rules.state?.usedSeconds == 0, "02:30 CEST: a new day")
        day.pass(minutes: 30)
        day.stop()
        #expect(TestZone.berlin(day.wall).minute == 2 * 60, "02:00 CET: the hour again")
        day.pass(minutes: 31)
        #expect(day.play() == .refused(.budgetSpent(resetAt: 2 * 60 + 30)), "02:31 CET: the same day")
    }

    @Test func fallBackTheBudgetCountsRealMinutesThroughTheRepeatedHour() {
        var day = RulesClock(
            Self.budget(180), at: TestZone.epoch(2026, 10, 25, 0, 30, offset: 7200), zone: TestZone.berlin)
        day.play()
        day.pass(minutes: 150)
        #expect(TestZone.berlin(day.wall).minute == 2 * 60, "02:00 CET: ninety minutes on the wall")
        #expect(day.rules.state?.usedSeconds == 150 * 60, "a hundred and fifty played")
        day.pass(minutes: 30)
        #expect(day.stopped, "the budget's end after 180 real minutes")
    }

    // MARK: - clock jumps

    @Test func aJumpForwardPastTheWindowsEndIsAnnouncedNotCutShort() {
        var day = RulesClock(Self.family, at: Self.monday(17, 0))
        day.play()
        day.forget()
        day.wall += 3 * 3600
        day.pass(seconds: 60)
        #expect(day.outcomes == [.warning(minutes: 2, .outsideWindow(opens: nil))] && !day.stopped)
        day.pass(minutes: 2)
        #expect(day.stopped)
    }

    @Test func aJumpForwardSpendsNoBudget() {
        var day = RulesClock(Self.budget(60), at: Self.monday(9, 0))
        day.play()
        day.wall += 2 * 3600
        day.pass(minutes: 10)
        #expect(day.rules.state?.usedSeconds == 10 * 60)
    }

    @Test func aJumpForwardADayGivesOneNewBudgetNotUnlimitedTime() {
        var day = RulesClock(Self.budget(30), at: Self.monday(9, 0))
        day.play()
        day.pass(minutes: 30)
        day.wall += 86_400
        #expect(day.play() == nil, "Tuesday: a new budget")
        day.pass(minutes: 30)
        #expect(day.stopped && day.play() == .refused(.budgetSpent(resetAt: 4 * 60)), "and it ends too")
    }

    @Test func aJumpBackADayKeepsTheSpentBudgetUntilTheNextResetHour() {
        var day = RulesClock(Self.budget(30), at: Self.monday(18, 0))
        day.play()
        day.pass(minutes: 30)
        day.wall -= 86_400
        #expect(day.play() == .refused(.budgetSpent(resetAt: 4 * 60)), "Sunday 18:30: no new budget")
        day.pass(minutes: 9 * 60 + 29)
        #expect(day.play() == .refused(.budgetSpent(resetAt: 4 * 60)), "03:59")
        day.pass(minutes: 1)
        #expect(day.play() == nil, "04:00 by the clock as it is now: not locked out longer")
    }

    @Test func aJumpBackWithinTheDayChangesNoCount() {
        var day = RulesClock(Self.budget(60), at: Self.monday(12, 0))
        day.play()
        day.pass(minutes: 20)
        day.wall -= 3 * 3600
        day.pass(minutes: 10)
        #expect(day.rules.state?.usedSeconds == 30 * 60 && day.rules.state?.day == TestZone.utc(Self.monday(12)).day)
    }

    // MARK: - restarts

    @Test func aRestartInTheMiddleOfTheBudgetKeepsTheCount() throws {
        var day = RulesClock(Self.budget(30), at: Self.monday(9, 0))
        day.play()
        day.pass(minutes: 25)
        let saved = try #require(day.effects.compactMap { if case .bedtime(.save(let s)) = $0 { s } else { nil } }.last)
        #expect(saved.usedSeconds >= 24 * 60, "saved within a minute of playing")
        // A power cut: the counts come back from the file.
        let text = BedtimeStore.text(saved)
        let directory = try TemporaryDirectory("kiosk-bedtime")
        defer { directory.remove() }
        try AtomicFile.replace(directory.file(BedtimeStore.fileName), with: text)
        let found = try #require(BedtimeStore.load(directory: directory.path))
        #expect(found == saved)
        var after = RulesClock(Self.budget(30), at: Self.monday(9, 26))
        after.handle(.restarted(found, after.reading))
        #expect(after.play() == nil)
        after.pass(minutes: 6)
        #expect(after.stopped, "the rest of the budget only")
    }

    @Test func aBadCountsFileIsSetAsideAndTheCountsStartAgain() throws {
        let directory = try TemporaryDirectory("kiosk-bedtime")
        defer { directory.remove() }
        try AtomicFile.replace(
            directory.file(BedtimeStore.fileName), with: #"{"format": "kiosk-player-bedtime", "version": 9}"#)
        #expect(BedtimeStore.load(directory: directory.path) == nil)
        #expect(Syscalls.exists(directory.file(BedtimeStore.fileName + ".bad")))
    }

    // MARK: - no synchronised clock

    @Test func withoutASynchronisedClockAfterARestartTheWindowsAreNotApplied() {
        var day = RulesClock(Self.family, at: Self.monday(19, 45))
        let saved = day.rules.state
        // Restarted the next morning; no network: the wall clock says what it last knew.
        day.synchronized = false
        day.handle(.restarted(saved, day.reading))
        #expect(!day.rules.isClockTrusted)
        #expect(day.play() == nil, "a guess of 19:45 locks nobody out")
    }

    @Test func withoutASynchronisedClockAPowerCutGivesNoNewBudget() {
        var day = RulesClock(Self.budget(30), at: Self.monday(18, 0))
        day.play()
        day.pass(minutes: 30)
        let saved = day.rules.state
        // The wall clock came back earlier than the box last knew (no RTC): the last known time counts.
        day.synchronized = false
        day.wall -= 3600
        day.handle(.restarted(saved, day.reading))
        #expect(day.play() == .refused(.budgetSpent(resetAt: 4 * 60)))
    }

    @Test func withoutASynchronisedClockTheBoxsOwnTimeBringsTheNextDay() {
        var day = RulesClock(Self.budget(30), at: Self.monday(18, 0))
        day.play()
        day.pass(minutes: 30)
        let saved = day.rules.state
        day.synchronized = false
        day.wall = Self.monday(12)
        day.handle(.restarted(saved, day.reading))
        #expect(day.play() == .refused(.budgetSpent(resetAt: 4 * 60)), "own time: 18:30")
        day.pass(minutes: 9 * 60 + 30)
        #expect(day.play() == nil, "own time: 04:00 the next day, after running that long")
    }

    @Test func theFirstSynchronisationBringsTheRealDay() {
        var day = RulesClock(Self.family, at: Self.monday(19, 45))
        let saved = day.rules.state
        day.synchronized = false
        day.handle(.restarted(saved, day.reading))
        day.pass(minutes: 1)
        day.synchronized = true
        day.wall = TestZone.epoch(2026, 12, 8, 22, 0)
        #expect(day.play() == .refused(.silentNight(wake: 6 * 60 + 30)), "Tuesday 22:00: the rules apply")
    }

    @Test func aClockThatLosesItsSynchronisationInARunKeepsTheRules() {
        var day = RulesClock(Self.family, at: Self.monday(20, 0))
        day.synchronized = false
        day.wall -= 5 * 3600
        #expect(day.play() == .refused(.outsideWindow(opens: 7 * 60)), "counted on from the last synchronised reading")
        #expect(day.rules.isClockTrusted)
    }
}
