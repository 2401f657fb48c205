// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskDisplay
import KioskInput
import KioskLibrary
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

private let alpha = PlayerFixtures.mainAlbums[0]
private let beta = PlayerFixtures.mainAlbums[1]

/// Stopped, playing and paused on the now-playing screen: the transport actions.
@Suite struct PlayerTransportTests {
    @Test func playPauseWhenStoppedPlaysTheCurrentTrackFromItsStart() throws {
        let rig = try PlayerRig.stopped(atTrack: 1)
        #expect(rig.player.status == .stopped)
        #expect(rig.title == "Noon")
        try rig.press(.playPause)
        #expect(rig.player.status == .playing)
        #expect(try rig.run { rig.tracksStarted == 1 })
        #expect(rig.title == "Noon")
        #expect(rig.player.positionSeconds < 1)
    }

    @Test func playWhenStoppedPlaysAndPauseWhenStoppedDoesNothing() throws {
        let rig = try PlayerRig.stopped(atTrack: 0)
        try rig.press(.pause)
        #expect(rig.player.status == .stopped)
        try rig.idle(300)
        #expect(rig.tracksStarted == 0)
        try rig.press(.play)
        #expect(rig.player.status == .playing)
        #expect(try rig.run { rig.tracksStarted == 1 })
        try rig.press(.play)
        #expect(rig.player.status == .playing)
    }

    @Test func playPauseWhilePlayingPausesAndHoldsThePosition() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try rig.waitForPosition(seconds: 0.5)
        try rig.press(.playPause)
        #expect(rig.player.status == .paused)
        let held = rig.player.positionFrames
        try rig.idle(600)
        #expect(rig.player.positionFrames == held)
        #expect(rig.engine.positionFrames <= held + 4410)
        // Pause is saved with the position.
        let saved = try #require(rig.saved())
        #expect(!saved.playing)
        #expect(saved.relativePath == PlayerFixtures.relativePath(alpha, 0))
        #expect(abs(saved.positionFrames - held) < 44_100 / 2)
    }

    @Test func playPauseWhilePausedContinuesWhereItPaused() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try rig.waitForPosition(seconds: 1)
        try rig.press(.pause)
        let held = rig.player.positionFrames
        try rig.press(.playPause)
        #expect(rig.player.status == .playing)
        #expect(try rig.run { rig.player.positionFrames > held + 4410 })
        // Continued, not restarted: no new trackStarted, the position went on from where it was.
        #expect(rig.tracksStarted == 1)
        #expect(rig.player.positionFrames > held)
    }

    @Test func playWhilePausedResumesAndPauseWhilePausedDoesNothing() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try rig.press(.pause)
        try rig.press(.pause)
        #expect(rig.player.status == .paused)
        try rig.press(.play)
        #expect(rig.player.status == .playing)
        let before = rig.player.positionFrames
        #expect(try rig.run { rig.player.positionFrames > before + 2205 })
    }

    @Test(arguments: [PlaybackStatus.playing, .paused])
    func stopRewindsToTheStartOfTheCurrentTrack(from status: PlaybackStatus) throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try rig.press(.next)
        #expect(try rig.run { rig.tracksStarted == 2 })
        try rig.waitForPosition(seconds: 1)
        if status == .paused { try rig.press(.pause) }
        try rig.press(.stop)
        #expect(rig.player.status == .stopped)
        #expect(rig.player.positionFrames == 0)
        #expect(rig.title == "Noon")
        let saved = try #require(rig.saved())
        #expect(
            saved.positionFrames == 0 && !saved.playing && saved.relativePath == PlayerFixtures.relativePath(alpha, 1))
        // Play starts the same track at its beginning.
        try rig.press(.play)
        #expect(try rig.run { rig.tracksStarted == 3 })
        #expect(rig.title == "Noon")
        #expect(rig.player.positionSeconds < 0.9)
    }

    @Test func aButtonsNextAsksForTheNewTracksArtworkOnceAndATrackBorderToo() throws {
        let screen = RecordingScreen()
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], recordingScreen: screen)
        try rig.playFirst()
        func requests(_ title: String) -> Int {
            let track = rig.player.queue.first { $0.title == title }!
            return screen.artworkRequests.count { $0 == PlayerView.artworkKey(for: track) }
        }
        try rig.press(.next)
        #expect(try rig.run { rig.tracksStarted == 2 && rig.title == "Noon" })
        #expect(requests("Noon") == 1, "asked when shown, not again when the engine confirmed it")
        #expect(try rig.run(seconds: 10) { rig.title == "Dusk" })
        #expect(requests("Dusk") == 1, "a track border asks once")
    }

    @Test func stopWhenStoppedStaysStopped() throws {
        let rig = try PlayerRig.stopped(atTrack: 2)
        try rig.press(.stop)
        #expect(rig.player.status == .stopped)
        #expect(rig.title == "Dusk")
        try rig.idle(200)
        #expect(rig.tracksStarted == 0)
    }

    @Test func nextWhilePlayingPlaysTheNextTrack() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try rig.press(.next)
        // The screen shows the next track at once; the engine confirms it.
        #expect(rig.title == "Noon")
        #expect(try rig.run { rig.tracksStarted == 2 })
        #expect(rig.player.queueIndex == 1)
        #expect(rig.player.status == .playing)
        // Saved on the track change.
        #expect(try rig.run { rig.saved()?.relativePath == PlayerFixtures.relativePath(alpha, 1) })
    }

    @Test(arguments: [PlaybackStatus.paused, .stopped])
    func nextWhileNotPlayingMovesAndKeepsTheState(status: PlaybackStatus) throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try rig.press(status == .paused ? .pause : .stop)
        try rig.press(.next)
        #expect(rig.player.status == status)
        #expect(rig.title == "Noon")
        #expect(rig.player.positionFrames == 0)
        try rig.idle(300)
        #expect(rig.tracksStarted == 1)
        // Playing now plays the track that was chosen.
        try rig.press(.playPause)
        #expect(try rig.run { rig.tracksStarted == 2 })
        #expect(rig.title == "Noon")
        #expect(rig.player.queueIndex == 1)
    }

    @Test(arguments: [PlaybackStatus.playing, .paused, .stopped])
    func nextOnTheLastTrackStopsAtTheEnd(status: PlaybackStatus) throws {
        let rig = try PlayerRig(
            volumes: [PlayerFixtures.main],
            resume: resumeState(
                volume: PlayerFixtures.main, album: alpha, number: 2, seconds: 1, playing: status == .playing))
        if status == .playing {
            #expect(try rig.run { rig.tracksStarted == 1 })
        } else if status == .stopped {
            try rig.press(.stop)
        }
        #expect(rig.player.status == status)
        #expect(rig.title == "Dusk")
        try rig.press(.next)
        #expect(rig.player.status == .stopped)
        #expect(rig.player.queueIndex == 0)
        #expect(rig.player.positionFrames == 0)
        let started = rig.tracksStarted
        try rig.idle(300)
        #expect(rig.tracksStarted == started)
        #expect(rig.saved()?.playing == false)
        #expect(rig.saved()?.relativePath == PlayerFixtures.relativePath(alpha, 0))
        // Play starts the collection again.
        try rig.press(.play)
        #expect(try rig.run { rig.tracksStarted == started + 1 })
        #expect(rig.title == "Dawn")
    }

    @Test func nextOnTheLastTrackWithRepeatPlaysTheFirst() throws {
        let rig = try PlayerRig(
            volumes: [PlayerFixtures.main],
            resume: resumeState(volume: PlayerFixtures.main, album: alpha, number: 2, seconds: 1, playing: true)
        ) { $0.repeatQueue = true }
        #expect(try rig.run { rig.tracksStarted == 1 })
        try rig.press(.next)
        #expect(try rig.run { rig.tracksStarted == 2 })
        #expect(rig.player.status == .playing)
        #expect(rig.title == "Dawn")
    }

    @Test func previousEarlyInATrackPlaysThePreviousTrack() throws {
        let rig = try PlayerRig(
            volumes: [PlayerFixtures.main],
            resume: resumeState(
                volume: PlayerFixtures.main, album: alpha, number: 1, seconds: 0, playing: true))
        #expect(try rig.run { rig.tracksStarted == 1 })
        try rig.waitForPosition(seconds: 0.5)
        try rig.press(.previous)
        #expect(rig.title == "Dawn")
        #expect(try rig.run { rig.tracksStarted == 2 })
        #expect(rig.player.queueIndex == 0)
        #expect(rig.player.positionSeconds < 1)
    }

    @Test(arguments: [PlaybackStatus.playing, .paused])
    func previousMoreThanThreeSecondsInRestartsTheTrack(status: PlaybackStatus) throws {
        let rig = try PlayerRig(
            volumes: [PlayerFixtures.main],
            resume: resumeState(
                volume: PlayerFixtures.main, album: alpha, number: 1, seconds: 3.5, playing: true))
        #expect(try rig.run { rig.tracksStarted == 1 })
        try rig.waitForPosition(seconds: 3.6)
        if status == .paused { try rig.press(.pause) }
        try rig.press(.previous)
        #expect(rig.title == "Noon")
        #expect(rig.player.positionFrames == 0)
        #expect(rig.player.status == status)
        if status == .playing {
            #expect(try rig.run { rig.tracksStarted == 2 })
            #expect(rig.title == "Noon")
            #expect(rig.player.positionSeconds < 1)
        } else {
            try rig.press(.play)
            #expect(try rig.run { rig.tracksStarted == 2 })
            #expect(rig.title == "Noon")
            #expect(rig.player.positionSeconds < 1)
        }
    }

    @Test func previousAfterThreeSecondsOfRealPlaybackRestarts() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try rig.press(.next)
        #expect(try rig.run { rig.tracksStarted == 2 })
        try rig.waitForPosition(seconds: 3.2)
        try rig.press(.previous)
        #expect(try rig.run { rig.tracksStarted == 3 })
        #expect(rig.title == "Noon")
    }

    @Test func previousOnTheFirstTrackRestartsIt() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try rig.press(.previous)
        #expect(try rig.run { rig.tracksStarted == 2 })
        #expect(rig.title == "Dawn")
        #expect(rig.player.queueIndex == 0)
    }

    @Test func previousWhileStoppedMovesBack() throws {
        let rig = try PlayerRig.stopped(atTrack: 2)
        try rig.press(.previous)
        #expect(rig.player.status == .stopped)
        #expect(rig.title == "Noon")
    }

    @Test func theQueuePlayedToItsEndStopsAtTheFirstTrack() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.short])
        try rig.playFirst()
        #expect(try rig.run { rig.player.status == .stopped })
        #expect(rig.tracksStarted == 2)
        #expect(rig.player.queueIndex == 0)
        #expect(rig.audioEvents.contains(.queueFinished))
        #expect(rig.saved()?.playing == false)
    }

    @Test func theQueuePlayedToItsEndStartsAgainWithRepeat() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.short]) { $0.repeatQueue = true }
        try rig.playFirst()
        #expect(try rig.run { rig.tracksStarted >= 3 })
        #expect(rig.player.status == .playing)
        #expect(rig.title == "Blip" || rig.title == "Blop")
    }

    @Test func aPausedRestoredPositionPlaysFromThere() throws {
        // The engine is only positioned (not paused) after a restore: play-pause must still start it.
        let rig = try PlayerRig(
            volumes: [PlayerFixtures.main],
            resume: resumeState(
                volume: PlayerFixtures.main, album: beta, number: 0, seconds: 2, playing: false))
        #expect(rig.player.status == .paused)
        #expect(rig.title == "Gust")
        #expect(abs(rig.player.positionSeconds - 2) < 0.01)
        try rig.press(.playPause)
        #expect(rig.player.status == .playing)
        #expect(try rig.run { rig.tracksStarted == 1 })
        #expect(rig.player.positionSeconds >= 2)
        #expect(try rig.run { rig.player.positionSeconds > 2.3 })
    }
}

