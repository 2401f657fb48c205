// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskDisplay
import KioskInput
import KioskLibrary
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// Per-card play modes on the player (fake engine, virtual time): album as before, one track per
/// tap, a random track that repeats none until all have played, continue; the rounds of the
/// one-track modes kept across a restart; the mode chosen on the box while linking.
@Suite struct CardModeTests {
    private let card = CardUID("04A2B3C4")!
    private let other = CardUID("0004561234")!
    /// First Light's tracks, in order.
    private let firstLight = ["Dawn", "Noon", "Dusk"]

    private func show(_ rig: PlayerRig, _ uid: CardUID, _ kind: CardEvent.Kind = .presented) throws {
        rig.player.handle(CardEvent(kind, uid: uid, source: "test", timestampNs: rig.nowNs))
        try rig.idle(20)
    }

    private func message(_ rig: PlayerRig) -> MessageState? {
        if case .message(let m) = rig.player.screenState() { m } else { nil }
    }

    private func link(_ rig: PlayerRig, _ uid: CardUID, album name: String, mode: CardMode) throws {
        let album = try #require(rig.collections(.album).first { $0.name == name })
        var collection = CardCollection.of(album, in: rig.catalog)
        collection.mode = mode
        try rig.player.cards.setLink(.collection(collection), for: uid)
    }

    /// Shows `card`, waits until a track of its album sounds and returns its title.
    private func tap(_ rig: PlayerRig) throws -> String {
        let before = rig.tracksStarted
        try show(rig, card)
        let started = try rig.run {
            rig.tracksStarted > before && rig.player.status == .playing && rig.player.positionFrames > 0
        }
        #expect(started, "the tap played nothing (\(rig.player.status))")
        return rig.title ?? "nothing"
    }

    /// A rig whose state (cards.json, bookmarks) lives in `state`, which outlives it.
    private func rig(state: TemporaryDirectory, volumes: [String] = [PlayerFixtures.main]) throws -> PlayerRig {
        try PlayerRig(volumes: volumes) { $0.stateDirectory = state.path }
    }

    // MARK: - a name from the phone page

