// SPDX-License-Identifier: GPL-3.0-or-later
import KioskMPD
import KioskSystem
import KioskTestSupport
import Testing

/// `sticker` (MPD 0.23, the `song` domain): values kept in an SQLite file in the state directory.
@Suite(.tags(.integration), .serialized) struct MPDStickerTests {
    static let gulls = "\"USBSTICK/The Field Recorders/Coastline/02 Gulls.flac\""
    static let lowTide = "\"USBSTICK/The Field Recorders/Coastline/01 Low Tide.flac\""
    static let polarNight = "\"USBSTICK/Aurora Quartet/Northern Lights/01 Polar Night.flac\""

    @Test func setGetListAndDeleteAStickerOfASong() throws {
        let h = try Harness()
        let answers = try h.withClient { c in
            try [
                "sticker set song \(Self.gulls) rating 5", "sticker set song \(Self.gulls) played 3",
                "sticker set song \(Self.gulls) rating 4", "sticker get song \(Self.gulls) rating",
                "sticker list song \(Self.gulls)", "sticker delete song \(Self.gulls) rating",
                "sticker get song \(Self.gulls) rating", "sticker delete song \(Self.gulls)",
                "sticker delete song \(Self.gulls)", "sticker list song \(Self.gulls)",
            ].map { try c.command($0) }
        }
        #expect(answers[0] == ["OK"] && answers[1] == ["OK"] && answers[2] == ["OK"])
        #expect(answers[3] == ["sticker: rating=4", "OK"])
        #expect(answers[4] == ["sticker: played=3", "sticker: rating=4", "OK"])
        #expect(answers[5] == ["OK"])
        #expect(answers[6] == ["ACK [50@0] {sticker} no such sticker"])
        #expect(answers[7] == ["OK"])
        #expect(answers[8] == ["ACK [50@0] {sticker} no such sticker"])
        #expect(answers[9] == ["OK"])
    }

    @Test func findListsTheSongsUnderADirectoryWithASticker() throws {
        let h = try Harness()
        let answers = try h.withClient { c in
            _ = try c.command("sticker set song \(Self.gulls) rating 2")
            _ = try c.command("sticker set song \(Self.lowTide) rating 5")
            _ = try c.command("sticker set song \(Self.polarNight) rating 3")
            return try [
                "sticker find song \"USBSTICK/The Field Recorders\" rating", "sticker find song \"\" rating = 3",
                "sticker find song \"\" rating < 3", "sticker find song USBSTICK rating > 2",
                "sticker find song USBSTICK/The rating",
            ].map { try c.command($0) }
        }
        let lowTide = "file: USBSTICK/The Field Recorders/Coastline/01 Low Tide.flac"
        let gulls = "file: USBSTICK/The Field Recorders/Coastline/02 Gulls.flac"
        let polarNight = "file: USBSTICK/Aurora Quartet/Northern Lights/01 Polar Night.flac"
        #expect(answers[0] == [lowTide, "sticker: rating=5", gulls, "sticker: rating=2", "OK"])
        #expect(answers[1] == [polarNight, "sticker: rating=3", "OK"])
        #expect(answers[2] == [gulls, "sticker: rating=2", "OK"])
        #expect(answers[3] == [polarNight, "sticker: rating=3", lowTide, "sticker: rating=5", "OK"])
        // A directory is a whole path component: "USBSTICK/The" names nothing.
        #expect(answers[4] == ["OK"])
    }

    @Test func stickersOnlyAttachToSongsOfTheDatabase() throws {
        let h = try Harness()
        let answers = try h.withClient { c in
            try [
                "sticker set song USBSTICK/nothing.flac rating 5",
                "sticker get song \"USBSTICK/Aurora Quartet\" rating",
                "sticker set album x rating 5", "sticker find song \"\" rating ~ 5", "sticker get song \(Self.gulls)",
            ].map { try c.command($0) }
        }
        #expect(answers[0] == ["ACK [50@0] {sticker} No such song"])
        #expect(answers[1] == ["ACK [50@0] {sticker} No such song"])
        #expect(answers[2] == ["ACK [2@0] {sticker} unknown sticker domain"])
        #expect(answers[3] == ["ACK [2@0] {sticker} bad operator"])
        #expect(answers[4] == ["ACK [2@0] {sticker} bad request"])
    }

    @Test func stickersSurviveARestartOfTheServer() throws {
        let h = try Harness()
        _ = try h.withClient { c in try c.command("sticker set song \(Self.gulls) rating 5") }
        h.server.stop()
        var settings = h.server.settings
        settings.socketPath = h.directory.file("run/second.socket")
        let second = MPDServer(loop: h.loop, player: h.player, library: h.library, settings: settings)
        try second.start()
        defer { second.stop() }
        let path = h.directory.file("run/second.socket")
        let value = try h.client { try TestClient(unix: path).command("sticker get song \(Self.gulls) rating") }
        #expect(value == ["sticker: rating=5", "OK"])
    }

    @Test func idleAnnouncesStickerAfterAChange() throws {
        let h = try Harness()
        let path = h.socketPath
        let woken = try h.client {
            let watcher = try TestClient(unix: path)
            let editor = try TestClient(unix: path)
            try watcher.send("idle sticker\n")
            _ = try editor.command("ping")
            _ = try editor.command("sticker set song \(Self.gulls) rating 5")
            return try watcher.response()
        }
        #expect(woken == ["changed: sticker", "OK"])
    }

    @Test func aClientCannotStoreMoreOrLongerStickersThanTheLimits() throws {
        let h = try Harness {
            $0.maxStickers = 2
            $0.maxStickerBytes = 8
        }
        let answers = try h.withClient { c in
            try [
                "sticker set song \(Self.gulls) a 1", "sticker set song \(Self.gulls) b 1",
                "sticker set song \(Self.gulls) a 2", "sticker set song \(Self.gulls) c 1",
                "sticker set song \(Self.lowTide) a 123456789",
            ].map { try c.command($0) }
        }
        #expect(answers[0] == ["OK"] && answers[1] == ["OK"] && answers[2] == ["OK"])
        #expect(answers[3] == ["ACK [5@0] {sticker} sticker database is full (2 stickers)"])
        #expect(answers[4] == ["ACK [2@0] {sticker} Sticker name or value too long (at most 8 bytes)"])
    }

    @Test func aStickerFileThatIsNotADatabaseIsKeptAsideAndANewOneStarted() throws {
        let h = try Harness()
        let garbage = Array(repeating: UInt8(0x5A), count: 8192)
        try h.directory.write("state/mpd-stickers.sqlite", garbage)
        let answers = try h.withClient { c in
            [
                try c.command("sticker set song \(Self.gulls) rating 5"),
                try c.command("sticker get song \(Self.gulls) rating"),
            ]
        }
        #expect(answers == [["OK"], ["sticker: rating=5", "OK"]])
        #expect(try Syscalls.readFile(h.directory.file("state/mpd-stickers.sqlite.corrupt")) == garbage)
    }

    @Test func withoutAStateDirectoryTheStickerDatabaseIsDisabled() throws {
        let h = try Harness { $0.stateDirectory = nil }
        let answer = try h.withClient { c in try c.command("sticker get song \(Self.gulls) rating") }
        #expect(answer == ["ACK [5@0] {sticker} sticker database is disabled"])
    }
}