/// Volume, from every mode.
@Suite struct PlayerVolumeTests {
    @Test(arguments: ["nowPlaying", "browse", "help", "menu"])
    func volumeChangesInEveryModeAndIsSaved(mode: String) throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main]) { $0.volume = 50 }
        try rig.playFirst()
        switch mode {
        case "browse": try rig.press(.select)
        case "help": try rig.press(.help)
        case "menu": try rig.press(.menu)
        default: break
        }
        let shown = rig.player.mode
        rig.forgetSaved()
        try rig.press(.volumeUp)
        #expect(rig.player.volume == 55)
        #expect(rig.player.mode == shown)
        #expect(try rig.waitForSave()?.volumePercent == 55)
        try rig.press(.volumeDown, steps: 3)
        #expect(rig.player.volume == 40)
    }

    @Test func volumeStaysWithin0And100() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main]) { $0.volume = 95 }
        try rig.press(.volumeUp, steps: 4)
        #expect(rig.player.volume == 100)
        try rig.press(.volumeDown, steps: 30)
        #expect(rig.player.volume == 0)
    }

    @Test func theNowPlayingScreenShowsTheVolumeOverlay() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main]) { $0.volume = 50 }
        try rig.playFirst()
        try rig.press(.volumeUp)
        guard case .nowPlaying(let s) = rig.player.screenState() else {
            Issue.record("not the now-playing screen")
            return
        }
        #expect(s.volumeOverlay == 55)
        // Changed in browse, the overlay does not come back later on the now-playing screen.
        try rig.press(.select)
        try rig.press(.volumeUp)
        try rig.press(.back)
        guard case .nowPlaying(let after) = rig.player.screenState() else {
            Issue.record("not the now-playing screen")
            return
        }
        #expect(after.volumeOverlay == nil)
    }
}

