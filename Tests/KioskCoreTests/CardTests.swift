// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskConfig
import KioskDisplay
import KioskInput
import KioskLibrary
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// Cards on the player with the fake engine and virtual time: a linked card plays its collection
/// (where its bookmark left it), a new card is linked on the box, a card for a stick that is not
/// in says which, the same card again and a card taken off do what config `cards` says, action
/// cards, and the Cards screen.
@Suite struct CardTests {
    private let card = CardUID("04A2B3C4")!
    private let other = CardUID("0004561234")!

    private func show(_ rig: PlayerRig, _ uid: CardUID, _ kind: CardEvent.Kind = .presented) throws {
        rig.player.handle(CardEvent(kind, uid: uid, source: "test", timestampNs: rig.nowNs))
        try rig.idle(20)
    }

    private func message(_ rig: PlayerRig) -> MessageState? {
        if case .message(let m) = rig.player.screenState() { m } else { nil }
    }

    /// Links `uid` to the album called `name`, as `kiosk-player cards link` does.
    private func link(_ rig: PlayerRig, _ uid: CardUID, album name: String) throws {
        let album = try #require(rig.collections(.album).first { $0.name == name })
        try rig.player.cards.setLink(.collection(CardCollection.of(album, in: rig.catalog)), for: uid)
    }

    /// Links `card` to the album `name`, shows it, and waits until the album plays.
    private func playByCard(_ rig: PlayerRig, album name: String) throws {
        try link(rig, card, album: name)
        try show(rig, card)
        try waitUntilPlaying(rig, name)
    }