    @Test func aCardRenamedOnThePageKeepsItsAlbumAndItsRound() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try link(rig, card, album: "First Light", mode: .trackPerTap)
        #expect(try tap(rig) == "Dawn")
        try rig.player.renameCard(card, to: "  Grandma's stories\u{7} ", by: "session 1")
        guard case .collection(let renamed) = rig.player.cards.link(of: card) else {
            Issue.record("the card lost its link")
            return
        }
        #expect(renamed.name == "Grandma's stories", "trimmed, the control character dropped")
        #expect(renamed.mode == .trackPerTap && rig.player.cards.played[card]?.count == 1, "the round goes on")
        #expect(try tap(rig) == "Noon")
    }

    @Test func aCardsNameMustBeShortAndNotEmptyAndOnlyACollectionHasOne() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try link(rig, card, album: "First Light", mode: .album)
        try rig.player.cards.setLink(.action(.stop), for: other)
        func refusal(_ uid: CardUID, _ name: String) -> String? {
            do throws(PhoneRequestError) {
                try rig.player.renameCard(uid, to: name, by: "s")
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refusal(card, " \n ") == "a card's name cannot be empty")
        #expect(refusal(card, String(repeating: "ä", count: 51)) == "a card's name is at most 100 bytes")
        #expect(refusal(other, "Stop") == "card \(other) is a button: it has no name")
        #expect(refusal(CardUID("0000000099")!, "New") == "card 0000000099 is not linked")
        guard case .collection(let kept) = rig.player.cards.link(of: card) else { return }
        #expect(kept.name == "First Light")
    }

    // MARK: - track-per-tap

    @Test func trackPerTapPlaysTheNextTrackAloneAtEachTapAndStartsOverAfterTheLast() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try link(rig, card, album: "First Light", mode: .trackPerTap)
        #expect(try tap(rig) == "Dawn")
        #expect(rig.player.queue.map(\.title) == ["Dawn"], "the queue is that one track")
        // It stops at the end of the track instead of going on with the album.
        #expect(try rig.run(seconds: 8) { rig.player.status == .stopped })
        #expect(rig.title == "Dawn")
        #expect(try tap(rig) == "Noon")
        #expect(try tap(rig) == "Dusk", "a tap while a track plays goes on to the next")
        #expect(try tap(rig) == "Dawn", "after the last, the first again")
    }

    @Test func aTapsTrackStopsAtItsEndEvenWithRepeatOn() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main]) { $0.repeatQueue = true }
        try link(rig, card, album: "First Light", mode: .trackPerTap)
        #expect(try tap(rig) == "Dawn")
        #expect(try rig.run(seconds: 8) { rig.player.status == .stopped })
        #expect(rig.tracksStarted == 1, "Dawn did not play again")
        // Repeat still applies to a queue chosen otherwise.
        #expect(rig.player.repeatQueue)
    }

    @Test func aTapsTrackRestoredAfterARestartStillStopsAtItsEndWithRepeatOn() throws {
        let state = try TemporaryDirectory("kiosk-card-modes")
        defer { state.remove() }
        let first = try PlayerRig(volumes: [PlayerFixtures.main]) {
            $0.stateDirectory = state.path
            $0.repeatQueue = true
        }
        try link(first, card, album: "First Light", mode: .trackPerTap)
        #expect(try tap(first) == "Dawn")
        first.shutdown()
        let saved = try #require(ResumeState.load(directory: state.path))
        #expect(saved.playsOnce)
        let again = try PlayerRig(volumes: [PlayerFixtures.main], resume: saved) {
            $0.stateDirectory = state.path
            $0.repeatQueue = true
        }
        #expect(again.player.playQueue.playsOnce, "the restored queue still plays once")
        #expect(try again.run(seconds: 8) { again.player.status == .stopped })
        #expect(again.tracksStarted <= 1, "Dawn did not start again")
    }

    @Test func trackPerTapRemembersWhereItIsAcrossARestart() throws {
        let state = try TemporaryDirectory("kiosk-card-modes")
        defer { state.remove() }
        let first = try rig(state: state)
        try link(first, card, album: "First Light", mode: .trackPerTap)
        #expect(try tap(first) == "Dawn")
        #expect(try tap(first) == "Noon")
        first.shutdown()
        let again = try rig(state: state)
        #expect(try tap(again) == "Dusk")
    }

    @Test func theCardPutBackOnTheTrackItPausedResumesIt() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try link(rig, card, album: "First Light", mode: .trackPerTap)
        #expect(try tap(rig) == "Dawn")
        try rig.waitForPosition(seconds: 2)
        try show(rig, card, .removed)
        #expect(rig.player.status == .paused)
        try show(rig, card)
        #expect(rig.player.status == .playing && rig.title == "Dawn" && rig.player.positionSeconds >= 2)
    }

    // MARK: - random-track

    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func randomTrackPlaysEveryTrackOnceBeforeAnyRepeats(seed: UInt64) throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        rig.player.cardSession.random = SplitMix(seed: seed)
        try link(rig, card, album: "First Light", mode: .randomTrack)
        var rounds: [[String]] = []
        for _ in 0..<3 {
            var round: [String] = []
            for _ in firstLight {
                round.append(try tap(rig))
                #expect(rig.player.queue.count == 1)
            }
            rounds.append(round)
        }
        for round in rounds { #expect(round.sorted() == firstLight.sorted(), "seed \(seed): \(rounds)") }
        // A new round does not begin with the track that ended the last one.
        #expect(rounds[1].first != rounds[0].last && rounds[2].first != rounds[1].last, "seed \(seed): \(rounds)")
    }

    @Test func aRandomCardOfAPlaylistHoldingOneFileTwiceStartsItsRoundsAgain() throws {
        let stick = try TemporaryDirectory("kiosk-card-twice")
        defer { stick.remove() }
        try SyntheticLibrary.writeFLAC(
            path: stick.file("Songs/01 Hum.flac"),
            tags: [("TITLE", "Hum"), ("ARTIST", "Zeta"), ("ALBUM", "Hums"), ("TRACKNUMBER", "1")], seconds: 1,
            sampleRate: 44_100, channels: 2, bitsPerSample: 16, toneHz: 440)
        try stick.write("Playlists/Twice.m3u8", "#EXTM3U\n../Songs/01 Hum.flac\n../Songs/01 Hum.flac\n")
        let rig = try PlayerRig(volumes: [stick.path])
        let playlist = try #require(rig.collections(.playlist).first)
        #expect(rig.catalog.tracks(of: playlist).count == 2)
        var link = CardCollection.of(playlist, in: rig.catalog)
        link.mode = .randomTrack
        try rig.player.cards.setLink(.collection(link), for: card)
        for _ in 0..<3 { #expect(try tap(rig) == "Hum") }
    }

    @Test func randomTrackRemembersTheTracksLeftAcrossARestart() throws {
        let state = try TemporaryDirectory("kiosk-card-modes")
        defer { state.remove() }
        let first = try rig(state: state)
        try link(first, card, album: "First Light", mode: .randomTrack)
        let one = try tap(first)
        first.shutdown()
        let again = try rig(state: state)
        let rest = [try tap(again), try tap(again)]
        #expect(([one] + rest).sorted() == firstLight.sorted(), "\(one) then \(rest)")
    }

    // MARK: - album and continue

    /// Album keeps what a card did before modes: a collection that is not an audiobook starts at its
    /// first track (config `bookmarks` is "audiobooks").
    @Test func anAlbumCardStartsItsAlbumAgainAfterAnotherCard() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try link(rig, card, album: "First Light", mode: .album)
        try link(rig, other, album: "Second Wind", mode: .album)
        #expect(try tap(rig) == "Dawn")
        #expect(rig.player.queue.map(\.title) == firstLight)
        try rig.press(.next)
        try rig.waitForPosition(seconds: 2)
        try show(rig, other)
        #expect(try rig.run { rig.title == "Gust" && rig.player.status == .playing })
        #expect(try tap(rig) == "Dawn")
    }

    @Test func aContinueCardResumesWhereItsAlbumWasLeftAfterAnotherCard() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try link(rig, card, album: "First Light", mode: .continue)
        try link(rig, other, album: "Second Wind", mode: .album)
        #expect(try tap(rig) == "Dawn")
        try rig.press(.next)
        try rig.waitForPosition(seconds: 2)
        try show(rig, other)
        #expect(try rig.run { rig.title == "Gust" && rig.player.status == .playing })
        #expect(try tap(rig) == "Noon")
        #expect(rig.player.queue.map(\.title) == firstLight, "the whole album, from where it was")
        #expect(rig.player.positionSeconds >= 2 && rig.player.positionSeconds < 3.5)
    }

    @Test func aContinueCardResumesAfterARestart() throws {
        let state = try TemporaryDirectory("kiosk-card-modes")
        defer { state.remove() }
        let first = try rig(state: state)
        try link(first, card, album: "First Light", mode: .continue)
        try link(first, other, album: "Second Wind", mode: .album)
        #expect(try tap(first) == "Dawn")
        try first.press(.next)
        try first.waitForPosition(seconds: 2)
        first.shutdown()
        let again = try rig(state: state)
        try show(again, other)
        #expect(try again.run { again.title == "Gust" && again.player.status == .playing })
        #expect(try tap(again) == "Noon")
        #expect(again.player.positionSeconds >= 2)
    }

    // MARK: - linking on the box

    @Test func theSecondGestureCyclesTheModeWhileLinking() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        let name = try #require(rig.player.queueCollection?.name)
        try show(rig, card)
        #expect(
            message(rig)
                == MessageState(
                    title: "New card: album", detail: "Hold Select to link it to '\(name)'. Press Select: another mode")
        )
        var seen: [String] = []
        for _ in 0..<4 {
            try rig.press(.select)
            seen.append(message(rig)?.title ?? "no prompt")
        }
        #expect(
            seen == [
                "New card: one track per tap", "New card: a random track", "New card: continue", "New card: album",
            ])
        try rig.press(.select)
        try rig.press(.playFromStart)
        #expect(message(rig) == MessageState(title: "Card linked", detail: "\(name) (one track per tap)"))
        rig.player.flushSaves()
        guard case .collection(let linked)? = CardStore(directory: rig.state.path).link(of: card) else {
            Issue.record("not linked")
            return
        }
        #expect(linked.mode == .trackPerTap)
        #expect(rig.player.status == .playing, "cycling the mode does not touch what plays")
    }

    @Test func aNewCardWhileATapsTrackPlaysOffersTheTappedCardsAlbum() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try link(rig, card, album: "Second Wind", mode: .trackPerTap)
        #expect(try tap(rig) == "Gust")
        try show(rig, other)
        #expect(message(rig)?.detail?.hasPrefix("Hold Select to link it to 'Second Wind'.") == true)
    }

    @Test func theCardsScreenNamesAModeOtherThanAlbum() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try link(rig, card, album: "First Light", mode: .randomTrack)
        try link(rig, other, album: "Second Wind", mode: .album)
        #expect(rig.player.cardEntries.map(\.subtitle) == ["card 0004561234", "card 04A2B3C4 · a random track", nil])
    }
}