/// Browsing: categories, collections, selecting.
@Suite struct PlayerBrowseTests {
    @Test func nextCategoryCyclesAlbumArtistPlaylistGenreFolder() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        #expect(rig.player.category == .album)
        var seen: [KioskModel.Category] = []
        for _ in 0..<5 {
            try rig.press(.nextCategory)
            seen.append(rig.player.category)
            #expect(rig.player.mode == .browse)
            #expect(rig.player.selectedIndex == 0)
        }
        #expect(seen == [.artist, .playlist, .genre, .folder, .album])
        for _ in 0..<5 {
            try rig.press(.previousCategory)
            seen.append(rig.player.category)
        }
        #expect(Array(seen.suffix(5)) == [.folder, .genre, .playlist, .artist, .album])
    }

    @Test func emptyCategoriesAreSkipped() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.plain])
        var seen: [KioskModel.Category] = []
        for _ in 0..<4 {
            try rig.press(.nextCategory)
            seen.append(rig.player.category)
        }
        #expect(seen == [.artist, .genre, .folder, .album])
    }

    @Test func aNewCategoryShowsItsFirstCollection() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.press(.nextCategory)
        try rig.press(.down)
        #expect(rig.player.selectedIndex == 1)
        try rig.press(.nextCategory)
        try rig.press(.previousCategory)
        #expect(rig.player.category == .artist)
        #expect(rig.player.selectedIndex == 0)
        guard case .browse(let screen) = rig.player.screenState() else {
            Issue.record("not the browse screen")
            return
        }
        #expect(screen.categoryLabel == "Artists")
        #expect(screen.selectedIndex == 0)
        #expect(screen.items.map(\.title) == rig.collections(.artist).map(\.name))
    }

    @Test func categoryChangeIsSaved() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        rig.forgetSaved()
        try rig.press(.nextCategory)
        #expect(try rig.waitForSave()?.category == "artist")
    }

    @Test func downAndUpMoveTheSelectionAndWrap() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.selectCategory(.album)
        let count = rig.collections(.album).count
        #expect(count == 2)
        for action in [Action.down, .next, .nextCollection] {
            let before = rig.player.selectedIndex
            try rig.press(action)
            #expect(rig.player.selectedIndex == (before + 1) % count)
        }
        for action in [Action.up, .previous, .previousCollection] {
            let before = rig.player.selectedIndex
            try rig.press(action)
            #expect(rig.player.selectedIndex == (before + count - 1) % count)
        }
        try rig.press(.down, steps: 3)
        #expect(rig.player.selectedIndex == 1)
    }

    @Test func anAcceleratedMoveStopsAtTheEndOfTheListAndASingleStepThereWraps() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.selectCategory(.album)
        let count = rig.collections(.album).count
        try rig.press(.down, steps: count + 1)
        #expect(rig.player.selectedIndex == count - 1)
        try rig.press(.down)
        #expect(rig.player.selectedIndex == 0)
        try rig.press(.up, steps: 4)
        #expect(rig.player.selectedIndex == 0)
        try rig.press(.up)
        #expect(rig.player.selectedIndex == count - 1)
    }

    @Test(arguments: [Action.select, .play, .playPause])
    func selectPlaysTheSelection(action: Action) throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.selectCategory(.album)
        try rig.press(.down)
        let chosen = rig.collections(.album)[1]
        try rig.press(action)
        #expect(rig.player.mode == .nowPlaying)
        #expect(rig.player.queueCollection == chosen)
        #expect(rig.player.queue == rig.catalog.tracks(of: chosen))
        #expect(try rig.run { rig.tracksStarted == 1 })
        #expect(rig.player.queueIndex == 0)
        #expect(rig.player.status == .playing)
    }

    @Test func selectingAPlaylistQueuesItsTracksInItsOrder() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.selectCategory(.playlist)
        try rig.press(.select)
        #expect(rig.player.queue.map(\.title) == ["Calm", "Dawn"])
        #expect(try rig.run { rig.tracksStarted == 1 })
        #expect(rig.title == "Calm")
    }

    @Test func selectingAnArtistQueuesTheirTracks() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.selectCategory(.artist)
        let artist = rig.collections(.artist)[0]
        try rig.press(.select)
        #expect(rig.player.queue.allSatisfy { $0.artist == artist.name })
        #expect(rig.player.queue.count == artist.trackCount)
    }

    @Test func withNothingQueuedTheNowPlayingScreenIsTheBrowseListAndSelectPlays() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        #expect(rig.player.mode == .nowPlaying)
        guard case .browse(let screen) = rig.player.screenState() else {
            Issue.record("expected the browse list, got \(rig.player.screenState())")
            return
        }
        #expect(screen.categoryLabel == "Albums")
        try rig.press(.select)
        #expect(rig.player.status == .playing)
        #expect(rig.player.queueCollection == rig.collections(.album)[0])
    }

    @Test func playWithNothingQueuedPlaysTheSelectedCollection() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.press(.playPause)
        #expect(rig.player.status == .playing)
        #expect(rig.player.queueCollection == rig.collections(.album)[0])
    }

    @Test func selectOnNowPlayingOpensTheListAtThePlayingCollection() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst(.album, index: 1)
        try rig.press(.select)
        #expect(rig.player.mode == .browse)
        #expect(rig.player.selectedIndex == 1)
        #expect(rig.player.status == .playing)
        try rig.press(.back)
        #expect(rig.player.mode == .nowPlaying)
        try rig.press(.nextCollection)
        #expect(rig.player.mode == .browse)
        #expect(rig.player.selectedIndex == 0)
    }

    @Test(arguments: [Action.pause, .stop])
    func pauseAndStopInBrowseActOnPlayback(action: Action) throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try rig.press(.select)
        try rig.press(action)
        #expect(rig.player.mode == .browse)
        #expect(rig.player.status == (action == .pause ? .paused : .stopped))
    }

    @Test func backInBrowseReturnsToNowPlayingAndPlaybackGoesOn() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try rig.press(.nextCategory)
        #expect(rig.player.mode == .browse)
        #expect(rig.player.status == .playing)
        try rig.press(.back)
        #expect(rig.player.mode == .nowPlaying)
        #expect(rig.player.status == .playing)
        guard case .nowPlaying(let screen) = rig.player.screenState() else {
            Issue.record("not the now-playing screen")
            return
        }
        #expect(screen.title == "Dawn")
        #expect(screen.categoryLabel == "Album")
        #expect(screen.queuePosition == 1 && screen.queueCount == 3)
    }

    @Test func browseAndHelpAndMenuOpenFromEachOther() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try rig.press(.select)
        #expect(rig.player.mode == .browse)
        try rig.press(.menu)
        #expect(rig.player.mode == .menu(selected: 0))
        try rig.press(.help)
        #expect(rig.player.mode == .help(page: 0))
        try rig.press(.back)
        #expect(rig.player.mode == .nowPlaying)
        try rig.press(.nextCategory)
        try rig.press(.help)
        #expect(rig.player.mode == .help(page: 0))
    }
}

