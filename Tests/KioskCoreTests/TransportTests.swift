// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import Testing

@testable import KioskCore

/// The transport part on its own, no loop and no engine: each event changes its state and returns
/// what the player must do (`PlayerEffect`), applied elsewhere.
struct TransportTests {
    private static func transport(volume: Int = 50, limits: ClosedRange<Int> = 0...100) -> Transport {
        Transport(volume: VolumeControl(configured: VolumeLimits(limits), level: volume))
    }

    /// A transport that plays at frame `frame` of a 44.1 kHz track.
    private static func playing(at frame: Int64 = 0) -> Transport {
        var transport = Self.transport()
        _ = transport.handle(.located(frames: frame, sampleRate: 44_100))
        _ = transport.handle(.play)
        return transport
    }

    @Test func playStartsTheEngineAndThePeriodicSavesAndSavesSoon() {
        var transport = Self.transport()
        #expect(
            transport.handle(.play) == [
                .chooseCurrentEntry, .engine(.play), .periodicSaves(true), .save(.soon),
            ])
        #expect(transport.status == .playing)
    }

    @Test func pausePausesTheEngineStopsThePeriodicSavesAndSavesAtOnce() {
        var transport = Self.playing()
        #expect(
            transport.handle(.pause) == [
                .engine(.pause), .chooseCurrentEntry, .periodicSaves(false), .save(.now),
            ])
        #expect(transport.status == .paused)
    }

    @Test func resumePlaysAndSavesAtOnce() {
        var transport = Self.playing()
        _ = transport.handle(.pause)
        #expect(
            transport.handle(.resume) == [.chooseCurrentEntry, .engine(.play), .periodicSaves(true), .save(.now)])
    }

    @Test func stopRewindsToTheTrackStartAndLeavesTheCurrentEntryUnchosen() {
        var transport = Self.playing(at: 88_200)
        #expect(transport.handle(.stop) == [.engine(.stop), .periodicSaves(false), .save(.now)])
        #expect(transport.status == .stopped)
        #expect(transport.positionFrames == 0)
    }

    @Test func aSeekMovesThePositionCountsAJumpAndAsksTheEngine() {
        var transport = Self.playing(at: 44_100)
        #expect(transport.handle(.seek(toFrame: 88_200)) == [.engine(.seek(toFrame: 88_200)), .save(.soon)])
        #expect(transport.positionSeconds == 2)
        #expect(transport.jumps == 1)
        #expect(transport.status == .playing, "a seek keeps the play state")
    }

    @Test func whereTheEngineSaysItIsChangesNothingOutside() {
        var transport = Self.transport()
        #expect(transport.handle(.located(frames: 96_000, sampleRate: 48_000)).isEmpty)
        #expect(transport.positionSeconds == 2)
        #expect(transport.jumps == 0, "a position report is no jump")
    }

    @Test func aRewindWithAnUnknownRateKeepsTheLastRate() {
        var transport = Self.playing(at: 44_100)
        #expect(transport.handle(.rewound(sampleRate: 0)).isEmpty)
        #expect(transport.positionFrames == 0)
        #expect(transport.sampleRate == 44_100)
    }

    @Test func aNewVolumeIsClampedToTheLimitsSetOnTheEngineAndSavedWhenAsked() {
        var transport = Self.transport(volume: 50, limits: 10...80)
        #expect(transport.handle(.volume(95, saved: true)) == [.engine(.setVolume(80)), .save(.soon)])
        #expect(transport.handle(.volume(20, saved: false)) == [.engine(.setVolume(20))])
        #expect(transport.volume.level == 20)
    }

    @Test func theSameVolumeAgainAsksNothing() {
        var transport = Self.transport(volume: 40)
        #expect(transport.handle(.volume(40, saved: true)).isEmpty)
    }

    @Test func aCardsCeilingLowersTheLimitsButNotTheLevelByItself() {
        var transport = Self.transport(volume: 70)
        #expect(transport.handle(.volumeCeiling(50)).isEmpty)
        #expect(transport.volume.limits.range == 0...50)
        #expect(transport.volume.level == 70, "the player brings the level down, with its overlay")
    }
}
