// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import Testing

@testable import KioskCore

/// The restore part on its own, no loop and no engine: how the saved queue comes back after a
/// restart, event by event, and what the player must do about it (`PlayerEffect`).
struct RestoreSessionTests {
    /// A saved state: track `song.flac` of stick `STICK`, at frame `frames` of 44.1 kHz.
    private static func saved(playing: Bool = true, frames: Int64 = 441_000) -> ResumeState {
        var state = ResumeState()
        state.volumeID = "STICK"
        state.relativePath = "album/song.flac"
        state.positionFrames = frames
        state.sampleRate = 44_100
        state.playing = playing
        return state
    }

    private static func playingAlone(finished: Bool = false) -> RestoreSession {
        var restore = RestoreSession.waiting(saved())
        _ = restore.handle(.trackFound(path: "/media/kiosk/STICK/album/song.flac"))
        if finished { _ = restore.handle(.trackEnded(queueKnown: false)) }
        return restore
    }

    @Test func theSavedTrackFoundBeforeItsCatalogPlaysAloneWhereItStopped() {
        var restore = RestoreSession.waiting(Self.saved())
        let effects = restore.handle(.trackFound(path: "/media/kiosk/STICK/album/song.flac"))
        #expect(
            effects == [
                .engine(
                    .setQueue(
                        [TrackRequest(id: RestoreSession.provisionalID, path: "/media/kiosk/STICK/album/song.flac")],
                        startAt: 0, startFrame: 441_000)),
                .transport(.located(frames: 441_000, sampleRate: 44_100)),
                .remoteChange(.playback),
                .transport(.status(.playing)),
            ])
        #expect(restore == .playingAlone(Self.saved(), finished: false))
        #expect(restore.engineHoldsRestoredTrackOnly)
    }

    @Test func aSavedPauseComesBackPausedAndASavedStopStopped() {
        var paused = RestoreSession.waiting(Self.saved(playing: false))
        #expect(paused.handle(.trackFound(path: "/p")).last == .transport(.status(.paused)))
        var stopped = RestoreSession.waiting(Self.saved(playing: false, frames: 0))
        #expect(stopped.handle(.trackFound(path: "/p")).last == .transport(.status(.stopped)))
    }

    @Test func aTrackFoundTwiceIsPlayedOnce() {
        var restore = Self.playingAlone()
        #expect(restore.handle(.trackFound(path: "/media/kiosk/STICK/album/song.flac")).isEmpty)
    }

    @Test func theCatalogPlacingTheTrackAdoptsItWithoutABreak() {
        var restore = Self.playingAlone()
        #expect(restore.handle(.placed(entry: 3)) == [.adoptRestoredTrack(entry: 3), .save(.soon)])
        #expect(restore == .adopted)
        #expect(restore.engineHoldsRestoredTrackOnly, "the engine still holds the track alone")
    }

    @Test func aTrackPlayedOutBeforeItsCatalogCameMovesOnOnceItIsPlaced() {
        var restore = Self.playingAlone(finished: true)
        #expect(
            restore.handle(.placed(entry: 3)) == [.adoptRestoredTrack(entry: 3), .moveOn(.ended), .save(.soon)])
        #expect(restore == .none)
    }

    @Test func theAdoptedTrackEndingMovesTheQueueOn() {
        var restore = Self.playingAlone()
        _ = restore.handle(.placed(entry: 3))
        #expect(restore.handle(.trackEnded(queueKnown: true)) == [.moveOn(.ended)])
        #expect(restore == .none)
    }

    @Test func theTrackEndingBeforeItsCatalogWaitsForIt() {
        var restore = Self.playingAlone()
        #expect(restore.handle(.trackEnded(queueKnown: false)).isEmpty)
        #expect(restore == .playingAlone(Self.saved(), finished: true))
    }

    @Test func theStickRemovedSilencesTheEngineAndTheSavedStateWaitsAgain() {
        var restore = Self.playingAlone()
        #expect(restore.handle(.stickRemoved) == [.silence])
        #expect(restore == .waiting(Self.saved()))
    }

    @Test func aSavedTrackGoneFromItsStickSilencesTheTrackPlayingAlone() {
        var restore = Self.playingAlone()
        #expect(restore.handle(.trackGone) == [.silence])
        #expect(restore == .none)
    }

    @Test func aSavedTrackGoneBeforeItPlayedIsDroppedQuietly() {
        var restore = RestoreSession.waiting(Self.saved())
        #expect(restore.handle(.trackGone).isEmpty)
        #expect(restore == .none)
    }

    @Test func aChoiceOfTheListenerEndsTheRestore() {
        var restore = RestoreSession.waiting(Self.saved())
        #expect(restore.handle(.takenOver).isEmpty)
        #expect(restore.pending == nil)
    }

    @Test func theQueuePlayedOutEndsAnAdoptedRestoreButNotAWaitingOne() {
        var adopted = Self.playingAlone()
        _ = adopted.handle(.placed(entry: 0))
        _ = adopted.handle(.queueFinished)
        #expect(adopted == .none)
        var waiting = RestoreSession.waiting(Self.saved())
        _ = waiting.handle(.queueFinished)
        #expect(waiting == .waiting(Self.saved()))
    }
}