/// The help pages and the menu.
@Suite struct PlayerHelpAndMenuTests {
    @Test(.tags(.integration)) func helpTurnsPagesWithinBoundsAndCloses() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], screen: true)
        rig.player.helpEntries = (1...40).map { HelpEntry(control: "button \($0)", action: "action \($0)") }
        let pages = rig.player.helpPageCount
        #expect(pages > 1)
        try rig.press(.help)
        try rig.press(.previous)
        #expect(rig.player.mode == .help(page: 0))
        for _ in 0..<(pages + 2) { try rig.press(.next) }
        #expect(rig.player.mode == .help(page: pages - 1))
        try rig.press(.up)
        #expect(rig.player.mode == .help(page: pages - 2))
        guard case .help(let screen) = rig.player.screenState() else {
            Issue.record("not the help screen")
            return
        }
        #expect(screen.page == pages - 2)
        #expect(rig.display?.state == rig.player.screenState())
        for close in [Action.back, .help, .select, .playPause, .menu, .playFromStart] {
            try rig.press(.help)
            try rig.press(close)
            #expect(rig.player.mode == .nowPlaying, "\(close) should close help")
        }
    }

    @Test func stopInHelpStopsAndKeepsHelpOpen() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try rig.press(.help)
        try rig.press(.stop)
        #expect(rig.player.status == .stopped)
        #expect(rig.player.mode == .help(page: 0))
        try rig.press(.play)
        #expect(rig.player.status == .playing)
        #expect(rig.player.mode == .help(page: 0))
    }

    @Test func menuMovesAndWraps() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.press(.menu)
        let count = rig.player.menuEntries.count
        try rig.press(.previous)
        #expect(rig.player.mode == .menu(selected: count - 1))
        try rig.press(.down)
        try rig.press(.next)
        #expect(rig.player.mode == .menu(selected: 1))
        try rig.press(.back)
        #expect(rig.player.mode == .nowPlaying)
    }

    @Test func menuRepeatToggles() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.press(.menu)
        try rig.press(.down)
        #expect(rig.player.menuEntries[1] == "Repeat: off")
        try rig.press(.select)
        #expect(rig.player.repeatQueue)
        #expect(rig.player.menuEntries[1] == "Repeat: on")
        try rig.press(.down)
        #expect(rig.player.menuEntries[2] == "Shuffle: off")
        try rig.press(.down)
        #expect(rig.player.menuEntries[3] == "Sleep: off")
        try rig.press(.down)
        try rig.press(.select)
        #expect(rig.player.mode == .help(page: 0))
        try rig.press(.back)
        try rig.press(.menu)
        try rig.press(.up)
        #expect(rig.player.menuEntries[5] == "Cards: 0 linked")
        #expect(rig.player.menuEntries[6] == "Close")
        try rig.press(.select)
        #expect(rig.player.mode == .nowPlaying)
    }

    @Test(arguments: [PlaybackStatus.playing, .paused, .stopped])
    func theOutputDeviceIsChangeableFromTheMenuInEveryState(status: PlaybackStatus) throws {
        // The second device is an ALSA card that is not there: choosing it works all the same.
        let file = "hw:CARD=KioskTestMissing"
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], devices: ["none", file])
        try rig.playFirst()
        try rig.waitForPosition(seconds: 0.3)
        if status == .paused { try rig.press(.pause) }
        if status == .stopped { try rig.press(.stop) }
        try rig.press(.menu)
        #expect(rig.player.menuEntries[0] == "Output: none")
        try rig.press(.select)
        #expect(rig.player.outputDevice == file)
        #expect(rig.engine.device == file)
        #expect(rig.player.menuEntries[0] == "Output: \(file)")
        #expect(rig.player.status == status)
        #expect(try rig.run { rig.saved()?.outputDevice == file })
        // And back.
        try rig.press(.select)
        #expect(rig.engine.device == "none")
        #expect(rig.player.mode == .menu(selected: 0))
    }

    @Test func theMenuStillOffersTheOutputWhenTheDeviceIsLost() throws {
        // An ALSA device that cannot open is lost at once; the menu entry stays, and choosing it
        // switches to the other device.
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], devices: ["hw:CARD=NoSuchCard", "none"])
        try rig.selectCategory(.album)
        try rig.press(.select)
        #expect(try rig.run { rig.audioEvents.contains { if case .deviceLost = $0 { true } else { false } } })
        guard case .nowPlaying(let screen) = rig.player.screenState() else {
            Issue.record("not the now-playing screen")
            return
        }
        #expect(screen.statusLine == "Audio device unplugged")
        try rig.press(.menu)
        #expect(rig.player.menuEntries[0] == "Output: hw:CARD=NoSuchCard")
        try rig.press(.select)
        #expect(rig.engine.device == "none")
        #expect(try rig.run { rig.tracksStarted >= 1 })
    }
}

