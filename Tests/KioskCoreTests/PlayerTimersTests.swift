// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import Testing

@testable import KioskCore

/// The timers part on its own, no loop and no engine: which loop timers each event arms or
/// disarms, and what the player must do when one rings (`PlayerEffect`), applied elsewhere.
struct PlayerTimersTests {
    private static let second: UInt64 = 1_000_000_000

    private static func timers(
        idleMinutes: Int = 0, sleepMinutes: [Int] = [15, 30, 60], sleepAction: Config.SleepAction = .stop
    ) -> PlayerTimers {
        PlayerTimers(idlePowerOffMinutes: idleMinutes, sleepMinutes: sleepMinutes, sleepAction: sleepAction)
    }

    // MARK: - browse timeout

    @Test func anInputArmsTheBrowseTimeoutAnew() {
        var timers = Self.timers()
        timers.browseTimeoutMilliseconds = 5000
        #expect(timers.handle(.input(playing: true)) == [.arm(.browseTimeout, milliseconds: 5000)])
    }

    @Test func theBrowseTimeoutRingingSendsTheScreensBackToNowPlaying() {
        var timers = Self.timers()
        #expect(timers.handle(.rang(.browseTimeout, now: 0)) == [.browseTimedOut])
    }

    // MARK: - idle power-off

    @Test func whileStoppedTheIdlePowerOffCountdownStartsOnce() {
        var timers = Self.timers(idleMinutes: 10)
        #expect(timers.handle(.follow(playing: false)) == [.arm(.idlePowerOff, milliseconds: 600_000)])
        #expect(timers.handle(.follow(playing: false)).isEmpty, "a running countdown goes on")
    }

    @Test func playingStopsTheIdlePowerOffCountdown() {
        var timers = Self.timers(idleMinutes: 10)
        _ = timers.handle(.follow(playing: false))
        #expect(timers.handle(.follow(playing: true)) == [.disarm(.idlePowerOff)])
    }