    private func waitUntilPlaying(_ rig: PlayerRig, _ album: String) throws {
        let playing = try rig.run {
            rig.player.status == .playing && rig.player.currentTrack?.album == album && rig.player.positionFrames > 0
        }
        #expect(
            playing, "\(album) does not play (\(rig.player.currentTrack?.album ?? "nothing"), \(rig.player.status))")
    }

    // MARK: - linking on the box

    @Test func aNewCardShownWhileBrowsingOffersTheSelectedAlbumAndHoldingSelectLinksIt() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.selectCategory(.album)
        try rig.press(.down)
        let selected = rig.collections(.album)[1].name
        try show(rig, card)
        #expect(
            message(rig)
                == MessageState(
                    title: "New card: album",
                    detail: "Hold Select to link it to '\(selected)'. Press Select: another mode"))
        try rig.press(.playFromStart)
        #expect(message(rig)?.title == "Card linked")
        guard case .collection(let linked)? = rig.player.cards.link(of: card) else {
            Issue.record("not linked")
            return
        }
        #expect(linked.name == selected && linked.category == .album && linked.volumeLabel == "main")
        // On disk, for the next start and for `kiosk-player cards list`.
        rig.player.flushSaves()
        #expect(CardStore(directory: rig.state.path).link(of: card) == .collection(linked))
        try rig.idle(5_000)
        try show(rig, card)
        try waitUntilPlaying(rig, selected)
    }

    @Test func aNewCardWhilePlayingOffersWhatPlays() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        let playing = try #require(rig.player.queueCollection)
        try show(rig, card)
        #expect(message(rig)?.detail?.hasPrefix("Hold Select to link it to '\(playing.name)'.") == true)
        try rig.press(.playFromStart)
        #expect(rig.player.cards.link(of: card) == .collection(CardCollection.of(playing, in: rig.catalog)))
        #expect(rig.player.status == .playing, "linking does not restart what plays")
    }

    @Test func anyOtherPressDismissesThePromptWithoutLinking() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        try show(rig, card)
        try rig.press(.next)
        #expect(message(rig) == nil)
        try rig.press(.playFromStart)
        #expect(rig.player.cards.links.isEmpty)
    }

    @Test func aNewCardWithNothingChosenSaysToChooseFirst() throws {
        let rig = try PlayerRig(volumes: [])
        try show(rig, card)
        #expect(message(rig)?.detail == "Choose an album, then show the card again")
        try rig.press(.playFromStart)
        #expect(rig.player.cards.links.isEmpty)
    }

    // MARK: - playing

    @Test func aLinkedCardPlaysItsAlbumFromAnyScreen() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try link(rig, card, album: "Second Wind")
        try rig.press(.menu)
        try show(rig, card)
        try waitUntilPlaying(rig, "Second Wind")
        #expect(rig.player.mode == .nowPlaying)
        #expect(rig.player.queue.map(\.title) == ["Gust", "Calm"])
    }

    @Test func aCardForAStickThatIsNotInSaysWhichAndPlaysWhenItComes() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try link(rig, card, album: "First Light")
        rig.library.removeVolume(path: PlayerFixtures.main)
        #expect(try rig.run { rig.player.catalog?.trackCount == 0 })
        try show(rig, card)
        #expect(message(rig) == MessageState(title: "Insert the stick 'main'", detail: "First Light"))
        #expect(rig.player.status == .stopped)
        rig.library.addVolume(path: PlayerFixtures.main)
        try waitUntilPlaying(rig, "First Light")
    }

    @Test func aFolderCardFindsItsFolderOnANewStickWithTheSameLabel() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        let folder = try #require(rig.collections(.folder).first { $0.name == "Second Wind" })
        var link = CardCollection.of(folder, in: rig.catalog)
        // Linked on a stick whose UUID was different (since reformatted as "main").
        let oldID = "1234-ABCD"
        link.key = oldID + String(link.key.dropFirst(link.volumeID.count))
        link.volumeID = oldID
        try rig.player.cards.setLink(.collection(link), for: card)
        try show(rig, card)
        try waitUntilPlaying(rig, "Second Wind")
    }

    @Test func aCardWhoseAlbumLeftItsStickSaysSo() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        let album = try #require(rig.collections(.album).first)
        var gone = CardCollection.of(album, in: rig.catalog)
        gone.key = "nobody\u{1F}no such album"
        gone.name = "No Such Album"
        try rig.player.cards.setLink(.collection(gone), for: card)
        try show(rig, card)
        #expect(
            message(rig)
                == MessageState(
                    title: "Not on the stick", detail: "'No Such Album' is not on the stick 'main' any more",
                    kind: .error))
        #expect(rig.player.status == .stopped)
    }

    @Test func anAudiobookCardContinuesWhereItWasLeft() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.long, PlayerFixtures.plain]) {
            $0.audiobookGenres = ["classical"]
        }
        try link(rig, card, album: "Long Play")
        try link(rig, other, album: "Only Album")
        try show(rig, card)
        try waitUntilPlaying(rig, "Long Play")
        try rig.press(.next)
        try rig.waitForPosition(seconds: 12)
        try show(rig, other)
        try waitUntilPlaying(rig, "Only Album")
        try show(rig, card)
        try waitUntilPlaying(rig, "Long Play")
        #expect(rig.title == "Allegro")
        #expect(abs(rig.player.positionSeconds - 12) < 1.5)
    }

    // MARK: - the same card again, a card taken off

    @Test(arguments: [Config.Cards.Again.restart, .togglePause, .nothing, .next])
    func theSameCardAgainDoesWhatTheConfigSays(again: Config.Cards.Again) throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main]) { $0.cards.again = again }
        try playByCard(rig, album: "First Light")
        try rig.press(.next)
        try rig.waitForPosition(seconds: 2)
        try show(rig, card)
        try rig.idle(100)
        switch again {
        case .restart:
            #expect(rig.title == "Dawn" && rig.player.positionSeconds < 1)
        case .togglePause:
            #expect(rig.title == "Noon" && rig.player.status == .paused)
            try show(rig, card)
            #expect(rig.player.status == .playing)
        case .nothing:
            #expect(rig.title == "Noon" && rig.player.status == .playing && rig.player.positionSeconds >= 2)
        case .next:
            #expect(rig.title == "Dusk")
        }
    }

    @Test func takingThePlayingCardOffPausesAndPuttingItBackResumes() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try playByCard(rig, album: "First Light")
        try rig.waitForPosition(seconds: 2)
        try show(rig, card, .removed)
        #expect(rig.player.status == .paused)
        let left = rig.player.positionSeconds
        try show(rig, card)
        #expect(rig.player.status == .playing)
        #expect(rig.title == "Dawn" && abs(rig.player.positionSeconds - left) < 0.5)
    }

    @Test func withRemovedNothingTakingTheCardOffKeepsPlaying() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main]) { $0.cards.removed = .nothing }
        try playByCard(rig, album: "First Light")
        try show(rig, card, .removed)
        #expect(rig.player.status == .playing)
    }

    /// `cards.removedStopMinutes`: the playing card off the reader that long stops playback
    /// (not a pause forever); put back before, it resumes.
    @Test func aCardAwayLongerThanRemovedStopMinutesStops() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main]) { $0.cards.removedStopMinutes = 2 }
        try playByCard(rig, album: "First Light")
        try show(rig, card, .removed)
        #expect(rig.player.status == .paused)
        try rig.idle(119_000)
        #expect(rig.player.status == .paused, "not before the two minutes")
        try rig.idle(2_000)
        #expect(rig.player.status == .stopped)
    }

    @Test func aCardPutBackInTimeIsNotStoppedLater() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main]) { $0.cards.removedStopMinutes = 1 }
        try playByCard(rig, album: "First Light")
        // Repeat: the album (18 s) must not end by itself within the test's minute.
        rig.player.perform(.setRepeat(true), from: .button)
        try show(rig, card, .removed)
        try rig.idle(30_000)
        try show(rig, card)
        #expect(rig.player.status == .playing)
        try rig.idle(60_000)
        #expect(rig.player.status == .playing, "the countdown ended when the card came back")
    }

    @Test func withRemovedNothingACardAwayTooLongStillStops() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main]) {
            $0.cards.removed = .nothing
            $0.cards.removedStopMinutes = 1
        }
        try playByCard(rig, album: "First Light")
        rig.player.perform(.setRepeat(true), from: .button)
        try show(rig, card, .removed)
        #expect(rig.player.status == .playing)
        try rig.idle(59_000)
        #expect(rig.player.status == .playing)
        try rig.idle(2_000)
        #expect(rig.player.status == .stopped)
    }

    @Test func takingAnotherCardOffDoesNothing() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try playByCard(rig, album: "First Light")
        try show(rig, other, .removed)
        #expect(rig.player.status == .playing)
    }

    // MARK: - action cards

    @Test func aSleepCardSetsTheSleepTimer() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.player.cards.setLink(.action(.sleep(minutes: 30)), for: card)
        try rig.playFirst()
        try show(rig, card)
        #expect((1790...1800).contains(rig.player.sleepRemainingSeconds ?? 0))
    }

    @Test func aVolumeLimitCardKeepsTheVolumeDownUntilItsOffCard() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main]) { $0.volume = 70 }
        try rig.player.cards.setLink(.action(.volumeLimit(percent: 40)), for: card)
        try rig.player.cards.setLink(.action(.volumeLimitOff), for: other)
        try show(rig, card)
        #expect(rig.player.volume == 40)
        try rig.press(.volumeUp)
        #expect(rig.player.volume == 40)
        try show(rig, other)
        try rig.press(.volumeUp)
        #expect(rig.player.volume == 45)
    }

    @Test func aPlayPauseCardIsAButton() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.player.cards.setLink(.action(.playPause), for: card)
        try rig.playFirst()
        try show(rig, card)
        #expect(rig.player.status == .paused)
        try show(rig, card)
        #expect(rig.player.status == .playing)
    }

    // MARK: - the Cards screen and the file

    @Test func theCardsScreenListsTheLinksAndHoldingSelectUnlinksOne() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try link(rig, card, album: "First Light")
        try rig.player.cards.setLink(.action(.stop), for: other)
        try rig.press(.menu)
        for _ in 0..<5 { try rig.press(.down) }
        #expect(rig.player.menuEntries[5] == "Cards: 2 linked")
        try rig.press(.select)
        #expect(rig.player.mode == .cards(selected: 0))
        guard case .browse(let list) = rig.player.screenState() else {
            Issue.record("not a list")
            return
        }
        #expect(list.categoryLabel == "Cards")
        #expect(
            list.items.map(\.title) == ["Stop", "Album \"First Light\" on the stick 'main'", "Close"])
        #expect(list.items[0].subtitle == "card 0004561234")
        try rig.press(.select)
        #expect(message(rig)?.title == "Hold Select to unlink this card")
        try rig.idle(4_000)
        try rig.press(.playFromStart)
        #expect(rig.player.cards.links.keys.map(\.rawValue) == ["04A2B3C4"])
        rig.player.flushSaves()
        #expect(CardStore(directory: rig.state.path).links.count == 1)
    }

    @Test func aLinkWrittenByTheCommandLineWhileThePlayerRunsIsUsedAtTheNextCard() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        let album = try #require(rig.collections(.album).first { $0.name == "Second Wind" })
        try CardStore(directory: rig.state.path).setLink(
            .collection(CardCollection.of(album, in: rig.catalog)), for: card)
        try show(rig, card)
        try waitUntilPlaying(rig, "Second Wind")
    }

    @Test func aDamagedCardsFileIsSetAsideAndTheBoxKeepsWorking() throws {
        let state = try TemporaryDirectory("kiosk-cards")
        defer { state.remove() }
        try state.write(
            CardStore.fileName, "{\"format\": \"kiosk-player-cards\", \"version\": 1, \"cards\": {\"04A2\": 7}}")
        let rig = try PlayerRig(volumes: [PlayerFixtures.main]) { $0.stateDirectory = state.path }
        #expect(rig.player.cards.links.isEmpty)
        #expect(rig.player.cards.loadProblem?.contains("cards.04A2: expected an object") == true)
        #expect(Syscalls.exists(state.file(CardStore.fileName + ".bad")))
        try rig.playFirst()
        try show(rig, card)
        try rig.press(.playFromStart)
        #expect(rig.player.cards.links.count == 1)
    }
}

