// SPDX-License-Identifier: GPL-3.0-or-later
import KioskLibrary
import Testing

@testable import KioskCore

/// The shuffle rules of `PlayQueue`, over seeded shuffles: permutations, the wrap, previous, album
/// order, audiobooks.
@Suite struct ShuffleTests {
    /// `copies` × the fixture's five tracks (two albums), shuffled with `seed`.
    private func queue(
        _ mode: PlayQueue.Shuffle, copies: Int = 4, seed: UInt64, repeats: Bool = false, audiobook: Bool = false
    ) throws -> PlayQueue {
        let tracks = try PlayQueueFixture.allTracks()
        var queue = PlayQueue(repeats: repeats, seed: seed)
        queue.setShuffle(mode)
        queue.replace(
            with: Array((0..<copies).map { _ in tracks }.joined()), collection: nil, audiobook: audiobook)
        queue.index = queue.firstInOrder
        return queue
    }

    /// The entries in the order next takes them from the first, until the end.
    private func played(_ queue: PlayQueue) -> [Int] {
        var entries = [queue.firstInOrder]
        var q = queue
        q.index = q.firstInOrder
        while case .entry(let next) = q.afterCurrent {
            entries.append(next)
            q.index = next
        }
        return entries
    }

    @Test func aTrackShufflePlaysEveryEntryOnceInAnotherOrder() throws {
        for seed in UInt64(1)...20 {
            let q = try queue(.tracks, seed: seed)
            let order = played(q)
            #expect(order.sorted() == Array(0..<20))
            #expect(order != Array(0..<20))
        }
    }

    @Test func withShuffleOffTheQueuePlaysInItsOrder() throws {
        #expect(played(try queue(.off, seed: 3)) == Array(0..<20))
    }

    @Test func theOrderAfterTheWrapDoesNotBeginWithTheTrackJustPlayed() throws {
        for seed in UInt64(1)...200 {
            var q = try queue(.tracks, copies: 1, seed: seed, repeats: true)
            let last = q.lastInOrder
            q.index = last
            #expect(q.afterCurrent == .wrapped)
            q.wrap(after: last)
            #expect(q.firstInOrder != last, "seed \(seed)")
            #expect(q.order.sorted() == Array(0..<5))
        }
    }

    @Test func previousGoesBackAlongTheShuffledOrder() throws {
        var q = try queue(.tracks, seed: 7)
        let order = played(q)
        q.index = order[5]
        #expect(q.beforeCurrent(playedSeconds: 1) == .entry(order[4]))
        q.index = order[0]
        #expect(q.beforeCurrent(playedSeconds: 1) == .restart)
    }

    @Test func anAlbumShufflePlaysWholeAlbumsEachInItsOrder() throws {
        let tracks = try PlayQueueFixture.allTracks()
        for seed in UInt64(1)...20 {
            let q = try queue(.albums, copies: 1, seed: seed)
            let titles = played(q).map { tracks[$0].title }
            let first = Array(tracks.prefix(3).map(\.title))
            let second = Array(tracks.suffix(2).map(\.title))
            #expect(titles == first + second || titles == second + first, "seed \(seed): \(titles)")
        }
    }

    @Test func anAudiobookIsNeverShuffled() throws {
        #expect(played(try queue(.tracks, seed: 5, audiobook: true)) == Array(0..<20))
        #expect(played(try queue(.albums, seed: 5, audiobook: true)) == Array(0..<20))
    }

    @Test func choosingAShuffleKeepsTheCurrentTrackFirst() throws {
        var q = try queue(.off, seed: 9)
        q.index = 13
        q.setShuffle(.tracks)
        #expect(q.firstInOrder == 13)
        #expect(q.order.sorted() == Array(0..<20))
    }

    @Test func tracksAddedToAShufflePlayAfterTheRest() throws {
        var q = try queue(.tracks, copies: 1, seed: 11)
        q.append(try PlayQueueFixture.allTracks())
        #expect(Set(q.order.prefix(5)) == Set(0..<5))
        #expect(Set(q.order.suffix(5)) == Set(5..<10))
    }

