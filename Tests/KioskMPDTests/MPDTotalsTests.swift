// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskCore
import KioskLibrary
import KioskMPD
import KioskSystem
import KioskTestSupport
import Testing

/// Budgets as totals (issue 44, docs/reliability.md "Budgets"): the queue, the stored playlists,
/// the stickers and one answer are bounded in all, not only per item, and a client over a budget
/// gets an ACK naming the limit (never a silent close, never a partial add).
@Suite(.tags(.integration), .serialized) struct MPDTotalsTests {
    static let gulls = "\"USBSTICK/The Field Recorders/Coastline/02 Gulls.flac\""

    @Test func anAddPastTheQueueLimitIsRefusedWithMPDsCodeAndAddsNothing() throws {
        let h = try Harness { $0.maxQueueLength = 10 }
        let (first, second) = try h.withClient { c in (try c.command("add USBSTICK"), try c.command("add USBSTICK")) }
        #expect(first == ["OK"])
        #expect(second == ["ACK [51@0] {add} Playlist is too large (at most 10 songs)"])
        #expect(h.player.queue.count == h.trackCount)
    }

    @Test func addidPastTheQueueLimitIsRefused() throws {
        let h = try Harness { $0.maxQueueLength = 1 }
        let answers = try h.withClient { c in
            [try c.command("addid \(Self.gulls)"), try c.command("addid \(Self.gulls)")]
        }
        #expect(answers[0].first?.hasPrefix("Id: ") == true)
        #expect(answers[1] == ["ACK [51@0] {addid} Playlist is too large (at most 1 songs)"])
        #expect(h.player.queue.count == 1)
    }

    @Test func findaddAndSearchaddPastTheQueueLimitAreRefusedWhole() throws {
        let h = try Harness { $0.maxQueueLength = 4 }
        let answers = try h.withClient { c in
            [
                try c.command("findadd \"(artist == 'Aurora Quartet')\""),
                try c.command("searchadd \"(artist contains 'aurora')\""),
            ]
        }
        #expect(answers[0] == ["ACK [51@0] {findadd} Playlist is too large (at most 4 songs)"])
        #expect(answers[1] == ["ACK [51@0] {searchadd} Playlist is too large (at most 4 songs)"])
        #expect(h.player.queue.isEmpty)
    }

    @Test func loadPastTheQueueLimitIsRefusedWhole() throws {
        let h = try Harness { $0.maxQueueLength = 3 }
        let answers = try h.withClient { c in
            [
                try c.command("add \(Self.gulls)"), try c.command("add \(Self.gulls)"),
                try c.command("load \"Road Trip\""),
            ]
        }
        #expect(answers[2] == ["ACK [51@0] {load} Playlist is too large (at most 3 songs)"])
        #expect(h.player.queue.count == 2)
    }

    @Test func aSaveThatCouldNotBeReadBackIsRefusedAndWritesNothing() throws {
        let h = try Harness { $0.maxStoredPlaylistFileBytes = 100 }
        let answer = try h.withClient { c in
            _ = try c.command("add USBSTICK")
            return try c.command("save Long")
        }
        #expect(answer.count == 1 && answer[0].hasPrefix("ACK [51@0] {save} Stored playlist is too large ("))
        #expect(!Syscalls.exists(h.directory.file("state/mpd-playlists/Long.m3u8")))
    }

    @Test func savesPastTheStoredPlaylistTotalAreRefused() throws {
        let h = try Harness { $0.maxStoredPlaylistBytes = 600 }
        let answers = try h.withClient { c in
            _ = try c.command("add USBSTICK")
            return [try c.command("save A"), try c.command("save B")]
        }
        #expect(answers[0] == ["OK"])
        #expect(answers[1] == ["ACK [51@0] {save} Stored playlists are too large (at most 600 bytes in all)"])
        #expect(MPDTotalsTests.bytes(under: h.directory.file("state/mpd-playlists")) <= 600)
    }

    @Test func stickersPastTheByteTotalAreRefusedAndEditsThatShrinkStillWork() throws {
        let h = try Harness { $0.maxStickerTotalBytes = 200 }
        let value = String(repeating: "v", count: 100)
        let answers = try h.withClient { c in
            [
                try c.command("sticker set song \(Self.gulls) a \(value)"),
                try c.command("sticker set song \(Self.gulls) b \(value)"),
                try c.command("sticker set song \(Self.gulls) a short"),
            ]
        }
        #expect(answers[0] == ["OK"])
        #expect(
            answers[1] == ["ACK [5@0] {sticker} sticker database is full (200 bytes of stickers in all)"])
        #expect(answers[2] == ["OK"])
    }

    /// A stick playlist's name made `listplaylists` one piece larger than the client's output
    /// buffer: the connection was closed without a word.
    @Test func anAnswerPieceOverTheOutputLimitEndsWithAnACKAndTheClientStaysConnected() throws {
        let h = try Harness(
            {
                $0.maxOutputBytes = 1024
                $0.outputHighWater = 512
            },
            stick: MPDTotalsTests.stickWithALongPlaylistName)
        let (listed, ping) = try h.withClient { c in (try c.command("listplaylists"), try c.command("ping")) }
        #expect(listed.last == "ACK [52@0] {listplaylists} Answer too long (more than 1024 bytes at once)")
        #expect(ping == ["OK"])
        #expect(h.server.statistics.refusedLongAnswers == 1)
    }

    @Test func lsinfoOfTheRootWithAPieceOverTheOutputLimitEndsWithAnACK() throws {
        let h = try Harness(
            {
                $0.maxOutputBytes = 1024
                $0.outputHighWater = 512
            },
            stick: MPDTotalsTests.stickWithALongPlaylistName)
        let (listed, ping) = try h.withClient { c in (try c.command("lsinfo"), try c.command("ping")) }
        #expect(listed.last == "ACK [52@0] {lsinfo} Answer too long (more than 1024 bytes at once)")
        #expect(ping == ["OK"])
    }

    /// Each new sticker's write committed outside `sqlite3_step` (a count query was still open),
    /// where SQLite never checkpoints: the WAL grew with every sticker. It stays near its limit.
    @Test func theStickerWALIsCheckpointedAndStaysNearItsLimit() throws {
        let h = try Harness()
        let value = String(repeating: "w", count: 1000)
        let answers = try h.withClient { c in
            var answers: [String] = []
            for chunk in 0..<6 {
                try c.send(
                    (0..<100).map { "sticker set song \(Self.gulls) k\(chunk * 100 + $0) \(value)\n" }.joined())
                for _ in 0..<100 { answers.append(try c.response().last ?? "") }
            }
            return answers
        }
        #expect(answers.allSatisfy { $0 == "OK" })
        let wal = MPDTotalsTests.bytes(under: h.directory.file("state/mpd-stickers.sqlite-wal"))
        #expect(wal <= 2 << 20)
    }

    /// Forty stick playlists were printed as one piece (21 KB here, megabytes on a stick of many
    /// lists): they are listed one at a time, so the answer is whole however many there are.
    @Test func manyPlaylistsAreListedAsTheClientReadsNotAsOnePiece() throws {
        let h = try Harness(
            {
                // Room for a step: below the high-water mark, plus a piece of about 4 KiB.
                $0.maxOutputBytes = 16 << 10
                $0.outputHighWater = 4 << 10
            },
            stick: { root in
                let count = try Fixture.write(under: root)
                for i in 0..<40 {
                    try SyntheticLibrary.writeFile(
                        path: root + "/Lists/\(i).m3u8",
                        bytes: Array(
                            ("#PLAYLIST:\(i) " + String(repeating: "n", count: 500)
                                + "\n../The Field Recorders/Coastline/02 Gulls.flac\n").utf8))
                }
                return count
            })
        let (playlists, lsinfo) = try h.withClient { c in (try c.command("listplaylists"), try c.command("lsinfo")) }
        #expect(playlists.filter { $0.hasPrefix("playlist: ") }.count == 41)
        #expect(playlists.last == "OK")
        #expect(lsinfo.filter { $0.hasPrefix("playlist: ") }.count == 41)
        #expect(lsinfo.last == "OK")
    }

    /// The fixture and a playlist named with 1 500 bytes (under the 2 KiB a name may have).
    static func stickWithALongPlaylistName(_ root: String) throws -> Int {
        let count = try Fixture.write(under: root)
        try SyntheticLibrary.writeFile(
            path: root + "/Long.m3u8",
            bytes: Array(
                ("#PLAYLIST:" + String(repeating: "n", count: 1500) + "\nThe Field Recorders/Coastline/02 Gulls.flac\n")
                    .utf8))
        return count
    }

    /// A client adding, saving and stickering as fast as it can (a bounded number of commands):
    /// every budget holds, the state directory stays under the documented total, and a fresh
    /// client is answered.
    @Test func aClientFillingEveryBudgetLeavesTheStateDirectoryUnderItsTotalAndStatusAnswers() throws {
        let h = try Harness {
            $0.maxQueueLength = 64
            $0.maxStoredPlaylistBytes = 8 << 10
            $0.maxStickerTotalBytes = 16 << 10
            $0.maxStickers = 200
        }
        let value = String(repeating: "x", count: 500)
        let refused = try h.withClient { c in
            var refused: Set<String> = []
            for i in 0..<100 {
                try c.send(
                    "add USBSTICK\nsave p\(i)\nsticker set song \(Self.gulls) k\(i) \(value)\n")
                for _ in 0..<3 {
                    let answer = try c.response()
                    if let last = answer.last, last.hasPrefix("ACK ") {
                        refused.insert(String(last.prefix { $0 != "]" }))
                    }
                }
            }
            return refused
        }
        #expect(refused == ["ACK [51@0", "ACK [5@0"])
        #expect(h.player.queue.count <= 64)
        let status = try h.withClient { c in try c.pairs("status") }
        #expect(status["playlistlength"] == "\(h.player.queue.count)")
        h.player.saveNow()
        h.player.flushSaves()
        let state = h.directory.file("state")
        let clientBytes =
            MPDTotalsTests.bytes(under: state + "/mpd-playlists")
            + ["mpd-stickers.sqlite", "mpd-stickers.sqlite-wal", "mpd-stickers.sqlite-shm", "client-queue.json"]
            .reduce(0) { $0 + MPDTotalsTests.bytes(under: state + "/" + $1) }
        // Each part within its own budget, and all of them within the documented total.
        #expect(MPDTotalsTests.bytes(under: state + "/mpd-playlists") <= 8 << 10)
        #expect(MPDTotalsTests.bytes(under: state + "/client-queue.json") <= ClientQueueFile.maxBytes)
        #expect(clientBytes <= h.server.settings.clientStateBytesBound)
    }

    /// Bytes of the file at `path`, or of every file below it.
    static func bytes(under path: String) -> Int {
        guard let status = try? Syscalls.fileStatus(path) else { return 0 }
        if status.st_mode & S_IFMT != S_IFDIR { return Int(status.st_size) }
        guard let listing = try? Syscalls.readDirectory(path) else { return 0 }
        return listing.entries.reduce(0) { $0 + bytes(under: path + "/" + $1.name) }
    }
}
