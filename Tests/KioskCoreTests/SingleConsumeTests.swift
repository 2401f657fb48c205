// SPDX-License-Identifier: GPL-3.0-or-later
import KioskLibrary
import Testing

@testable import KioskCore

/// MPD's single and consume modes on the player with the fake engine and virtual time, as MPD 0.23
/// plays them (checked against it): single pauses at the start of the next track, repeats the track
/// with repeat on, stops at the end of the queue, and `oneshot` turns itself off at that pause;
/// consume takes each played track out of the queue (at the border, on next, at the end).
/// The album played is "First Light": Dawn, Noon, Dusk, 6 s each.
@Suite struct SingleConsumeTests {
    @Test func singlePausesAtTheStartOfTheNextTrack() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        rig.player.perform(.setSingle(.on), from: .remote)
        #expect(try rig.run(seconds: 10) { rig.player.status == .paused })
        #expect(rig.title == "Noon")
        #expect(rig.player.positionSeconds < 0.1)
        #expect(rig.player.single == .on)
    }

    @Test func singleOneshotPausesOnceThenTurnsItselfOff() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        rig.player.perform(.setSingle(.oneshot), from: .remote)
        #expect(try rig.run(seconds: 10) { rig.player.status == .paused })
        #expect(rig.title == "Noon")
        #expect(rig.player.single == .off)
        rig.player.perform(.play, from: .remote)
        #expect(try rig.run(seconds: 10) { rig.title == "Dusk" })
        #expect(rig.player.status == .playing)
    }

    @Test func singleWithRepeatPlaysTheTrackAgain() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        rig.player.perform(.setSingle(.on), from: .remote)
        rig.player.perform(.setRepeat(true), from: .remote)
        let before = rig.tracksStarted
        #expect(try rig.run(seconds: 10) { rig.tracksStarted > before })
        #expect(rig.title == "Dawn")
        #expect(rig.player.status == .playing)
    }

    @Test func singleOnTheLastTrackStops() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        _ = rig.player.perform(.playEntry(2), from: .remote)
        rig.player.perform(.setSingle(.on), from: .remote)
        #expect(try rig.run(seconds: 10) { rig.player.status == .stopped })
        #expect(rig.player.queue.count == 3)
    }

    @Test func singleGivesTheEngineTheCurrentTrackAlone() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        func lastQueue() -> String? { rig.fake?.commands.last { $0.hasPrefix("setQueue") } }
        rig.player.perform(.setSingle(.on), from: .remote)
        #expect(lastQueue()?.hasPrefix("setQueue 1@0+") == true)
        rig.player.perform(.setSingle(.off), from: .remote)
        #expect(lastQueue()?.hasPrefix("setQueue 3@0+") == true)
        #expect(rig.title == "Dawn" && rig.player.status == .playing)
    }

    @Test func consumeTakesTheTrackPlayedPastOutOfTheQueue() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        rig.player.perform(.setConsume(true), from: .remote)
        #expect(try rig.run(seconds: 10) { rig.title == "Noon" })
        #expect(rig.player.queue.map(\.title) == ["Noon", "Dusk"])
        #expect(rig.player.queueIndex == 0)
        #expect(rig.player.status == .playing)
    }

    @Test func consumeTakesTheCurrentTrackOutOnNext() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        rig.player.perform(.setConsume(true), from: .remote)
        try rig.press(.next)
        #expect(rig.player.queue.map(\.title) == ["Noon", "Dusk"])
        #expect(rig.title == "Noon")
        #expect(rig.player.status == .playing)
    }

    @Test func consumeEmptiesTheQueueByItsEnd() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        rig.player.perform(.setConsume(true), from: .remote)
        #expect(try rig.run(seconds: 30) { rig.player.status == .stopped })
        #expect(rig.player.queue.isEmpty)
    }

    /// One entry left, consume and repeat on (the MPD fuzzer found the next that crashed here).
    private func lastEntryWithConsumeAndRepeat(_ rig: PlayerRig) throws {
        try rig.playFirst()
        rig.player.perform(.setConsume(true), from: .remote)
        rig.player.perform(.setRepeat(true), from: .remote)
        try rig.press(.next)
        try rig.press(.next)
        #expect(rig.player.queue.map(\.title) == ["Dusk"])
    }

    @Test func nextOnTheLastEntryWithConsumeAndRepeatEmptiesTheQueue() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try lastEntryWithConsumeAndRepeat(rig)
        #expect(rig.player.perform(.next, from: .remote))
        try rig.idle(100)
        #expect(rig.player.queue.isEmpty)
        #expect(rig.player.status == .stopped)
    }

    @Test func theLastEntryEndingWithConsumeAndRepeatEmptiesTheQueue() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try lastEntryWithConsumeAndRepeat(rig)
        #expect(try rig.run(seconds: 30) { rig.player.queue.isEmpty })
        try rig.idle(100)
        #expect(rig.player.status == .stopped)
    }

    @Test func consumeLeavesATrackAJumpLeftInTheQueue() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        rig.player.perform(.setConsume(true), from: .remote)
        #expect(rig.player.perform(.playEntry(2), from: .remote))
        try rig.idle(500)
        #expect(rig.player.queue.map(\.title) == ["Dawn", "Noon", "Dusk"])
        #expect(rig.title == "Dusk")
    }
}
