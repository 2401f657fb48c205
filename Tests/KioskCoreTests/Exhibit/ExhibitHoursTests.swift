// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskDisplay
import KioskLibrary
import KioskModel
import KioskSystem
import KioskTestSupport
import Synchronization
import Testing

@testable import KioskConfig
@testable import KioskCore

/// A wall clock a test sets: local weekday and minute, a date, synchronized or not.
final class TestWallClock: Sendable {
    let minute = Atomic<Int>(10 * 60)
    let weekday = Atomic<Int>(1)
    let synchronized = Atomic<Bool>(true)

    var clock: ExhibitClock {
        ExhibitClock(
            now: { [self] in
                .init(
                    weekday: weekday.load(ordering: .relaxed), minute: minute.load(ordering: .relaxed),
                    date: "2026-12-07")
            },
            unsynchronized: { [self] in synchronized.load(ordering: .relaxed) ? nil : "no NTP sync, no RTC" })
    }
}

/// Opening hours, the heartbeat and the play counts of exhibit mode, on virtual time and a test's
/// wall clock.
@Suite struct ExhibitHoursTests {
    static func rig(_ wall: TestWallClock, hours: [OpeningHours]) throws -> PlayerRig {
        // The hours start applying at the first catalog: the wall clock must be the test's by then.
        try PlayerRig(volumes: []) { config in
            var exhibit = ExhibitConfig()
            exhibit.clips = [.init(name: "dawn", input: .button("A"), play: .file("Alpha/First Light/01 Dawn.flac"))]
            exhibit.attract = .init(play: .collection("Second Wind"))
            exhibit.hours = hours
            config.exhibit = exhibit
        }
    }

    static func scan(_ rig: PlayerRig) throws {
        rig.library.addVolume(path: PlayerFixtures.main)
        _ = try rig.run(seconds: 20) { rig.player.catalog?.trackCount ?? 0 > 0 }
    }

    static let weekdays9to17 = OpeningHours(days: [1, 2, 3, 4, 5], open: 9 * 60, close: 17 * 60)

