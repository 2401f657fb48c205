// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskLibrary
import KioskModel
import KioskSystem
import Testing

@testable import KioskCore

/// The player's thread never waits for the storage (issue 48): every fsync and fdatasync of the
/// resume state, a client's queue, the bookmarks and the card links is made on the writer's thread (`StateWriter`), however the
/// box is used, so a slow SD card cannot freeze the screen and the buttons.
@Suite(.serialized) struct DurableWriteTests {
    /// The threads that called fsync or fdatasync while `body` ran, as (on this thread, elsewhere).
    private static func syncs(_ body: () throws -> Void) rethrows -> (here: Int, elsewhere: Int) {
        let me = pthread_self()
        let counts = Locked((here: 0, elsewhere: 0))
        Syscalls.watchDurableSyncs {
            let here = pthread_equal(pthread_self(), me) != 0
            counts.withLock {
                if here { $0.here += 1 } else { $0.elsewhere += 1 }
            }
        }
        defer { Syscalls.watchDurableSyncs(nil) }
        try body()
        return counts.withLock { $0 }
    }

    @Test func playingPausingSeekingBookmarksAndAClientsQueueSyncOnlyOffThePlayersThread() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main]) { $0.bookmarks = .all }
        defer { rig.shutdown() }
        var bookmarked = false
        let counts = try Self.syncs {
            try rig.playFirst()
            try rig.press(.playPause)
            try rig.press(.playPause)
            rig.player.perform(.seek(entry: nil, seconds: 2), from: .remote)
            try rig.press(.next)
            let all = rig.catalog.allTracks
            rig.player.perform(.insert([all[3], all[0]], at: nil), from: .remote)
            rig.player.perform(.playEntry(1), from: .remote)
            try rig.idle(5_000)
            rig.player.flushSaves()
            bookmarked = Syscalls.exists(rig.state.file(BookmarkStore.fileName))
            rig.shutdown()
        }
        #expect(counts.here == 0, "the player's thread synced \(counts.here) times")
        #expect(counts.elsewhere > 0, "the writer synced the state")
        #expect(bookmarked, "a bookmark was written")
    }

    @Test func linkingACardOnTheBoxSyncsOnlyOffThePlayersThread() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        let card = try #require(CardUID("04A2B3C4"))
        var linked: CardLink?
        let counts = try Self.syncs {
            try rig.press(.down)
            rig.player.handle(CardEvent(.presented, uid: card, source: "test", timestampNs: rig.nowNs))
            try rig.idle(20)
            try rig.press(.playFromStart)
            rig.player.flushSaves()
            linked = CardStore(directory: rig.state.path).link(of: card)
        }
        #expect(counts.here == 0, "the player's thread synced \(counts.here) times")
        #expect(counts.elsewhere > 0, "the writer synced cards.json")
        #expect(linked != nil, "the link is on the device after a flush")
    }

    @Test func aCardLinkTheWriterWroteIsNotTakenForAnotherWritersChange() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        let card = try #require(CardUID("04A2B3C4"))
        let album = try #require(rig.collections(.album).first)
        try rig.player.cards.setLink(.collection(CardCollection.of(album, in: rig.catalog)), for: card)
        // Asked before the writer wrote it, and after: the link in memory stays either way.
        rig.player.cards.reloadIfChanged()
        rig.player.flushSaves()
        rig.player.cards.reloadIfChanged()
        #expect(rig.player.cards.reloads == 0)
        #expect(rig.player.cards.link(of: card) != nil)
        #expect(CardStore(directory: rig.state.path).link(of: card) == rig.player.cards.link(of: card))
    }

    @Test func aSaveAskedForIsOnTheDeviceAfterAFlushAndTheNewestWins() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        try rig.playFirst()
        for volume in stride(from: 10, through: 60, by: 10) {
            rig.player.perform(.setVolume(volume), from: .remote)
            rig.player.saveNow()
        }
        #expect(rig.saved()?.volumePercent == 60)
    }

    /// The storage held inside its fdatasync for as long as the test likes (a slow SD card at its
    /// worst): the pause that asked for the save is on the screen, the next press is handled, and
    /// the paused position reaches the device once the storage lets go. Order, not time: the loop
    /// went on while the write could not finish (issue 48: a pause waited for the card).
    @Test func aPauseIsOnTheScreenWhileTheStorageStillHoldsItsSave() throws {
        let screen = RecordingScreen()
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], recordingScreen: screen)
        defer { rig.shutdown() }
        try rig.playFirst()
        rig.player.flushSaves()
        let me = pthread_self()
        // The storage lets go when the test says, or after 30 s: a player that waits for it then goes
        // on, and the test fails on `gaveUp` instead of hanging.
        let storage = Locked((entered: 0, released: false, gaveUp: false))
        Syscalls.watchDurableSyncs {
            guard pthread_equal(pthread_self(), me) == 0 else { return }
            storage.withLock { $0.entered += 1 }
            let giveUp = Syscalls.monotonicNanoseconds() + 30_000_000_000
            while !storage.withLock({ $0.released }) {
                if Syscalls.monotonicNanoseconds() > giveUp {
                    storage.withLock { $0.gaveUp = true }
                    return
                }
                usleep(1_000)
            }
        }
        defer {
            storage.withLock { $0.released = true }
            Syscalls.watchDurableSyncs(nil)
        }
        let volume = rig.player.volume

        try rig.press(.playPause)
        // A guard against a hang, not a bound: the writer reaches its sync as soon as it runs.
        let deadline = Syscalls.monotonicNanoseconds() + 30_000_000_000
        while storage.withLock({ $0.entered }) == 0, Syscalls.monotonicNanoseconds() < deadline { usleep(1_000) }
        try #require(storage.withLock { $0.entered } > 0, "the pause handed a save to the writer")
        guard case .nowPlaying(let shown) = screen.shown.last else {
            Issue.record("the screen shows \(String(describing: screen.shown.last)), not the paused track")
            return
        }
        #expect(shown.playback == .paused)
        try rig.press(.volumeUp)
        #expect(rig.player.volume > volume, "a press after the pause is handled while the save waits")
        #expect(storage.withLock { !$0.gaveUp }, "the player's thread waited for the storage to let go")
        let pausedAt = rig.player.positionFrames

        storage.withLock { $0.released = true }
        #expect(rig.saved()?.positionFrames == pausedAt)
    }
}