/// Resume state: when it is saved, and what a restart restores.
@Suite struct PlayerResumeTests {
    @Test func savedOnTrackChangePauseStopVolumeAndCategory() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        rig.forgetSaved()
        try rig.press(.next)
        #expect(try rig.waitForSave()?.relativePath == PlayerFixtures.relativePath(alpha, 1))
        rig.forgetSaved()
        try rig.press(.pause)
        #expect(try rig.waitForSave()?.playing == false)
        rig.forgetSaved()
        try rig.press(.stop)
        #expect(try rig.waitForSave()?.positionFrames == 0)
        rig.forgetSaved()
        try rig.press(.volumeDown)
        #expect(try rig.waitForSave()?.volumePercent == 65)
        rig.forgetSaved()
        try rig.press(.nextCategory)
        #expect(try rig.waitForSave()?.category == "artist")
    }

    @Test func savedPeriodicallyWhilePlayingAndNotWhilePaused() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        rig.player.saveIntervalMilliseconds = 300
        try rig.playFirst()
        try rig.idle(100)
        var positions: [Int64] = []
        for _ in 0..<3 {
            rig.forgetSaved()
            let state = try rig.waitForSave(seconds: 1)
            positions.append(state?.positionFrames ?? -1)
            #expect(state?.playing == true)
        }
        #expect(positions == positions.sorted() && positions[0] < positions[2])
        try rig.press(.pause)
        rig.forgetSaved()
        try rig.idle(800)
        #expect(rig.saved() == nil)
    }

    @Test func theDefaultPeriodLosesAtMostFiveSeconds() throws {
        let rig = try PlayerRig(volumes: [])
        #expect(rig.player.saveIntervalMilliseconds == Player.defaultSaveIntervalMilliseconds)
        #expect(Player.defaultSaveIntervalMilliseconds < 5000)
    }

    @Test func aRestartResumesTheSameTrackAtTheSavedPosition() throws {
        var saved = resumeState(volume: PlayerFixtures.main, album: beta, number: 1, seconds: 2.5, playing: true)
        let probe = try PlayerRig(volumes: [PlayerFixtures.main])
        let albumKey = probe.collections(.album).first { $0.name == beta.title }!.key
        probe.shutdown()
        saved.collection = .init(category: "album", key: albumKey)
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], resume: saved)
        #expect(rig.title == "Calm")
        #expect(rig.player.queue.map(\.title) == ["Gust", "Calm"])
        #expect(rig.player.status == .playing)
        #expect(try rig.run { rig.tracksStarted == 1 })
        // The first position reported is the saved one (not 0).
        #expect(rig.player.positionSeconds >= 2.5)
        #expect(rig.player.positionSeconds < 3.5)
    }

    /// MPD clients resync with `plchanges LAST-VERSION` and cached ids: after a restart the restored
    /// queue's entries have the ids they had, and the version goes on from where it was.
    @Test func aRestartKeepsTheQueuesSongIDsAndItsVersion() throws {
        let first = try PlayerRig(volumes: [PlayerFixtures.main])
        try first.playFirst()
        first.player.perform(.next, from: .button)
        let ids = first.player.playQueue.identity.songIDs
        let version = first.player.playQueue.identity.version
        first.player.saveNow()
        let saved = try #require(first.saved())
        first.shutdown()
        #expect(saved.queueVersion == version)
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], resume: saved)
        #expect(rig.player.queue == first.player.queue)
        #expect(rig.player.playQueue.identity.songIDs == ids)
        #expect(rig.player.playQueue.identity.version > version)
        #expect(rig.player.mpdCurrentPosition == 1)
    }

    /// A queue a remote client built (no collection to make it again from) comes back whole after
    /// a restart, in its order, duplicates and all, with its ids; not the current track's folder.
    @Test func aQueueARemoteClientBuiltComesBackAfterARestart() throws {
        let first = try PlayerRig(volumes: [PlayerFixtures.main])
        let all = first.catalog.allTracks
        let built = [all[3], all[0], all[3], all[1]]
        first.player.perform(.insert(built, at: nil), from: .remote)
        first.player.perform(.move(0..<1, to: 3), from: .remote)
        first.player.perform(.playEntry(1), from: .remote)
        let queue = first.player.queue
        let ids = first.player.playQueue.identity.songIDs
        first.player.saveNow()
        let saved = try #require(first.saved())
        first.shutdown()
        #expect(saved.collection == nil)
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], resume: saved)
        #expect(rig.player.queue == queue)
        #expect(rig.player.queueIndex == 1)
        #expect(rig.player.playQueue.identity.songIDs == ids)
        #expect(rig.player.status == .playing)
    }

    /// A client adding songs one by one: the queue file is written at most once per interval
    /// (it was rewritten whole, with fsync, per add), and the last edit is written when it ends.
    @Test func aClientsQueueFileIsWrittenAtMostOncePerIntervalAndEndsWithTheLastEdit() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        let clock = try #require(rig.clock)
        let track = rig.catalog.allTracks[0]
        for _ in 0..<10 {
            rig.player.perform(.insert([track], at: nil), from: .remote)
            rig.player.saveNow()
            clock.advance(byMilliseconds: 100)
        }
        rig.player.flushSaves()
        #expect(rig.player.recorder.clientQueueWrites == 1)
        clock.advance(byMilliseconds: rig.player.recorder.clientQueueIntervalMilliseconds)
        rig.player.flushSaves()
        #expect(rig.player.recorder.clientQueueWrites == 2)
        let saved = try #require(rig.saved())
        #expect(saved.clientQueue?.count == 10)
    }

    @Test func aMissingCollectionResumesInTheTracksFolder() throws {
        var saved = resumeState(volume: PlayerFixtures.main, album: alpha, number: 2, seconds: 1, playing: false)
        saved.collection = .init(category: "playlist", key: "no such playlist")
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], resume: saved)
        #expect(rig.title == "Dusk")
        #expect(rig.player.queue.map(\.title) == ["Dawn", "Noon", "Dusk"])
        #expect(rig.player.queueCollection?.category == .folder)
        #expect(rig.player.status == .paused)
    }

    @Test func aTrackThatIsGoneIsNotResumed() throws {
        var saved = resumeState(volume: PlayerFixtures.main, album: alpha, number: 0, seconds: 1, playing: true)
        saved.relativePath = "Alpha/First Light/09 Gone.flac"
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], resume: saved)
        #expect(rig.player.queue.isEmpty)
        #expect(rig.player.status == .stopped)
    }

    @Test func aSavedQueueWaitsForItsStickAndGivesWayToAChoice() throws {
        let saved = resumeState(volume: PlayerFixtures.main, album: alpha, number: 0, seconds: 1, playing: true)
        let rig = try PlayerRig(volumes: [PlayerFixtures.plain], resume: saved)
        #expect(rig.player.queue.isEmpty)
        // Until something is chosen, the saved state is kept as it was.
        rig.player.saveNow()
        #expect(rig.saved()?.relativePath == saved.relativePath)
        try rig.press(.select)
        #expect(rig.player.queueCollection?.name == "Only Album")
        // The stick with the saved track arrives later: what plays now stays.
        rig.library.addVolume(path: PlayerFixtures.main)
        #expect(try rig.run { rig.library.isIdle && rig.catalog.trackCount == 7 })
        #expect(rig.player.queueCollection?.name == "Only Album")
    }

    @Test func shutdownSavesTheLivePosition() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try rig.waitForPosition(seconds: 1)
        try rig.idle(150)
        let engineFrames = rig.engine.positionFrames
        rig.player.shutdown()
        let saved = try #require(rig.saved())
        #expect(saved.playing)
        #expect(saved.positionFrames >= engineFrames)
        #expect(saved.positionFrames < engineFrames + 44_100 / 5)
    }
}