/// The modes in `cards.json`: written and read back with the round of a one-track card; a file of
/// the release before modes loads as album; a bad mode is named.
@Suite struct CardModeStoreTests {
    private let album = CardCollection(
        volumeID: "1234-ABCD", volumeLabel: "KIDS", category: .album, key: "a\u{1F}b", name: "Songs")

    @Test func modesAndTheTracksPlayedAreReadBackAsWritten() throws {
        let dir = try TemporaryDirectory("kiosk-cards")
        defer { dir.remove() }
        let store = CardStore(directory: dir.path)
        var random = album
        random.mode = .randomTrack
        let uid = CardUID("01")!
        try store.setLink(.collection(random), for: uid)
        try store.setPlayed(["A/02.flac", "A/01.flac"], for: uid)
        let again = CardStore(directory: dir.path)
        #expect(again.link(of: uid) == .collection(random))
        #expect(again.played[uid] == ["A/02.flac", "A/01.flac"])
        // Linked again, its round starts afresh.
        try again.setLink(.collection(random), for: uid)
        #expect(CardStore(directory: dir.path).played[uid] == nil)
    }

    @Test func aCardsFileWithoutModesLoadsAsAlbum() throws {
        let text = #"""
            {"format": "kiosk-player-cards", "version": 1, "cards": {"04A2B3C4": {"volumeID": "1234-ABCD",
             "volumeLabel": "KIDS", "category": "album", "key": "a\u001Fb", "name": "Songs"}}}
            """#
        let parsed = try CardStore.parse(Array(text.utf8), file: "/state/cards.json")
        #expect(parsed.links[CardUID("04A2B3C4")!] == .collection(album))
        #expect(album.mode == .album)
    }

    @Test func anAlbumCardIsWrittenWithoutAMode() {
        // A release before modes reads it still.
        let text = CardStore.document([CardUID("01")!: .collection(album)]).serialized(pretty: false)
        #expect(!text.contains("mode"))
    }

    @Test(arguments: [
        (#"{"volumeID": "v", "category": "album", "key": "k", "mode": "shuffle"}"#, "cards.01.mode"),
        (#"{"volumeID": "v", "category": "album", "key": "k", "played": [3]}"#, "cards.01.played[0]"),
    ])
    func aBadModeOrRoundIsNamed(card: String, message: String) {
        let text = #"{"format": "kiosk-player-cards", "version": 1, "cards": {"01": "# + card + "}}"
        #expect {
            try CardStore.parse(Array(text.utf8), file: "/state/cards.json")
        } throws: { error in
            "\(error)".contains("/state/cards.json") && "\(error)".contains(message)
        }
    }
}
