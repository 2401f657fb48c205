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
}