/// The library coming and going.
@Suite struct PlayerLibraryTests {
    @Test func withoutAStickTheScreenAsksForOne() throws {
        let rig = try PlayerRig(volumes: [])
        #expect(
            rig.player.screenState()
                == .message(MessageState(title: "Insert a USB stick with music", detail: nil, kind: .info)))
        // Every action is harmless.
        for action in Action.allCases where action != .shutdown {
            try rig.press(action)
        }
        #expect(rig.player.status == .stopped)
        #expect(rig.player.queue.isEmpty)
    }

    @Test func aStickWithoutMusicSaysSo() throws {
        let empty = try TemporaryDirectory("kiosk-empty-stick")
        defer { empty.remove() }
        try empty.write("notes.txt", "no music here")
        let rig = try PlayerRig(volumes: [])
        let message = try rig.messageAfterScanning(empty.path)
        #expect(message.title == "No playable music files")
    }

    @Test("a stick of DRM-protected and broken files says how many of each it left out")
    func aStickOfProtectedFilesNamesThem() throws {
        let stick = try TemporaryDirectory("kiosk-drm-stick")
        defer { stick.remove() }
        // Two iTunes Store purchases (FairPlay 'drms' sample entries) and a file that is no music.
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let n = body.count + 8
            return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array(type.utf8)
                + body
        }
        let entry = box("drms", [UInt8](repeating: 0, count: 28))
        let moov = box(
            "moov", box("trak", box("mdia", box("minf", box("stbl", box("stsd", [0, 0, 0, 0, 0, 0, 0, 1] + entry))))))
        let m4p = box("ftyp", Array("M4P ".utf8) + [0, 0, 0, 0]) + moov
        try stick.write("Bought/01 Song.m4p", m4p)
        try stick.write("Bought/02 Song.m4a", m4p)
        try stick.write("Other/broken.mp3", "not an mp3")
        let rig = try PlayerRig(volumes: [])
        let message = try rig.messageAfterScanning(stick.path)
        #expect(message.title == "No playable music files")
        #expect(message.detail == "2 files are DRM-protected, 1 cannot be played")
        #expect(rig.catalog.problems.filter { $0.reason == "DRM-protected (FairPlay): cannot be played" }.count == 2)
    }

    @Test func removingTheStickOfTheCurrentTrackStopsWithAMessage() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main, PlayerFixtures.plain])
        try rig.playFirst()
        #expect(rig.player.queueCollection?.name == "First Light")
        rig.library.removeVolume(path: PlayerFixtures.main)
        try rig.idle(50)
        #expect(rig.player.status == .stopped)
        #expect(rig.player.queue.isEmpty)
        #expect(
            rig.player.screenState()
                == .message(MessageState(title: "USB stick removed", detail: "Playback stopped", kind: .info)))
        #expect(try rig.run { rig.saved()?.relativePath == nil })
        // A press dismisses the message; the remaining stick's music is there to choose.
        try rig.press(.select)
        guard case .browse(let screen) = rig.player.screenState() else {
            Issue.record("expected the browse list, got \(rig.player.screenState())")
            return
        }
        #expect(screen.items.map(\.title) == ["Only Album"])
        try rig.press(.select)
        #expect(rig.player.status == .playing)
    }

    /// A stick pulled out: its files are gone before the library notices. Stopping must not send
    /// the engine to open the current track again (it cannot: "Cannot play …" would then replace
    /// "USB stick removed" on the screen; found by the system test's scenario 12).
    @Test func aYankedStickShowsItsMessageAndNoUnplayableFiles() throws {
        let scratch = try TemporaryDirectory("kiosk-yank")
        defer { scratch.remove() }
        let stick = scratch.file("stick")
        #expect(run("/bin/cp", ["-r", PlayerFixtures.main, stick]).status == 0)
        let rig = try PlayerRig(volumes: [stick, PlayerFixtures.plain])
        try rig.playFirst()
        #expect(rename(stick, scratch.file("gone")) == 0)
        let before = rig.audioEvents.count
        rig.library.removeVolume(path: stick)
        try rig.idle(500)
        let errors = rig.audioEvents[before...].filter { if case .error = $0 { true } else { false } }
        #expect(errors.isEmpty, "\(errors)")
        #expect(rig.player.status == .stopped)
        #expect(
            rig.player.screenState()
                == .message(MessageState(title: "USB stick removed", detail: "Playback stopped", kind: .info)))
    }

    @Test func removingAnotherStickKeepsPlayingAndDropsItsTracksFromTheQueue() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main, PlayerFixtures.plain])
        // A genre with tracks of both sticks would do; a folder-free way: play all of an artist, then
        // remove the other stick: the queue is untouched and playback goes on.
        try rig.playFirst()
        let started = rig.tracksStarted
        rig.library.removeVolume(path: PlayerFixtures.plain)
        try rig.idle(300)
        #expect(rig.player.status == .playing)
        #expect(rig.player.queue.count == 3)
        #expect(rig.tracksStarted == started)
    }

    @Test func theScreenShowsScanningWhileAStickIsScanned() throws {
        let rig = try PlayerRig(volumes: [])
        rig.player.handle(.volumeAdded(VolumeID(rawValue: "X"), mountPoint: "/media/x"), catalog: Catalog.empty)
        guard case .message(let message) = rig.player.screenState() else {
            Issue.record("not a message")
            return
        }
        #expect(message.title == "Scanning…")
        #expect(message.kind == .progress)
    }
}

/// The display gets what the player shows.
@Suite(.tags(.integration)) struct PlayerScreenTests {
    @Test func theDisplayShowsThePlayersState() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], screen: true)
        #expect(rig.display?.state == rig.player.screenState())
        try rig.playFirst()
        guard case .nowPlaying(let screen) = rig.display?.state else {
            Issue.record("the display does not show now playing")
            return
        }
        #expect(screen.title == "Dawn")
        #expect(screen.artist == "Alpha")
        #expect(screen.album == "First Light")
        #expect(screen.playback == .playing)
        #expect(screen.totalSeconds == 6)
        #expect((rig.display?.framesPresented ?? 0) > 1)
    }

    @Test func aTransientMessageIsDismissedByAPressThatDoesNothingElse() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main, PlayerFixtures.plain])
        try rig.playFirst()
        rig.library.removeVolume(path: PlayerFixtures.main)
        try rig.idle(20)
        guard case .message = rig.player.screenState() else {
            Issue.record("no message after the stick went away")
            return
        }
        // Volume works while the message shows, and leaves it there.
        try rig.press(.volumeDown)
        #expect(rig.player.volume == 65)
        guard case .message = rig.player.screenState() else {
            Issue.record("the volume dismissed the message")
            return
        }
        try rig.press(.nextCategory)
        #expect(rig.player.category == .album)
        #expect(rig.player.mode == .nowPlaying)
        guard case .browse = rig.player.screenState() else {
            Issue.record("the message is still there")
            return
        }
    }
}

/// Output devices (on the fake engine: devices that do not open, menus, fallback in virtual time).
@Suite struct PlayerOutputTests {
    @Test func switchingAwayFromALostDeviceReportsNoLossOfTheNewOne() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], devices: ["hw:CARD=KioskTestMissing", "none"])
        try rig.selectCategory(.album)
        try rig.press(.select)
        #expect(try rig.run { rig.audioEvents.contains { if case .deviceLost = $0 { true } else { false } } })
        try rig.press(.menu)
        try rig.press(.select)
        #expect(rig.engine.device == "none")
        #expect(try rig.run { rig.player.positionSeconds > 0.5 })
        let lostNone = rig.audioEvents.filter { if case .deviceLost("none", _) = $0 { true } else { false } }
        #expect(lostNone.isEmpty, "\(lostNone)")
        try rig.press(.back)
        guard case .nowPlaying(let screen) = rig.player.screenState() else {
            Issue.record("not the now-playing screen")
            return
        }
        #expect(screen.statusLine == nil)
    }

    @Test func anUnpluggedDeviceFallsBackAfterTheDelayAndIsTakenBackWhenItReturns() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], devices: ["usb-dac", "none"])
        let fake = try #require(rig.fake)
        fake.opens = { _ in true }
        try rig.playFirst()
        func statusLine() -> String?? {
            guard case .nowPlaying(let screen) = rig.player.screenState() else { return .none }
            return .some(screen.statusLine)
        }
        fake.disconnect("usb-dac")
        try rig.idle(20)
        #expect(statusLine() == .some("Audio device unplugged"))
        #expect(rig.engine.device == "usb-dac")
        try rig.idle(rig.player.fallbackDelayMilliseconds)
        #expect(rig.engine.device == "none")
        #expect(statusLine() == .some("Output: none"))
        #expect(rig.player.status == .playing)
        let held = rig.player.positionFrames
        try rig.idle(1000)
        #expect(rig.player.positionFrames > held, "plays on on the fallback")
        fake.reconnect("usb-dac")
        try rig.idle(rig.player.returnProbeMilliseconds)
        #expect(rig.engine.device == "usb-dac")
        #expect(statusLine() == .some(nil))
        #expect(rig.player.preferredDevice == "usb-dac")
    }
}

