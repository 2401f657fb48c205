// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskLibrary
import KioskTestSupport
import Testing

@testable import KioskCore

/// `volumeMin`, `volumeMax` and `volumeAtBoot` on the player with the fake engine: every source of a
/// volume change stops at the limits, and the engine never gets a volume outside them.
@Suite struct VolumeLimitTests {
    private func rig(
        min: Int = 0, max: Int = 100, atBoot: Int? = nil, resume: ResumeState? = nil, volume: Int = 50,
        volumes: [String] = []
    ) throws -> PlayerRig {
        try PlayerRig(volumes: volumes, resume: resume) {
            $0.volumeLimits = VolumeLimits(min...max)
            $0.volumeAtBoot = atBoot
            $0.volume = volume
        }
    }

    @Test func volumeUpStopsAtVolumeMax() throws {
        let rig = try rig(max: 60)
        for _ in 0..<5 { try rig.press(.volumeUp) }
        #expect(rig.player.volume == 60)
        #expect(rig.fake?.volume == 60)
    }

    @Test func volumeDownStopsAtVolumeMin() throws {
        let rig = try rig(min: 10, volume: 20)
        for _ in 0..<5 { try rig.press(.volumeDown) }
        #expect(rig.player.volume == 10)
        #expect(rig.fake?.volume == 10)
    }

    @Test func anAcceleratedEncoderTurnStopsAtTheLimitToo() throws {
        let rig = try rig(min: 10, max: 60)
        try rig.press(.volumeUp, steps: 40)
        #expect(rig.player.volume == 60)
        try rig.press(.volumeDown, steps: 40)
        #expect(rig.player.volume == 10)
    }

    @Test func aRemoteClientsVolumeIsClampedToTheLimits() throws {
        let rig = try rig(min: 10, max: 60)
        rig.player.perform(.setVolume(100), from: .remote)
        #expect(rig.player.volume == 60 && rig.fake?.volume == 60)
        rig.player.perform(.setVolume(0), from: .remote)
        #expect(rig.player.volume == 10 && rig.fake?.volume == 10)
    }

    @Test func aSavedVolumeAboveTheLimitStartsAtTheLimit() throws {
        var saved = ResumeState()
        saved.volumePercent = 100
        let rig = try rig(max: 60, resume: saved)
        #expect(rig.player.volume == 60)
        #expect(rig.fake?.volume == 60)
    }

    @Test func volumeAtBootWinsOverTheSavedVolume() throws {
        var saved = ResumeState()
        saved.volumePercent = 90
        let rig = try rig(atBoot: 30, resume: saved)
        #expect(rig.player.volume == 30)
    }

    @Test func theSavedVolumeIsUsedWithoutVolumeAtBoot() throws {
        var saved = ResumeState()
        saved.volumePercent = 90
        let rig = try rig(resume: saved)
        #expect(rig.player.volume == 90)
    }

    @Test func theOverlayShowsTheLimitOnNowPlaying() throws {
        let rig = try rig(max: 60, volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try rig.press(.volumeUp, steps: 4)
        guard case .nowPlaying(let shown) = rig.player.screenState() else {
            Issue.record("expected now playing, got \(rig.player.screenState())")
            return
        }
        #expect(shown.volumeOverlay == 60)
        #expect(shown.volumeRange == 0...60)
    }
}

/// `resumeAtBoot`: false starts the box stopped with nothing queued, yet keeps the saved volume.
@Suite struct ResumeAtBootTests {
    private let alpha = PlayerFixtures.mainAlbums[0]

    @Test func resumeAtBootFalseStartsStoppedWithTheSavedVolume() throws {
        var saved = resumeState(volume: PlayerFixtures.main, album: alpha, number: 1, seconds: 2, playing: true)
        saved.volumePercent = 35
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], resume: saved) { $0.resumeAtBoot = false }
        try rig.idle(2000)
        #expect(rig.tracksStarted == 0)
        #expect(rig.player.status == .stopped)
        #expect(rig.player.queue.isEmpty)
        #expect(rig.player.volume == 35)
    }

    @Test func resumeAtBootTrueContinuesTheSavedTrack() throws {
        let saved = resumeState(volume: PlayerFixtures.main, album: alpha, number: 1, seconds: 2, playing: true)
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], resume: saved)
        #expect(try rig.run { rig.tracksStarted == 1 })
        #expect(rig.title == "Noon")
    }
}
