// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskConfig
import KioskInput
import KioskLibrary
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// Bookmarks on the player with the fake engine and virtual time: each collection continues where
/// it was left, across a restart and a stick pulled and plugged in again; `play-from-start`; a
/// finished audiobook starts over; music is not bookmarked unless `"bookmarks": "all"`.
@Suite struct BookmarkTests {
    /// The long album (Epsilon, "Long Play": Adagio and Allegro, 40 s each, genre Classical) made an
    /// audiobook by `audiobookGenres`; the bookmarks kept in `state` across rigs.
    private func rig(
        _ state: TemporaryDirectory, policy: Config.Bookmarks = .audiobooks, audiobook: Bool = true
    ) throws -> PlayerRig {
        try PlayerRig(volumes: [PlayerFixtures.long]) {
            $0.stateDirectory = state.path
            $0.audiobookGenres = audiobook ? ["classical"] : []
            $0.bookmarks = policy
            $0.resumeAtBoot = false
        }
    }

    /// Plays the album, goes to its second track and 12 s into it, then pauses (a bookmark save).
    private func leaveInTheSecondTrack(_ rig: PlayerRig) throws {
        try rig.playFirst()
        try rig.press(.next)
        try rig.waitForPosition(seconds: 12)
        try rig.press(.pause)
    }

    /// Chooses the album again in browse, with `action`.
    private func chooseTheAlbumAgain(_ rig: PlayerRig, with action: Action = .select) throws {
        try rig.selectCategory(.album)
        try rig.press(action)
    }

    @Test func choosingAnotherAlbumKeepsTheAudiobooksPlaceToTheSecond() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.long, PlayerFixtures.plain]) {
            $0.audiobookGenres = ["classical"]
            $0.resumeAtBoot = false
        }
        try rig.selectCategory(.album)
        let albums = rig.collections(.album).map(\.name)
        let longPlay = try #require(albums.firstIndex(of: "Long Play"))
        let other = try #require(albums.firstIndex(of: "Only Album"))
        try rig.playFirst(index: longPlay)
        try rig.press(.next)
        // 12 s into the second track, less than the 30 s between the bookmarks of a playing track.
        try rig.waitForPosition(seconds: 12)
        try rig.playFirst(index: other)
        try rig.playFirst(index: longPlay)
        #expect(rig.title == "Allegro")
        #expect(abs(rig.player.positionSeconds - 12) < 1.5)
    }

    @Test func anAudiobookContinuesWhereItWasLeftAfterARestart() throws {
        let state = try TemporaryDirectory("kiosk-bookmarks")
        defer { state.remove() }
        do {
            let first = try rig(state)
            try leaveInTheSecondTrack(first)
            first.shutdown()
        }
        let second = try rig(state)
        try second.playFirst()
        #expect(second.title == "Allegro")
        #expect(abs(second.player.positionSeconds - 12) < 1.5)
    }

    @Test func theBookmarkOutlivesTheStickBeingPulledAndPluggedInAgain() throws {
        let state = try TemporaryDirectory("kiosk-bookmarks")
        defer { state.remove() }
        let rig = try rig(state)
        try leaveInTheSecondTrack(rig)
        rig.library.removeVolume(path: PlayerFixtures.long)
        try rig.idle(500)
        rig.library.addVolume(path: PlayerFixtures.long)
        #expect(try rig.run(seconds: 20) { rig.library.isIdle && (rig.player.catalog?.trackCount ?? 0) > 0 })
        try rig.playFirst()
        #expect(rig.title == "Allegro")
    }

    @Test func playFromStartIgnoresTheBookmark() throws {
        let state = try TemporaryDirectory("kiosk-bookmarks")
        defer { state.remove() }
        let rig = try rig(state)
        try leaveInTheSecondTrack(rig)
        try chooseTheAlbumAgain(rig, with: .playFromStart)
        #expect(rig.title == "Adagio")
        #expect(rig.player.positionSeconds < 1)
    }

    @Test func musicIsNotBookmarkedByDefault() throws {
        let state = try TemporaryDirectory("kiosk-bookmarks")
        defer { state.remove() }
        let rig = try rig(state, audiobook: false)
        try leaveInTheSecondTrack(rig)
        try chooseTheAlbumAgain(rig)
        #expect(rig.title == "Adagio")
    }

    @Test func withBookmarksAllMusicContinuesToo() throws {
        let state = try TemporaryDirectory("kiosk-bookmarks")
        defer { state.remove() }
        let rig = try rig(state, policy: .all, audiobook: false)
        try leaveInTheSecondTrack(rig)
        try chooseTheAlbumAgain(rig)
        #expect(rig.title == "Allegro")
    }

    @Test func bookmarksOffNeverContinues() throws {
        let state = try TemporaryDirectory("kiosk-bookmarks")
        defer { state.remove() }
        let rig = try rig(state, policy: .off)
        try leaveInTheSecondTrack(rig)
        try chooseTheAlbumAgain(rig)
        #expect(rig.title == "Adagio")
    }

    @Test func aFinishedAudiobookStartsOver() throws {
        let state = try TemporaryDirectory("kiosk-bookmarks")
        defer { state.remove() }
        let rig = try rig(state)
        try rig.playFirst()
        try rig.press(.next)
        #expect(try rig.run(seconds: 60) { rig.player.status == .stopped })
        try chooseTheAlbumAgain(rig)
        #expect(rig.title == "Adagio")
        #expect(rig.player.positionSeconds < 1)
    }

    @Test func aFolderMarkedWithADotAudiobookFileIsAnAudiobookWhateverItsGenre() throws {
        let state = try TemporaryDirectory("kiosk-bookmarks")
        defer { state.remove() }
        let stick = try TemporaryDirectory("kiosk-audiobook-stick")
        defer { stick.remove() }
        let album = "/Epsilon/Long Play"
        try Syscalls.mkdirs(stick.path + album)
        for name in ["01 Adagio.flac", "02 Allegro.flac"] {
            let from = try PlayerFixtures.prepare() + "/long" + album + "/" + name
            #expect(link(from, stick.path + album + "/" + name) == 0, "link \(from)")
        }
        try SyntheticLibrary.writeFile(path: stick.path + album + "/.audiobook", bytes: [])
        func rig() throws -> PlayerRig {
            try PlayerRig(volumes: [stick.path]) {
                $0.stateDirectory = state.path
                $0.audiobookGenres = []
                $0.resumeAtBoot = false
            }
        }
        do {
            let first = try rig()
            first.player.setShuffle(.tracks)
            try first.playFirst()
            #expect(first.player.playQueue.isAudiobook)
            #expect(first.title == "Adagio", "an audiobook plays in its own order")
            try first.press(.next)
            try first.waitForPosition(seconds: 12)
            try first.press(.pause)
            first.shutdown()
        }
        let second = try rig()
        try chooseTheAlbumAgain(second)
        #expect(second.title == "Allegro")
        #expect(abs(second.player.positionSeconds - 12) < 1.5)
    }

    @Test func aDamagedBookmarksFileIsSetAsideAndTheBoxGoesOn() throws {
        let state = try TemporaryDirectory("kiosk-bookmarks")
        defer { state.remove() }
        try state.write(BookmarkStore.fileName, "{ not json")
        let rig = try rig(state)
        try rig.playFirst()
        #expect(rig.title == "Adagio")
        #expect(Syscalls.exists(state.file(BookmarkStore.fileName + ".bad")))
    }
}