/// What only the real engine shows: the samples reach an ALSA file device after a switch, and a
/// device that opens but fails at the first write is left and taken back. Real audio threads and
/// wall-clock waits, so few tests here.
@Suite(Emulation.wallClockPaced, .tags(.integration)) struct PlayerOnTheRealEngineTests {
    @Test func switchingBetweenWorkingDevicesLosesNothing() throws {
        let scratch = try TemporaryDirectory("kiosk-output")
        defer { scratch.remove() }
        let file = "file:'\(scratch.file("out.raw"))',raw"
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], devices: ["none", file], realEngine: true)
        try rig.playFirst()
        try rig.waitForPosition(seconds: 0.3)
        try rig.press(.menu)
        try rig.press(.select)
        #expect(rig.engine.device == file)
        // The file device takes the rest of the queue at once.
        #expect(try rig.run { rig.player.status == .stopped })
        let lost = rig.audioEvents.filter { if case .deviceLost = $0 { true } else { false } }
        #expect(lost.isEmpty, "\(lost)")
        let written = (try? Syscalls.fileStatus(scratch.file("out.raw")).st_size) ?? 0
        #expect(written > 44_100 * 4 * 10)
    }

    @Test func aLostDeviceFallsBackToTheNextAndIsTakenBackWhenItWorksAgain() throws {
        // A file device in a folder that does not exist yet opens but fails at the first write:
        // "unplugged" until the folder is made. The player falls back to "none", and tries the
        // chosen device again now and then (backing off while it keeps failing).
        let scratch = try TemporaryDirectory("kiosk-fallback")
        defer { scratch.remove() }
        let preferred = "file:'\(scratch.file("later/out.raw"))',raw"
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], devices: [preferred, "none"], realEngine: true)
        rig.player.fallbackDelayMilliseconds = 200
        rig.player.returnProbeMilliseconds = 200
        try rig.selectCategory(.album)
        try rig.press(.select)
        func statusLine() -> String?? {
            guard case .nowPlaying(let screen) = rig.player.screenState() else { return .none }
            return .some(screen.statusLine)
        }
        #expect(try rig.run { rig.engine.device == "none" && statusLine() == .some("Output: none") })
        #expect(rig.player.preferredDevice == preferred)
        #expect(rig.player.status == .playing)
        #expect(try rig.run { rig.player.positionSeconds > 0.3 })
        try Syscalls.mkdirs(scratch.file("later"))
        // The file device takes the rest at once: the queue ends, and the samples are in the file.
        #expect(try rig.run { rig.engine.device == preferred && rig.player.status == .stopped })
        #expect(statusLine() == .some(nil))
        #expect(((try? Syscalls.fileStatus(scratch.file("later/out.raw")).st_size) ?? 0) > 44_100 * 4)
    }
}

/// A restart plays the saved track as soon as its stick is there, before the stick's scan ends.
@Suite struct PlayerFastResumeTests {
    func savedWithScreenFields(
        _ volume: String, _ album: PlayerFixtures.Album, _ number: Int, seconds: Double, playing: Bool = true
    ) -> ResumeState {
        var saved = resumeState(volume: volume, album: album, number: number, seconds: seconds, playing: playing)
        saved.title = album.tracks[number]
        saved.artist = album.artist
        saved.album = album.title
        saved.durationSeconds = album.seconds
        saved.queueCount = album.tracks.count
        return saved
    }

    func announce(_ rig: PlayerRig, _ volume: String) {
        rig.player.handle(
            .volumeAdded(VolumeIdentity.identify(directory: volume), mountPoint: volume), catalog: Catalog.empty)
    }

    @Test func theSavedTrackPlaysBeforeTheCatalogAndJoinsItsQueueWithoutARestart() throws {
        let rig = try PlayerRig(
            volumes: [], resume: savedWithScreenFields(PlayerFixtures.main, alpha, 1, seconds: 2))
        announce(rig, PlayerFixtures.main)
        #expect(rig.player.status == .playing)
        #expect(rig.player.queue.isEmpty)
        #expect(try rig.run { rig.tracksStarted == 1 })
        #expect(rig.player.positionSeconds >= 2)
        guard case .nowPlaying(let screen) = rig.player.screenState() else {
            Issue.record("expected now playing, got \(rig.player.screenState())")
            return
        }
        #expect(screen.title == "Noon" && screen.artist == "Alpha" && screen.album == "First Light")
        #expect(screen.queuePosition == 2 && screen.queueCount == 3 && screen.playback == .playing)
        // Saved meanwhile: the same track, where it is now.
        rig.player.saveNow()
        #expect(rig.saved()?.relativePath == PlayerFixtures.relativePath(alpha, 1))
        #expect((rig.saved()?.positionSeconds ?? 0) >= 2)
        // The catalog arrives: the queue is the folder around the track, and nothing restarted.
        rig.library.addVolume(path: PlayerFixtures.main)
        #expect(try rig.run { !rig.player.queue.isEmpty })
        #expect(rig.player.queue.map(\.title) == ["Dawn", "Noon", "Dusk"])
        #expect(rig.player.queueIndex == 1)
        #expect(rig.title == "Noon")
        let before = rig.player.positionFrames
        #expect(try rig.run { rig.player.positionFrames > before + 4410 })
        #expect(rig.tracksStarted == 1)
    }

    @Test func theRestoredTrackFlowsIntoTheNextTrackOfItsQueue() throws {
        let rig = try PlayerRig(
            volumes: [PlayerFixtures.main], resume: savedWithScreenFields(PlayerFixtures.main, alpha, 0, seconds: 5.5))
        #expect(rig.title == "Dawn")
        #expect(try rig.run { rig.title == "Noon" && rig.tracksStarted == 2 })
        #expect(rig.player.status == .playing)
        #expect(rig.player.queueIndex == 1)
    }

    @Test func aRestoredTrackThatEndsBeforeTheCatalogContinuesOnceItComes() throws {
        let short = PlayerFixtures.shortAlbums[0]
        let rig = try PlayerRig(volumes: [], resume: savedWithScreenFields(PlayerFixtures.short, short, 0, seconds: 0))
        announce(rig, PlayerFixtures.short)
        #expect(try rig.run { rig.audioEvents.contains(.queueFinished) })
        rig.library.addVolume(path: PlayerFixtures.short)
        #expect(try rig.run { rig.tracksStarted == 2 })
        #expect(rig.title == "Blop")
        #expect(rig.player.queueIndex == 1)
    }

