// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskDisplay
import KioskLibrary
import KioskTestSupport
import Testing

@testable import KioskCore

/// The sleep timer on the player with the fake engine and virtual time: the cycle, the fade in the
/// engine over the last 30 s, the stop (or power-off) at the end, cancelling by input, a restart.
@Suite struct SleepTimerTests {
    /// A rig playing the long album on repeat, with a sleep timer of one minute as its only choice.
    private final class Sleeper {
        let rig: PlayerRig
        var shutdowns = 0
        init(configure: (inout Config) -> Void = { _ in }, resume: ResumeState? = nil) throws {
            rig = try PlayerRig(volumes: [PlayerFixtures.long], resume: resume) {
                $0.repeatQueue = true
                $0.sleepMinutes = [1]
                configure(&$0)
            }
            rig.player.listen(to: .shutdown) { [unowned self] _ in self.shutdowns += 1 }
        }
        var fake: FakeEngine { rig.fake! }
    }

    @Test func theSleepActionCyclesThroughTheChoicesThenOff() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        var shown: [Int?] = []
        for _ in 0..<6 {
            try rig.press(.sleep)
            shown.append(rig.player.sleepRemainingSeconds.map { ($0 + 59) / 60 })
        }
        #expect(shown == [15, 30, 45, 60, 90, nil])
    }

    @Test func theLastThirtySecondsFadeInTheEngineThenPlaybackStops() throws {
        let s = try Sleeper()
        try s.rig.playFirst()
        try s.rig.press(.sleep)
        try s.rig.idle(29_000)
        #expect(s.fake.fade == nil)
        try s.rig.idle(2_000)
        #expect(s.fake.fade?.milliseconds == 30_000)
        #expect(s.rig.player.isFadingToSleep)
        #expect(s.rig.player.status == .playing)
        try s.rig.idle(30_000)
        #expect(s.rig.player.status == .stopped)
        #expect(s.fake.fade == nil)  // cancelled after the stop: the next play is at the set volume
        #expect(s.rig.player.sleepRemainingSeconds == nil)
        #expect(s.shutdowns == 0)
    }

    @Test func sleepActionPoweroffSwitchesTheBoxOffAtTheEnd() throws {
        let s = try Sleeper { $0.sleepAction = .poweroff }
        try s.rig.playFirst()
        try s.rig.press(.sleep)
        try s.rig.idle(61_000)
        #expect(s.shutdowns == 1)
    }

    @Test func aPressDuringTheFadeCancelsTheTimerAndTheFade() throws {
        let s = try Sleeper()
        try s.rig.playFirst()
        try s.rig.press(.sleep)
        try s.rig.idle(40_000)
        #expect(s.rig.player.isFadingToSleep)
        try s.rig.press(.down)
        #expect(s.fake.fade == nil)
        #expect(s.rig.player.sleepRemainingSeconds == nil)
        try s.rig.idle(40_000)
        #expect(s.rig.player.status == .playing)
    }

    @Test func aPressBeforeTheFadeLeavesTheTimerRunning() throws {
        let s = try Sleeper()
        try s.rig.playFirst()
        try s.rig.press(.sleep)
        try s.rig.idle(10_000)
        try s.rig.press(.volumeUp)
        #expect(s.rig.player.sleepRemainingSeconds == 50)
    }

    @Test func nowPlayingCountsDown() throws {
        let s = try Sleeper()
        try s.rig.playFirst()
        try s.rig.press(.sleep)
        try s.rig.idle(5_000)
        guard case .nowPlaying(let shown) = s.rig.player.screenState() else {
            Issue.record("expected now playing, got \(s.rig.player.screenState())")
            return
        }
        // The rig's config repeats the queue: now playing says so too.
        #expect(shown.categoryLabel == "Album · repeat · sleep 0:55")
    }

    @Test func theTimeLeftIsSavedAndGoesOnAfterARestart() throws {
        let s = try Sleeper()
        try s.rig.playFirst()
        try s.rig.press(.sleep)
        try s.rig.idle(20_000)
        let saved = s.rig.player.resumeState()
        #expect(saved.sleepRemainingSeconds == 40)
        let restarted = try Sleeper(resume: saved)
        #expect(restarted.rig.player.sleepRemainingSeconds == 40)
        try restarted.rig.idle(9_000)
        #expect(restarted.fake.fade == nil)
        try restarted.rig.idle(2_000)
        #expect(restarted.fake.fade?.milliseconds == 30_000)
        try restarted.rig.idle(30_000)
        #expect(restarted.rig.player.sleepRemainingSeconds == nil)
    }
}
