// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskConfig
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// Cards and bookmarks on a stick, both ways (`StickSet`, `Player+StickOffer.swift`): exported to
/// a stick carrying `kiosk-export`, offered and imported on another box by holding Select, undone
/// once; hostile set files refused with the file named and nothing changed.
@Suite struct StickSetTests {
    let card = CardUID("0004242424")!
    let stopCard = CardUID("0000000007")!

    func message(_ rig: PlayerRig) -> MessageState? {
        if case .message(let m) = rig.player.screenState() { m } else { nil }
    }

    /// A box whose card plays the second album one track per tap, a stop card, and a bookmark.
    func configuredBox() throws -> PlayerRig {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main]) { $0.bookmarks = .all }
        let album = rig.collections(.album)[1]
        var link = CardCollection.of(album, in: rig.catalog)
        link.mode = .trackPerTap
        try rig.player.cards.setLink(.collection(link), for: card)
        try rig.player.cards.setLink(.action(.stop), for: stopCard)
        try rig.playFirst()
        try rig.idle(3000)
        try rig.press(.playPause)
        rig.player.flushSaves()
        return rig
    }

    func bookmarks(_ directory: String) -> [BookmarkStore.Bookmark] {
        StickSet(links: [:], bookmarks: BookmarkStore(directory: directory).all).bookmarks
    }

    @Test func exportThenImportOnAFreshBoxGivesTheSameCardTheSameAlbumInTheSameMode() throws {
        let stick = try TemporaryDirectory("kiosk-set-stick")
        defer { stick.remove() }
        let old = try configuredBox()
        defer { old.shutdown() }
        try stick.write(StickSet.exportMarker, "")
        old.player.stickSetArrived(mountPoint: stick.path)
        #expect(message(old)?.title == "Cards and bookmarks saved to the stick")
        let exported = try StickSet.parse(try Syscalls.readFile(stick.file(StickSet.fileName)), file: "x")
        #expect(exported.links.count == 2 && exported.bookmarks.count == 1)

        // The grandparent's stick at the new box: the marker is not on it (it would be written to).
        try Syscalls.unlink(stick.file(StickSet.exportMarker))
        let new = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { new.shutdown() }
        new.player.stickSetArrived(mountPoint: stick.path)
        #expect(
            message(new)
                == MessageState(
                    title: "Cards and bookmarks found",
                    detail: "2 cards, 1 bookmark. Hold Select to use them on this box"))
        #expect(new.player.cards.links.isEmpty, "nothing changes before the hold")
        try new.press(.playFromStart)
        new.player.flushSaves()
        #expect(message(new)?.title == "Cards and bookmarks imported")

        let oldCards = CardStore(directory: old.state.path)
        let newCards = CardStore(directory: new.state.path)
        #expect(newCards.links == oldCards.links)
        #expect(newCards.played == oldCards.played)
        let oldMarks = StickSet(bookmarks: BookmarkStore(directory: old.state.path).all)
        let newMarks = StickSet(bookmarks: BookmarkStore(directory: new.state.path).all)
        #expect(!oldMarks.bookmarks.isEmpty && newMarks == oldMarks)

        // The card on the new box: the same album, one track per tap.
        try new.idle(StickOffer.undoSeconds * 1000 + 1000)
        new.player.handle(CardEvent(.presented, uid: card, source: "test", timestampNs: new.nowNs))
        let album = old.collections(.album)[1]
        let playing = try new.run { new.player.status == .playing && new.player.currentTrack?.album == album.name }
        #expect(playing)
        #expect(new.player.queue.count == 1, "one track per tap, as on the old box")
    }

    @Test func aStickWithASetIsOfferedWhenTheLibraryAddsItAndTheOfferGoesWithIt() throws {
        let stick = try TemporaryDirectory("kiosk-set-stick")
        defer { stick.remove() }
        try stick.write(StickSet.fileName, StickSet(links: [card: .action(.stop)]).text)
        let box = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { box.shutdown() }
        box.library.addVolume(path: stick.path)
        try box.idle(20)
        #expect(message(box)?.title == "Cards and bookmarks found")
        box.library.removeVolume(path: stick.path)
        try box.idle(20)
        #expect(message(box)?.title != "Cards and bookmarks found")
        try box.press(.playFromStart)
        #expect(box.player.cards.links.isEmpty, "the offer went with its stick")
    }

    @Test func aSetReadOffTheLoopIsNotOfferedWhenItsStickWentMeanwhile() throws {
        let stick = try TemporaryDirectory("kiosk-set-stick")
        defer { stick.remove() }
        try stick.write(StickSet.fileName, StickSet(links: [card: .action(.stop)]).text)
        let box = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { box.shutdown() }
        // The appliance's worker, held back: the look ends after the stick went.
        var asked: [String] = []
        box.player.stickSetLooker = { asked.append($0) }
        box.library.addVolume(path: stick.path)
        try box.idle(20)
        #expect(asked == [stick.path])
        box.library.removeVolume(path: stick.path)
        try box.idle(20)
        box.player.stickSetLooked(StickSet.arrival(at: stick.path), mountPoint: stick.path)
        #expect(message(box)?.title != "Cards and bookmarks found")
    }

    @Test func anImportIsUndoneOnceByHoldingSelectAgain() throws {
        let stick = try TemporaryDirectory("kiosk-set-stick")
        defer { stick.remove() }
        let box = try configuredBox()
        defer { box.shutdown() }
        let before = StickSet(links: box.player.cards.links, played: box.player.cards.played)
        try stick.write(
            StickSet.fileName, StickSet(links: [CardUID("99")!: .action(.next)]).text)
        box.player.stickSetArrived(mountPoint: stick.path)
        try box.press(.playFromStart)
        #expect(box.player.cards.links == [CardUID("99")!: .action(.next)])
        box.player.flushSaves()
        #expect(Syscalls.exists(box.state.file(Player.beforeImportFile)), "the state before, kept as a set")
        try box.press(.playFromStart)
        #expect(message(box)?.title == "Import undone")
        #expect(box.player.cards.links == before.links)
        box.player.flushSaves()
        #expect(CardStore(directory: box.state.path).links == before.links)
    }

    @Test func aFolderCardFromABoxWhoseStickHadAnotherUUIDFindsTheFolderByTheStickLabel() throws {
        let stick = try TemporaryDirectory("kiosk-set-stick")
        defer { stick.remove() }
        let box = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { box.shutdown() }
        let folder = try #require(box.collections(.folder).first { $0.name == "Second Wind" })
        var link = CardCollection.of(folder, in: box.catalog)
        // Exported on a box where the stick labelled "main" had this UUID.
        let oldID = "1234-ABCD"
        link.key = oldID + String(link.key.dropFirst(link.volumeID.count))
        link.volumeID = oldID
        try stick.write(StickSet.fileName, StickSet(links: [card: .collection(link)]).text)
        box.player.stickSetArrived(mountPoint: stick.path)
        try box.press(.playFromStart)
        try box.idle(StickOffer.undoSeconds * 1000 + 1000)
        box.player.handle(CardEvent(.presented, uid: card, source: "test", timestampNs: box.nowNs))
        #expect(try box.run { box.player.status == .playing && box.player.currentTrack?.album == "Second Wind" })
    }

    /// Puts `write` on a stick, shows it to a configured box, and returns the message shown; the
    /// box's cards and bookmarks must be as before.
    func refusal(_ write: (TemporaryDirectory) throws -> Void) throws -> MessageState? {
        let stick = try TemporaryDirectory("kiosk-set-stick")
        defer { stick.remove() }
        let box = try configuredBox()
        defer { box.shutdown() }
        let links = box.player.cards.links
        let marks = StickSet(bookmarks: box.player.memory.bookmarks)
        try write(stick)
        box.player.stickSetArrived(mountPoint: stick.path)
        let shown = message(box)
        try box.press(.playFromStart)
        #expect(box.player.cards.links == links, "nothing changed")
        #expect(StickSet(bookmarks: box.player.memory.bookmarks) == marks, "nothing changed")
        return shown.map {
            MessageState(title: $0.title, detail: $0.detail?.replacing(stick.path, with: "STICK"), kind: $0.kind)
        }
    }

    @Test func hostileSetFilesAreRefusedWithTheFileNamedAndNothingChanges() throws {
        let file = "STICK/" + StickSet.fileName
        let huge = try refusal {
            try $0.write(StickSet.fileName, String(repeating: " ", count: StickSet.sizeLimit + 1))
        }
        #expect(huge?.title == "Cannot use kiosk-set.json" && huge?.kind == .error)
        #expect(
            huge?.detail?.contains(file) == true && huge?.detail?.contains("limit") == true, "\(huge?.detail ?? "")")

        let version = try refusal { try $0.write(StickSet.fileName, #"{"format": "kiosk-player-set", "version": 2}"#) }
        #expect(version?.detail == "\(file): version: version 2; this box reads version 1")

        let outside = try refusal {
            try $0.write(
                StickSet.fileName,
                #"{"format": "kiosk-player-set", "version": 1, "bookmarks": [{"volumeID": "A", "category": "folder", "key": "k", "relativePath": "../../var/lib/kiosk-player/cards.json"}]}"#
            )
        }
        #expect(
            outside?.detail?.hasPrefix(file) == true && outside?.detail?.contains("'..'") == true,
            "\(outside?.detail ?? "")")

        let link = try refusal { stick in
            try stick.write("elsewhere.json", StickSet(links: [CardUID("99")!: .action(.next)]).text)
            #expect(symlink(stick.file("elsewhere.json"), stick.file(StickSet.fileName)) == 0)
        }
        #expect(link?.detail?.contains("symbolic link") == true, "\(link?.detail ?? "")")

        let fifo = try refusal { stick in #expect(mkfifo(stick.file(StickSet.fileName), 0o644) == 0) }
        #expect(fifo?.detail?.contains("a FIFO, not a regular file") == true, "\(fifo?.detail ?? "")")

        let boxOnly = try refusal {
            try $0.write(
                StickSet.fileName,
                #"{"format": "kiosk-player-set", "version": 1, "settings": {"stateDirectory": "/etc"}}"#)
        }
        #expect(
            boxOnly?.detail
                == "\(file): settings.stateDirectory: belongs to the box that wrote it, not carried in a set")
    }

    @Test func theSettingsCarriedAreTheConfigsLessWhatBelongsToTheBox() throws {
        let settings = StickSet.settings(
            fromConfig: Array(
                #"{"board": "pirate-audio", "volume": 40, "stateDirectory": "/x", "bookmarks": "all"}"#.utf8))
        #expect(settings == .object([("volume", .number(40)), ("bookmarks", .string("all"))]))
        let set = StickSet(settings: settings)
        #expect(try StickSet.parse(Array(set.text.utf8), file: "f") == set)
        let bad = StickSet(settings: .object([("volume", .string("loud"))]))
        #expect(throws: ConfigError.self) { try StickSet.parse(Array(bad.text.utf8), file: "f") }
    }

    @Test func importedSettingsApplyFromTheNextStartAndAnUndoTakesThemBack() throws {
        let stick = try TemporaryDirectory("kiosk-set-stick")
        defer { stick.remove() }
        let box = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { box.shutdown() }
        let settings = JSONValue.object([("volume", .number(40)), ("volumeMax", .number(80))])
        try stick.write(StickSet.fileName, StickSet(links: [card: .action(.stop)], settings: settings).text)
        box.player.stickSetArrived(mountPoint: stick.path)
        try box.press(.playFromStart)
        #expect(message(box)?.detail == "1 card, 0 bookmarks, settings from the next start. Hold Select to undo")
        box.player.flushSaves()
        let next = ImportedSettings.applying(toConfig: nil, stateDirectory: box.state.path)
        #expect(
            next.outcome == .applied(keys: ["volume", "volumeMax"], file: box.state.file(ImportedSettings.fileName)))
        let started = try Config.parse(try #require(next.bytes), file: "config.json")
        #expect(started.volume == 40 && started.volumeLimits.range.upperBound == 80)
        #expect(box.player.currentStickSet.settings == settings, "a box exports the settings in force")

        try box.press(.playFromStart)
        #expect(message(box)?.title == "Import undone")
        box.player.flushSaves()
        #expect(ImportedSettings.applying(toConfig: nil, stateDirectory: box.state.path).outcome == .none)
    }
}