    @Test func outsideOpeningHoursTheExhibitIsSilentAndIgnoresPressesThenOpensOnTheMinute() throws {
        let wall = TestWallClock()
        wall.minute.store(8 * 60 + 59, ordering: .relaxed)
        let rig = try Self.rig(wall, hours: [Self.weekdays9to17])
        rig.player.exhibitClock = wall.clock
        try Self.scan(rig)
        #expect(rig.player.status == .stopped && rig.player.queue.isEmpty, "closed at 08:59")
        rig.player.exhibitEdge(source: "button A", down: true)
        #expect(rig.player.exhibitClip == nil, "a press does nothing while closed")
        wall.minute.store(9 * 60, ordering: .relaxed)
        try rig.idle(61_000)
        #expect(
            rig.player.status == .playing && rig.player.queue.first?.album == "Second Wind", "the attract loop at 09:00"
        )
        wall.minute.store(17 * 60, ordering: .relaxed)
        try rig.idle(60_000)
        #expect(rig.player.status == .stopped, "closed again at 17:00")
    }

    @Test func theStatusLightSaysClosedOutsideTheHoursReadyWhileWaitingAndPlayingDuringAClip() throws {
        let wall = TestWallClock()
        wall.minute.store(8 * 60 + 59, ordering: .relaxed)
        let rig = try Self.rig(wall, hours: [Self.weekdays9to17])
        rig.player.exhibitClock = wall.clock
        var states: [LightState] = []
        rig.player.listen(to: .light) { if case .light(let state) = $0 { states.append(state) } }
        try Self.scan(rig)
        #expect(rig.player.currentLightState == .closed, "08:59: closed")
        wall.minute.store(9 * 60, ordering: .relaxed)
        try rig.idle(61_000)
        #expect(rig.player.currentLightState == .ready, "09:00: the attract loop plays, waiting for a visitor")
        rig.player.exhibitEdge(source: "button A", down: true)
        #expect(rig.player.currentLightState == .playing, "a clip plays")
        #expect(try rig.run(seconds: 8) { rig.player.exhibitClip == nil })
        #expect(rig.player.currentLightState == .ready, "the clip ended: waiting again")
        #expect(states.suffix(3) == [.ready, .playing, .ready], "each change was sent once: \(states)")
        #expect(BoardOutputs.defaultPatterns[.ready] == .slow && BoardOutputs.defaultPatterns[.closed] == .off)
    }

    @Test func theDailyRestartComesInItsMinuteOnceNoClipPlays() throws {
        let wall = TestWallClock()
        wall.minute.store(3 * 60 + 55, ordering: .relaxed)
        let rig = try PlayerRig(volumes: []) { config in
            var exhibit = ExhibitConfig()
            exhibit.clips = [
                .init(
                    name: "dawn", input: .button("A"), play: .file("Alpha/First Light/01 Dawn.flac"), mode: .retrigger)
            ]
            exhibit.restartAt = 4 * 60
            config.exhibit = exhibit
        }
        rig.player.exhibitClock = wall.clock
        var restarts: [Int] = []
        rig.player.listen(to: .dailyRestart) { _ in restarts.append(wall.minute.load(ordering: .relaxed)) }
        try Self.scan(rig)
        try rig.idle(200_000)
        #expect(restarts.isEmpty, "03:55: not yet")
        // The whole minute of 04:00 a visitor keeps the (6 s) clip playing: the restart waits.
        wall.minute.store(4 * 60, ordering: .relaxed)
        for _ in 0..<16 {
            rig.player.exhibitEdge(source: "button A", down: true)
            rig.player.exhibitEdge(source: "button A", down: false)
            try rig.idle(4_000)
        }
        #expect(restarts.isEmpty && rig.player.exhibitClip == "dawn", "not in the middle of a clip")
        #expect(try rig.run(seconds: 10) { !restarts.isEmpty }, "at the clip's end")
        wall.minute.store(4 * 60 + 2, ordering: .relaxed)
        try rig.idle(120_000)
        #expect(restarts == [4 * 60], "once a day")
    }

    @Test func aPlayerJustStartedInTheRestartMinuteDoesNotRestartAgain() throws {
        let wall = TestWallClock()
        wall.minute.store(4 * 60, ordering: .relaxed)
        let rig = try PlayerRig(volumes: []) { config in
            var exhibit = ExhibitConfig()
            exhibit.restartAt = 4 * 60
            config.exhibit = exhibit
        }
        rig.player.exhibitClock = wall.clock
        var restarts = 0
        rig.player.listen(to: .dailyRestart) { _ in restarts += 1 }
        try Self.scan(rig)
        try rig.idle(61_000)
        #expect(restarts == 0)
    }

    /// A power cut inside opening hours: the box starts again and the schedule says open.
    @Test func aBoxRestartedInsideOpeningHoursPlaysAtOnce() throws {
        let wall = TestWallClock()
        wall.minute.store(12 * 60, ordering: .relaxed)
        let rig = try Self.rig(wall, hours: [Self.weekdays9to17])
        rig.player.exhibitClock = wall.clock
        try Self.scan(rig)
        #expect(rig.player.status == .playing)
    }

    @Test func withoutASynchronizedClockTheHoursAreNotAppliedAndTheHeartbeatSaysWhy() throws {
        let wall = TestWallClock()
        wall.minute.store(3 * 60, ordering: .relaxed)
        wall.synchronized.store(false, ordering: .relaxed)
        let rig = try Self.rig(wall, hours: [Self.weekdays9to17])
        rig.player.exhibitClock = wall.clock
        var beats: [String] = []
        rig.player.listen(to: .exhibitStatus) { if case .exhibitStatus(let text) = $0 { beats.append(text) } }
        try Self.scan(rig)
        #expect(rig.player.status == .playing, "played at 03:00: the clock cannot be trusted")
        let last = try #require(beats.last)
        #expect(last.contains(#""hours":"no NTP sync, no RTC""#) && last.contains(#""state":"attract""#), "\(last)")
    }

    @Test func theHeartbeatFollowsAClipAndCountsItsPlays() throws {
        let wall = TestWallClock()
        let rig = try Self.rig(wall, hours: [])
        rig.player.exhibitClock = wall.clock
        var beats: [String] = []
        rig.player.listen(to: .exhibitStatus) { if case .exhibitStatus(let text) = $0 { beats.append(text) } }
        try Self.scan(rig)
        rig.player.exhibitEdge(source: "button A", down: true)
        let during = try #require(beats.last)
        #expect(during.contains(#""state":"clip""#) && during.contains(#""clip":"dawn""#), "\(during)")
        #expect(during.contains(#""playsToday":1"#))
        let count = beats.count
        try rig.idle(61_000)
        #expect(beats.count > count, "at least once a minute")
        #expect(beats.last?.contains(#""state":"attract""#) == true)
    }

    @Test func aStaffStickGetsThePlayCountsAsCSV() throws {
        let wall = TestWallClock()
        let rig = try Self.rig(wall, hours: [])
        rig.player.exhibitClock = wall.clock
        try Self.scan(rig)
        for _ in 0..<2 {
            rig.player.exhibitEdge(source: "button A", down: true)
            rig.player.exhibitEdge(source: "button A", down: false)
            try rig.idle(7000)
        }
        let staff = try TemporaryDirectory("kiosk-staff-stick")
        defer { staff.remove() }
        try AtomicFile.replace(staff.file("kiosk-staff"), with: "")
        rig.player.handle(
            .volumeAdded(VolumeID(rawValue: "staff"), mountPoint: staff.path), catalog: rig.player.catalog!)
        let csv = String(decoding: try Syscalls.readFile(staff.file("kiosk-play-counts.csv")), as: UTF8.self)
        #expect(csv == "date,clip,plays\n2026-12-07,dawn,2\n")
    }
}

/// Local time across a daylight-saving change, as the opening hours see it.
@Suite(.serialized) struct ExhibitClockTests {
    @Test func localTimeFollowsTheDaylightSavingChange() {
        let saved = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
        defer {
            if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }
            tzset()
        }
        // 2026-03-29 00:59 UTC is 01:59 CET; a minute later it is 03:00 CEST.
        let before = ExhibitClock.local(epochSeconds: 1_774_745_940)
        let after = ExhibitClock.local(epochSeconds: 1_774_746_000)
        #expect(before.minute == 1 * 60 + 59 && after.minute == 3 * 60 && after.weekday == 0)
        #expect(after.date == "2026-03-29")
        // 09:00 local on the Monday after is 07:00 UTC: open at 9 whatever the offset.
        let monday9 = ExhibitClock.local(epochSeconds: 1_774_854_000)
        #expect(monday9.weekday == 1 && monday9.minute == 9 * 60)
    }
}