/// `cards.json`: what is written is read back; what is wrong is named with the file and the card.
@Suite struct CardStoreTests {
    @Test func linksAreReadBackAsWritten() throws {
        let dir = try TemporaryDirectory("kiosk-cards")
        defer { dir.remove() }
        let store = CardStore(directory: dir.path)
        let album = CardCollection(
            volumeID: "1234-ABCD", volumeLabel: "KIDS", category: .album, key: "a\u{1F}b", name: "Bé & \"Quotes\"")
        try store.setLink(.collection(album), for: CardUID("04A2B3C4")!)
        try store.setLink(.action(.sleep(minutes: 45)), for: CardUID("77")!)
        try store.setLink(.action(.volumeLimit(percent: 30)), for: CardUID("78")!)
        let again = CardStore(directory: dir.path)
        #expect(again.links == store.links)
        #expect(again.links.count == 3)
        #expect(try again.unlink(CardUID("77")!))
        #expect(try !again.unlink(CardUID("77")!))
        #expect(CardStore(directory: dir.path).links.count == 2)
    }

    @Test(arguments: [
        (
            #"{"format": "kiosk-player-cards", "version": 1, "cards": {"x/y": {"action": "stop"}}}"#,
            "cards.x/y: not a card number"
        ),
        (
            #"{"format": "kiosk-player-cards", "version": 1, "cards": {"01": {"action": "dance"}}}"#,
            "cards.01.action: unknown action"
        ),
        (
            #"{"format": "kiosk-player-cards", "version": 1, "cards": {"01": {"category": "album", "key": "k"}}}"#,
            "cards.01.volumeID: required"
        ),
        (
            #"{"format": "kiosk-player-cards", "version": 1, "cards": {"01": {"volumeID": "v", "category": "shelf", "key": "k"}}}"#,
            "cards.01.category"
        ),
        (
            #"{"format": "kiosk-player-cards", "version": 1, "cards": {"0a": {"action": "stop"}, "0A": {"action": "next"}}}"#,
            "card 0A is listed twice"
        ),
        (#"{"format": "other", "version": 1}"#, "not a kiosk-player cards file"),
        (#"{"format": "kiosk-player-cards""#, "cards.json"),
    ])
    func problemsAreNamedWithTheFileAndTheCard(text: String, message: String) {
        #expect {
            try CardStore.parse(Array(text.utf8), file: "/state/cards.json")
        } throws: { error in
            "\(error)".contains("/state/cards.json") && "\(error)".contains(message)
        }
    }

    @Test(arguments: [
        ("sleep-30", CardAction.sleep(minutes: 30)), ("volume-limit-40", .volumeLimit(percent: 40)),
        ("shuffle-on", .shuffleOn), ("play-pause", .playPause),
    ])
    func actionNamesRoundTrip(name: String, action: CardAction) {
        #expect(CardAction(name) == action)
        #expect(action.name == name)
    }

    @Test(arguments: ["sleep-0", "sleep-721", "volume-limit-101", "volume-limit-", "dance"])
    func actionsOutOfRangeAreRefused(name: String) {
        #expect(CardAction(name) == nil)
    }
}