    @Test func theEngineGetsTheEntriesInPlayOrder() throws {
        let q = try queue(.tracks, seed: 13)
        #expect(q.requests.map(\.id) == q.order.map { q.engineID(ofEntry: $0) })
    }

    @Test func genresDecideWhatIsAnAudiobook() throws {
        let tracks = try PlayQueueFixture.allTracks()
        #expect(!AudiobookRule().isAudiobook(tracks))
        #expect(AudiobookRule(genres: ["rock", "jazz"]).isAudiobook(tracks))
        #expect(!AudiobookRule(genres: ["Jazz"]).isAudiobook(tracks))  // 2 of 5
    }
}

/// Shuffle on the player with the fake engine: from the shuffle action and the menu, through the
/// engine, saved across a restart.
@Suite struct PlayerShuffleTests {
    @Test func theConfigSetsTheShuffleOfTheFirstStartAndTheSavedOneWinsAfter() throws {
        let first = try PlayerRig(volumes: [PlayerFixtures.main]) { $0.shuffle = .albums }
        #expect(first.player.shuffle == .albums)
        var saved = first.player.resumeState()
        saved.shuffle = PlayQueue.Shuffle.tracks.rawValue
        let second = try PlayerRig(volumes: [PlayerFixtures.main], resume: saved) { $0.shuffle = .albums }
        #expect(second.player.shuffle == .tracks)
    }

    @Test func theShuffleActionCyclesOffTracksAlbumsAndShowsIt() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        #expect(rig.player.shuffle == .off)
        try rig.press(.shuffle)
        #expect(rig.player.shuffle == .tracks)
        guard case .message(let message) = rig.player.screenState() else {
            Issue.record("expected a message, got \(rig.player.screenState())")
            return
        }
        #expect(message.title == "Shuffle: tracks")
        try rig.press(.shuffle)
        #expect(rig.player.shuffle == .albums)
        try rig.press(.shuffle)
        #expect(rig.player.shuffle == .off)
    }

    @Test func aShuffledAlbumPlaysEachTrackOnceThenStops() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        rig.player.setShuffle(.tracks)
        try rig.playFirst()
        #expect(try rig.run(seconds: 40) { rig.player.status == .stopped })
        let started = rig.audioEvents.compactMap { event -> UInt64? in
            if case .trackStarted(let id, _, _, _) = event { return id }
            return nil
        }
        let titles = started.compactMap { rig.player.playQueue.entry(ofEngineID: $0) }.map {
            rig.player.queue[$0].title
        }
        #expect(titles.sorted() == ["Dawn", "Dusk", "Noon"])
        #expect(titles == rig.player.playQueue.order.map { rig.player.queue[$0].title })
    }

    @Test func theNowPlayingScreenSaysShuffle() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        rig.player.setShuffle(.tracks)
        try rig.playFirst()
        guard case .nowPlaying(let shown) = rig.player.screenState() else {
            Issue.record("expected now playing")
            return
        }
        #expect(shown.categoryLabel == "Album · shuffle")
    }

    @Test func theMenuEntryCyclesTheShuffle() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try rig.press(.menu)
        let entry = try #require(rig.player.menuEntries.firstIndex(of: "Shuffle: off"))
        for _ in 0..<entry { try rig.press(.down) }
        try rig.press(.select)
        #expect(rig.player.shuffle == .tracks)
        #expect(rig.player.menuEntries.contains("Shuffle: tracks"))
    }

    @Test func theShuffleIsSavedAndRestored() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        rig.player.setShuffle(.albums)
        #expect(rig.player.resumeState().shuffle == "albums")
        let restored = try PlayerRig(volumes: [], resume: rig.player.resumeState())
        #expect(restored.player.shuffle == .albums)
    }
}
