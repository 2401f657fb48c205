// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel
import KioskSystem
import KioskTestSupport
import Synchronization
import Testing

@testable import KioskCore

/// A wall clock for a rig: `start` (UTC, the test zone) plus the rig's virtual time.
///
/// Thread: the rig's (the test's) thread: its clock is read there only.
final class RigWallClock: @unchecked Sendable {
    let start: Int
    /// The rig's clock, once there is one (read on the rig's thread only).
    var virtual: VirtualClock?

    init(start: Int) { self.start = start }

    var clock: WallClock {
        WallClock(
            seconds: { [self] in start + Int((virtual?.nowNanoseconds ?? 0) / 1_000_000_000) },
            unsynchronized: { nil }, local: TestZone.utc)
    }
}

/// The bedtime rules in the player, end to end on a fake engine and virtual time: what a press
/// outside the windows does, the announcement, the stop, the counts on the device, the parent's card.
struct PlayerBedtimeTests {
    /// Weekdays 16:00–19:30; the album "First Light" (Alpha's) may play at bedtime.
    static func rig(
        at wall: Int, repeats: Bool = false, oneMore: BedtimeConfig.OneMore? = nil
    ) throws -> (PlayerRig, RigWallClock) {
        let time = RigWallClock(start: wall)
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], wallClock: time.clock) { config in
            var bedtime = BedtimeConfig()
            bedtime.windows = [OpeningHours(days: [1, 2, 3, 4, 5], open: 16 * 60, close: 19 * 60 + 30)]
            bedtime.items = [.folder("Alpha")]
            bedtime.oneMore = oneMore
            config.bedtime = bedtime
            config.repeatQueue = repeats
        }
        time.virtual = rig.clock
        return (rig, time)
    }

    /// What the player says (speech off: the rules' words are said anyway).
    static func said(_ rig: PlayerRig) -> Locked<[String]> {
        let said = Locked<[String]>([])
        rig.player.listen(to: .speech) { change in
            if case .speak(let words) = change { said.withLock { $0.append(words) } }
        }
        return said
    }

    static func select(_ rig: PlayerRig, album: String) throws {
        try rig.selectCategory(.album)
        let index = try #require(rig.collections(.album).firstIndex { $0.name == album })
        for _ in 0..<index { try rig.press(.down) }
        try rig.press(.select)
    }

    @Test func aPlayRequestOutsideTheWindowIsRefusedWithItsReasonOnScreenAndAloud() throws {
        let (rig, _) = try Self.rig(at: TestZone.epoch(2026, 12, 7, 20, 0))
        defer { rig.shutdown() }
        let said = Self.said(rig)
        try Self.select(rig, album: "Second Wind")
        #expect(rig.player.status == .stopped && rig.tracksStarted == 0)
        #expect(
            rig.player.screenState()
                == .message(MessageState(title: "Sleep time", detail: "The box plays again at 16:00")))
        #expect(said.withLock { $0 } == ["Sleep time. The box plays again at 16:00"])
    }

    @Test func aPlayRequestInsideTheWindowPlays() throws {
        let (rig, _) = try Self.rig(at: TestZone.epoch(2026, 12, 7, 17, 0))
        defer { rig.shutdown() }
        try Self.select(rig, album: "Second Wind")
        #expect(try rig.run { rig.player.status == .playing && rig.tracksStarted > 0 })
    }

    @Test func theBedtimeFolderPlaysOutsideTheWindow() throws {
        let (rig, _) = try Self.rig(at: TestZone.epoch(2026, 12, 7, 20, 0))
        defer { rig.shutdown() }
        try Self.select(rig, album: "First Light")
        #expect(try rig.run { rig.player.status == .playing && rig.tracksStarted > 0 })
    }

    @Test func oneMoreStoryPlaysOneTrackThenTheBoxPausesAndRefusesTheNext() throws {
        let (rig, _) = try Self.rig(at: TestZone.epoch(2026, 12, 7, 20, 0), oneMore: .track)
        defer { rig.shutdown() }
        let said = Self.said(rig)
        try Self.select(rig, album: "Second Wind")
        #expect(said.withLock { $0 } == ["One more story then it is sleep time"])
        #expect(try rig.run { rig.player.status == .playing && rig.tracksStarted == 1 })
        #expect(try rig.run(seconds: 20) { rig.player.status != .playing }, "the track's end")
        #expect(rig.tracksStarted == 1 && rig.player.queueIndex == 1, "paused at the next track's start")
        try rig.press(.playPause)
        #expect(
            rig.player.status != .playing && said.withLock { $0.last } == "Sleep time. The box plays again at 16:00")
    }

    @Test func theEndIsAnnouncedLitAndFadedThenPlaybackStops() throws {
        let (rig, _) = try Self.rig(at: TestZone.epoch(2026, 12, 7, 19, 27), repeats: true)
        defer { rig.shutdown() }
        let said = Self.said(rig)
        try Self.select(rig, album: "Second Wind")
        #expect(try rig.run(seconds: 70) { rig.player.currentLightState == .sleepSoon })
        #expect(said.withLock { $0 } == ["Two more minutes, then it is sleep time"])
        #expect(rig.player.status == .playing, "still playing after the announcement")
        #expect(try rig.run(seconds: 125) { rig.player.status == .stopped })
        #expect(rig.fake?.commands.contains { $0.hasPrefix("fadeOut ") } == true, "faded before the stop")
        #expect(rig.player.screenState() == .message(MessageState(title: "Sleep time")))
    }

    @Test func theCountsReachTheStateDirectoryThroughTheWriter() throws {
        var budget = BedtimeConfig()
        budget.dailyMinutes = 60
        let time = RigWallClock(start: TestZone.epoch(2026, 12, 7, 10, 0))
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], wallClock: time.clock) {
            $0.bedtime = budget
            $0.repeatQueue = true
        }
        defer { rig.shutdown() }
        time.virtual = rig.clock
        try rig.playFirst()
        try rig.idle(150_000)
        rig.player.flushSaves()
        let saved = try #require(BedtimeStore.load(directory: rig.state.path))
        #expect((120...150).contains(saved.usedSeconds), "\(saved.usedSeconds) s counted")
    }

    @Test func theParentsCardLetsTheBoxPlayOutsideTheWindow() throws {
        let (rig, _) = try Self.rig(at: TestZone.epoch(2026, 12, 7, 21, 0))
        defer { rig.shutdown() }
        let card = try #require(CardUID("0A0B0C0D"))
        try rig.player.cards.setLink(.action(.parentOverride), for: card)
        rig.player.handle(CardEvent(.presented, uid: card, source: "test", timestampNs: rig.nowNs))
        #expect(rig.player.screenState() == .message(MessageState(title: "Bedtime rules off", detail: "until 04:00")))
        try rig.idle(7000)
        try Self.select(rig, album: "Second Wind")
        #expect(try rig.run { rig.player.status == .playing })
    }

    @Test func theParentsChordTurnsTheRulesBackOn() throws {
        let (rig, _) = try Self.rig(at: TestZone.epoch(2026, 12, 7, 21, 0), repeats: true)
        defer { rig.shutdown() }
        let said = Self.said(rig)
        try rig.press(.parentOverride)
        #expect(said.withLock { $0 } == ["Bedtime rules off until 04:00"])
        try rig.idle(7000)
        try Self.select(rig, album: "Second Wind")
        #expect(try rig.run { rig.player.status == .playing })
        try rig.press(.parentOverride)
        #expect(said.withLock { $0 }.suffix(2) == ["Bedtime rules on", "Two more minutes, then it is sleep time"])
        #expect(try rig.run(seconds: 200) { rig.player.status == .stopped }, "announced, then stopped")
    }
}