    @Test func skippingAfterTheCatalogCameHandsTheEngineTheWholeQueue() throws {
        let rig = try PlayerRig(
            volumes: [PlayerFixtures.main], resume: savedWithScreenFields(PlayerFixtures.main, alpha, 0, seconds: 1))
        #expect(try rig.run { rig.tracksStarted == 1 })
        try rig.press(.next)
        #expect(try rig.run { rig.tracksStarted == 2 })
        #expect(rig.title == "Noon")
        try rig.press(.next)
        #expect(try rig.run { rig.tracksStarted == 3 })
        #expect(rig.title == "Dusk")
    }

    @Test func pullingTheStickBeforeItsCatalogStopsWithAMessage() throws {
        let rig = try PlayerRig(volumes: [], resume: savedWithScreenFields(PlayerFixtures.main, alpha, 0, seconds: 1))
        announce(rig, PlayerFixtures.main)
        #expect(try rig.run { rig.tracksStarted == 1 })
        rig.player.handle(
            .volumeRemoved(VolumeIdentity.identify(directory: PlayerFixtures.main), mountPoint: PlayerFixtures.main),
            catalog: Catalog.empty)
        #expect(rig.player.status == .stopped)
        #expect(
            rig.player.screenState()
                == .message(MessageState(title: "USB stick removed", detail: "Playback stopped", kind: .info)))
        let position = rig.engine.positionFrames
        try rig.idle(300)
        #expect(rig.engine.positionFrames == position || rig.engine.currentTrackID == nil)
        // The saved state still names the track, for when the stick comes back.
        rig.player.saveNow()
        #expect(rig.saved()?.relativePath == PlayerFixtures.relativePath(alpha, 0))
    }

    @Test func aStoppedSavedTrackPlaysOnPlayBeforeTheCatalogComes() throws {
        let rig = try PlayerRig(
            volumes: [], resume: savedWithScreenFields(PlayerFixtures.main, alpha, 1, seconds: 0, playing: false))
        announce(rig, PlayerFixtures.main)
        #expect(rig.player.status == .stopped)
        try rig.press(.playPause)
        #expect(rig.player.status == .playing)
        #expect(try rig.run { rig.tracksStarted == 1 })
        guard case .nowPlaying(let screen) = rig.player.screenState() else {
            Issue.record("not the now-playing screen")
            return
        }
        #expect(screen.title == "Noon")
    }

    @Test func aPausedSavedTrackIsShownAndWaitsForPlay() throws {
        let rig = try PlayerRig(
            volumes: [], resume: savedWithScreenFields(PlayerFixtures.main, alpha, 2, seconds: 3, playing: false))
        announce(rig, PlayerFixtures.main)
        #expect(rig.player.status == .paused)
        try rig.idle(300)
        #expect(rig.tracksStarted == 0)
        try rig.press(.playPause)
        #expect(try rig.run { rig.tracksStarted == 1 })
        #expect(rig.player.positionSeconds >= 3)
    }
}

/// Things around the state machine: going back by itself, shutting down, the systemd status.
@Suite struct PlayerHousekeepingTests {
    @Test(arguments: [Action.select, .help, .menu])
    func browseHelpAndMenuGoBackToNowPlayingWhenLeftAlone(open: Action) throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        rig.player.browseTimeoutMilliseconds = 300
        try rig.playFirst()
        try rig.press(open)
        #expect(rig.player.mode != .nowPlaying)
        #expect(try rig.run(seconds: 3) { rig.player.mode == .nowPlaying })
        guard case .nowPlaying = rig.player.screenState() else {
            Issue.record("not the now-playing screen")
            return
        }
    }

    @Test func withNothingQueuedTheListStays() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        rig.player.browseTimeoutMilliseconds = 200
        try rig.press(.nextCategory)
        try rig.idle(500)
        #expect(rig.player.mode == .browse)
        #expect(rig.player.category == .artist)
    }

    @Test func theShutdownControlStopsSavesAndSaysSo() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        var asked = 0
        rig.player.listen(to: .shutdown) { _ in asked += 1 }
        try rig.playFirst()
        try rig.waitForPosition(seconds: 0.5)
        try rig.press(.shutdown)
        #expect(asked == 1)
        #expect(rig.player.status == .stopped)
        #expect(
            rig.player.screenState()
                == .message(MessageState(title: "Shutting down", detail: "Safe to unplug in a moment", kind: .info)))
        #expect(rig.saved()?.relativePath == PlayerFixtures.relativePath(alpha, 0))
        // Nothing else is done any more.
        try rig.press(.playPause)
        #expect(rig.player.status == .stopped)
    }

    @Test func withoutAShutdownHandlerTheControlDoesNothing() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try rig.press(.shutdown)
        #expect(rig.player.status == .playing)
    }

    @Test func theSystemdStatusLineFollowsPlayback() throws {
        let rig = try PlayerRig(volumes: [])
        var lines: [String] = []
        rig.player.listen(to: .status) { if case .status(let line) = $0 { lines.append(line) } }
        rig.player.refreshScreen()
        #expect(lines.last == "Insert a USB stick with music")
        rig.library.addVolume(path: PlayerFixtures.main)
        #expect(try rig.run { rig.library.isIdle && rig.player.catalog?.trackCount == 5 })
        try rig.press(.select)
        #expect(lines.last == "Playing Alpha – Dawn")
        try rig.press(.pause)
        #expect(lines.last == "Paused Alpha – Dawn")
        try rig.press(.stop)
        #expect(lines.last == "Stopped Alpha – Dawn")
    }
}

@Suite struct PlayerBrowseArtworkTests {
    /// The browse list shown at start (nothing queued yet) loads its thumbnails without any press
    /// (found by the QEMU system test: they appeared only once the selection moved).
    @Test(.tags(.integration)) func browseListShownAtStartLoadsItsThumbnails() throws {
        let dir = try TemporaryDirectory("kiosk-browse-art")
        defer { dir.remove() }
        for album in ["One", "Two"] {
            try SyntheticLibrary.writeFLAC(
                path: dir.file("music/Artist/\(album)/01 Song.flac"),
                tags: [("TITLE", "Song"), ("ARTIST", "Artist"), ("ALBUM", album)], seconds: 0.5)
            try SyntheticLibrary.writeFile(
                path: dir.file("music/Artist/\(album)/cover.png"),
                bytes: SyntheticLibrary.solidPNG(width: 64, height: 64, red: 200, green: 40, blue: 40))
        }
        let rig = try PlayerRig(volumes: [dir.file("music")], screen: true)
        defer { rig.shutdown() }
        guard case .browse(let list) = rig.player.screenState() else {
            Issue.record("expected the browse list with nothing queued, got \(rig.player.screenState())")
            return
        }
        #expect(list.items.count == 2)
        // The artwork worker is a real thread: wait for it in real time (up to ~10 s, a millisecond of
        // the loop at a time), not on the virtual clock, which jumps to its deadline at once when no
        // timer is due (it failed so beside two busy loops).
        var loaded = false
        for _ in 0..<10_000 where !loaded {
            try rig.idle(1)
            loaded = (rig.display?.cachedArtworkCount ?? 0) >= 2
        }
        #expect(loaded, "thumbnails of the visible entries are decoded without a press")
    }
}