    @Test func anInputWhileStoppedStartsTheCountdownFromItsFullTime() {
        var timers = Self.timers(idleMinutes: 10)
        timers.browseTimeoutMilliseconds = 5000
        _ = timers.handle(.follow(playing: false))
        #expect(
            timers.handle(.input(playing: false)) == [
                .arm(.browseTimeout, milliseconds: 5000), .disarm(.idlePowerOff),
                .arm(.idlePowerOff, milliseconds: 600_000),
            ])
    }

    @Test func withoutIdlePowerOffNoCountdownRuns() {
        var timers = Self.timers(idleMinutes: 0)
        #expect(timers.handle(.follow(playing: false)).isEmpty)
    }

    @Test func theCountdownRunningOutShowsTheWarningAndArmsItsEnd() {
        var timers = Self.timers(idleMinutes: 10)
        _ = timers.handle(.follow(playing: false))
        #expect(
            timers.handle(.rang(.idlePowerOff, now: 600 * Self.second)) == [
                .arm(.idlePowerOff, milliseconds: 30_000), .powerOffWarning,
            ])
        #expect(timers.isWarningOfPowerOff)
    }

    @Test func theWarningRunningOutShutsTheBoxDown() {
        var timers = Self.timers(idleMinutes: 10)
        _ = timers.handle(.follow(playing: false))
        _ = timers.handle(.rang(.idlePowerOff, now: 600 * Self.second))
        #expect(timers.handle(.rang(.idlePowerOff, now: 630 * Self.second)) == [.shutdown])
        #expect(!timers.isWarningOfPowerOff)
    }

    @Test func anInputDuringTheWarningTakesItAway() {
        var timers = Self.timers(idleMinutes: 10)
        _ = timers.handle(.follow(playing: false))
        _ = timers.handle(.rang(.idlePowerOff, now: 600 * Self.second))
        _ = timers.handle(.input(playing: false))
        #expect(!timers.isWarningOfPowerOff)
    }

    // MARK: - sleep timer

    @Test func aSleepTimerArmsItsFadeThirtySecondsBeforeItsEndAndSaves() {
        var timers = Self.timers()
        #expect(
            timers.handle(.sleep(seconds: 900, minutes: 15, now: 0)) == [
                .arm(.sleepFade, milliseconds: 870_000), .arm(.sleepEnd, milliseconds: 900_000), .save(.soon),
            ])
        #expect(timers.sleepRemainingSeconds(now: 60 * Self.second) == 840)
    }

    @Test func aSleepTimerShorterThanItsFadeFadesAtOnce() {
        var timers = Self.timers()
        #expect(
            timers.handle(.sleep(seconds: 10, minutes: nil, now: 0)) == [
                .arm(.sleepFade, milliseconds: 0), .arm(.sleepEnd, milliseconds: 10_000), .save(.soon),
            ])
    }

    @Test func theFadeAsksTheEngineToFadeOverWhatIsLeft() {
        var timers = Self.timers()
        _ = timers.handle(.sleep(seconds: 900, minutes: 15, now: 0))
        #expect(
            timers.handle(.rang(.sleepFade, now: 870 * Self.second)) == [
                .engine(.fadeOut(milliseconds: 30_000)), .redraw,
            ])
        #expect(timers.isFadingToSleep)
    }

    @Test func theEndStopsPlaybackLetsTheDeviceGoAndSaves() {
        var timers = Self.timers()
        _ = timers.handle(.sleep(seconds: 900, minutes: 15, now: 0))
        #expect(
            timers.handle(.rang(.sleepEnd, now: 900 * Self.second)) == [
                .stopPlayback, .engine(.releaseDevice), .save(.soon), .redraw,
            ])
        #expect(timers.sleepRemainingSeconds(now: 900 * Self.second) == nil)
    }

    @Test func theEndAfterTheFadeUndoesTheFade() {
        var timers = Self.timers()
        _ = timers.handle(.sleep(seconds: 900, minutes: 15, now: 0))
        _ = timers.handle(.rang(.sleepFade, now: 870 * Self.second))
        #expect(
            timers.handle(.rang(.sleepEnd, now: 900 * Self.second)) == [
                .stopPlayback, .engine(.cancelFade), .engine(.releaseDevice), .save(.soon), .redraw,
            ])
    }

    @Test func withSleepActionPowerOffTheEndShutsTheBoxDown() {
        var timers = Self.timers(sleepAction: .poweroff)
        _ = timers.handle(.sleep(seconds: 900, minutes: 15, now: 0))
        #expect(timers.handle(.rang(.sleepEnd, now: 900 * Self.second)).first == .shutdown)
    }

    @Test func turningTheSleepTimerOffDuringItsFadeBringsTheVolumeBack() {
        var timers = Self.timers()
        _ = timers.handle(.sleep(seconds: 900, minutes: 15, now: 0))
        _ = timers.handle(.rang(.sleepFade, now: 870 * Self.second))
        #expect(
            timers.handle(.sleep(seconds: nil, minutes: nil, now: 880 * Self.second)) == [
                .disarm(.sleepFade), .disarm(.sleepEnd), .engine(.cancelFade), .save(.soon),
            ])
        #expect(!timers.isFadingToSleep)
    }

    @Test func theSleepChoicesCycleFromOffThroughEachAndBackToOff() {
        var timers = Self.timers(sleepMinutes: [15, 30])
        #expect(timers.nextSleepChoice(now: 0) == 15)
        _ = timers.handle(.sleep(seconds: 900, minutes: 15, now: 0))
        #expect(timers.nextSleepChoice(now: 0) == 30)
        _ = timers.handle(.sleep(seconds: 1800, minutes: 30, now: 0))
        #expect(timers.nextSleepChoice(now: 0) == nil)
    }

    @Test func aRestoredTimeContinuesTheCycleAfterWhatIsLeft() {
        var timers = Self.timers(sleepMinutes: [15, 30, 60])
        _ = timers.handle(.sleep(seconds: 20 * 60, minutes: nil, now: 0))
        #expect(timers.nextSleepChoice(now: 0) == 30)
    }

    @Test func theCountdownShowsMinutesAndSecondsLeft() {
        var timers = Self.timers()
        _ = timers.handle(.sleep(seconds: 1800, minutes: 30, now: 0))
        #expect(timers.sleepCountdown(now: 20 * Self.second) == "sleep 29:40")
    }

    // MARK: - a card taken away

    @Test func aCardTakenAwayIsStoppedAfterItsMinutesUnlessItComesBack() {
        var timers = Self.timers()
        #expect(timers.handle(.cardAway(minutes: 5)) == [.arm(.cardAway, milliseconds: 300_000)])
        #expect(timers.handle(.cardBack) == [.disarm(.cardAway)])
        #expect(timers.handle(.cardBack).isEmpty, "no countdown runs any more")
    }

    @Test func aCardAwayTooLongStopsWhatItPaused() {
        var timers = Self.timers()
        _ = timers.handle(.cardAway(minutes: 5))
        #expect(timers.handle(.rang(.cardAway, now: 300 * Self.second)) == [.cardStayedAway])
        #expect(!timers.isCardAway)
    }
}
