// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskMPD
import KioskSystem
import KioskTestSupport
import Testing

/// Stored playlists a client edits (`save`, `rm`, `rename`, `playlistadd`…), kept as `.m3u8` files
/// in the state directory beside the sticks' read-only playlists, answered with MPD 0.23's words.
@Suite(.tags(.integration), .serialized) struct MPDStoredPlaylistTests {
    static let gulls = "USBSTICK/The Field Recorders/Coastline/02 Gulls.flac"
    static let lowTide = "USBSTICK/The Field Recorders/Coastline/01 Low Tide.flac"
    static let polarNight = "USBSTICK/Aurora Quartet/Northern Lights/01 Polar Night.flac"

    /// The file of the saved playlist `name`, nil when there is none.
    static func file(_ h: Harness, _ name: String) -> String? {
        guard let bytes = try? Syscalls.readFile(h.directory.file("state/mpd-playlists/\(name).m3u8")) else {
            return nil
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func saveWritesTheQueueAndLoadBringsItBack() throws {
        let h = try Harness()
        let (saved, cleared, loaded) = try h.withClient { c in
            _ = try c.command("add \"USBSTICK/The Field Recorders\"")
            return (try c.command("save Mine"), try c.command("clear"), try c.command("load Mine"))
        }
        #expect(saved == ["OK"] && cleared == ["OK"] && loaded == ["OK"])
        #expect(h.player.queue.map(\.title) == ["Low Tide", "Gulls"])
        #expect(Self.file(h, "Mine") == "\(Self.lowTide)\n\(Self.gulls)\n")
    }

    @Test func saveToAnExistingNameIsRefusedAsMPDRefusesIt() throws {
        let h = try Harness()
        let (again, stick) = try h.withClient { c in
            _ = try c.command("save Mine")
            return (try c.command("save Mine"), try c.command("save \"Road Trip\""))
        }
        #expect(again == ["ACK [56@0] {save} Playlist already exists"])
        #expect(stick == ["ACK [56@0] {save} Playlist already exists"])
    }

    @Test func namesThatWouldLeaveTheDirectoryAreBadPlaylistNames() throws {
        let h = try Harness()
        let answers = try h.withClient { c in
            try [
                "save ../escape", "save a/b", "save .hidden", "save \"\"", "playlistadd x/y USBSTICK",
                "save " + String(repeating: "x", count: 246),
            ].map { try c.command($0) }
        }
        #expect(answers.allSatisfy { $0.count == 1 && $0[0].hasSuffix("} Bad playlist name") })
        #expect(answers.allSatisfy { $0[0].hasPrefix("ACK [2@0]") })
        let entries = try Syscalls.readDirectory(h.directory.file("state")).entries.map(\.name)
        #expect(!entries.contains("escape.m3u8"))
        #expect(!Syscalls.exists(h.directory.file("state/mpd-playlists/a")))
    }

    @Test func renameAndRmChangeOnlySavedPlaylists() throws {
        let h = try Harness()
        let answers = try h.withClient { c in
            try [
                "save A", "rename A B", "rename B \"Road Trip\"", "rename Nothing C", "rm B", "rm B",
                "rm \"Road Trip\"",
                "listplaylists",
            ].map { try c.command($0) }
        }
        #expect(answers[0] == ["OK"] && answers[1] == ["OK"])
        #expect(answers[2] == ["ACK [56@0] {rename} Playlist exists already"])
        #expect(answers[3] == ["ACK [50@0] {rename} No such playlist"])
        #expect(answers[4] == ["OK"])
        #expect(answers[5] == ["ACK [50@0] {rm} No such playlist"])
        #expect(answers[6] == ["ACK [50@0] {rm} No such playlist"])
        #expect(answers[7].filter { $0.hasPrefix("playlist: ") } == ["playlist: Road Trip"])
    }

    @Test func playlistaddInsertsSongsAndDirectories() throws {
        let h = try Harness()
        let (added, inserted, list) = try h.withClient { c in
            (
                try c.command("playlistadd New \"USBSTICK/The Field Recorders/Coastline\""),
                try c.command("playlistadd New \"\(Self.polarNight)\" 1"), try c.command("listplaylist New")
            )
        }
        #expect(added == ["OK"] && inserted == ["OK"])
        #expect(list == ["file: \(Self.lowTide)", "file: \(Self.polarNight)", "file: \(Self.gulls)", "OK"])
    }

    @Test func playlistaddRefusesAMissingURIAndAPositionPastTheEnd() throws {
        let h = try Harness()
        let (missing, past) = try h.withClient { c in
            (try c.command("playlistadd New USBSTICK/nothing"), try c.command("playlistadd New \"\(Self.gulls)\" 1"))
        }
        #expect(missing == ["ACK [50@0] {playlistadd} No such directory"])
        #expect(past == ["ACK [2@0] {playlistadd} Bad position"])
        #expect(Self.file(h, "New") == nil)
    }

    @Test func playlistmoveAndPlaylistdeleteEditBySongPosition() throws {
        let h = try Harness()
        let (moved, deleted, list) = try h.withClient { c in
            _ = try c.command("playlistadd P \"USBSTICK/The Field Recorders\"")
            _ = try c.command("playlistadd P \"\(Self.polarNight)\"")
            return (
                try c.command("playlistmove P 2 0"), try c.command("playlistdelete P 1"),
                try c.command("listplaylist P")
            )
        }
        #expect(moved == ["OK"] && deleted == ["OK"])
        #expect(list == ["file: \(Self.polarNight)", "file: \(Self.gulls)", "OK"])
    }

    @Test func editsOutOfRangeAnswerMPDsErrors() throws {
        let h = try Harness()
        let answers = try h.withClient { c in
            _ = try c.command("playlistadd P \"\(Self.gulls)\"")
            return try ["playlistdelete P 2", "playlistdelete P 1", "playlistmove P 0 3", "playlistdelete Q 0"].map {
                try c.command($0)
            }
        }
        #expect(answers[0] == ["ACK [2@0] {playlistdelete} Bad song index"])
        // A start at the end removes nothing, as MPD's RangeArg::CheckClip allows.
        #expect(answers[1] == ["OK"])
        #expect(answers[2] == ["ACK [2@0] {playlistmove} Bad range"])
        #expect(answers[3] == ["ACK [50@0] {playlistdelete} No such playlist"])
    }

    @Test func playlistclearEmptiesAnExistingPlaylistOnly() throws {
        let h = try Harness()
        let (cleared, list, missing) = try h.withClient { c in
            _ = try c.command("playlistadd P USBSTICK")
            return (try c.command("playlistclear P"), try c.command("listplaylist P"), try c.command("playlistclear Q"))
        }
        #expect(cleared == ["OK"] && list == ["OK"])
        #expect(missing == ["ACK [50@0] {playlistclear} No such playlist"])
        #expect(Self.file(h, "P") == "")
    }

    @Test func searchaddplAppendsOrInsertsTheSongsASearchMatches() throws {
        let h = try Harness()
        let (appended, inserted, list) = try h.withClient { c in
            _ = try c.command("playlistadd S \"\(Self.polarNight)\"")
            return (
                try c.command("searchaddpl S artist \"field recorders\""),
                try c.command("searchaddpl S title gulls position 0"), try c.command("listplaylist S")
            )
        }
        #expect(appended == ["OK"] && inserted == ["OK"])
        #expect(
            list == [
                "file: \(Self.gulls)", "file: \(Self.polarNight)", "file: \(Self.lowTide)", "file: \(Self.gulls)", "OK",
            ])
    }

    @Test func rootLsinfoListsSavedAndStickPlaylistsAfterTheDirectories() throws {
        let h = try Harness()
        let lines = try h.withClient { c in
            _ = try c.command("save Mine")
            return try c.command("lsinfo \"\"")
        }
        #expect(lines.first == "directory: USBSTICK")
        #expect(lines.filter { $0.hasPrefix("playlist: ") } == ["playlist: Mine", "playlist: Road Trip"])
        #expect(lines.dropLast().last?.hasPrefix("Last-Modified: ") == true)
        #expect(lines.last == "OK")
    }

    @Test func idleAnnouncesStoredPlaylistAfterAnEdit() throws {
        let h = try Harness()
        let path = h.socketPath
        let woken = try h.client {
            let watcher = try TestClient(unix: path)
            let editor = try TestClient(unix: path)
            try watcher.send("idle stored_playlist\n")
            _ = try editor.command("ping")
            _ = try editor.command("playlistadd P USBSTICK")
            return try watcher.response()
        }
        #expect(woken == ["changed: stored_playlist", "OK"])
    }

    @Test func editingAStickPlaylistSavesACopyThatShadowsIt() throws {
        let h = try Harness()
        let (deleted, copy, lists, original, removed, back) = try h.withClient { c in
            (
                try c.command("playlistdelete \"Road Trip\" 0"), try c.command("listplaylist \"Road Trip\""),
                try c.command("listplaylists"), try c.command("listplaylist USBSTICK/Mix.m3u8"),
                try c.command("rm \"Road Trip\""), try c.command("listplaylist \"Road Trip\"")
            )
        }
        #expect(deleted == ["OK"])
        #expect(copy == ["file: \(Self.polarNight)", "OK"])
        #expect(lists.filter { $0.hasPrefix("playlist: ") } == ["playlist: Road Trip", "playlist: USBSTICK/Mix.m3u8"])
        #expect(original == ["file: \(Self.gulls)", "file: \(Self.polarNight)", "OK"])
        #expect(removed == ["OK"])
        #expect(back == original)
    }

    @Test func aSongOfAnAbsentStickStaysInTheFileAndIsListedByItsURIAlone() throws {
        let h = try Harness()
        let text = "ELSEWHERE/gone.flac\n\(Self.gulls)\n"
        try h.directory.write("state/mpd-playlists/Gone.m3u8", text)
        let (info, loaded) = try h.withClient { c in
            (try c.command("listplaylistinfo Gone"), try c.command("load Gone"))
        }
        #expect(Array(info.prefix(2)) == ["file: ELSEWHERE/gone.flac", "file: \(Self.gulls)"])
        #expect(info.contains("Title: Gulls"))
        #expect(loaded == ["OK"])
        #expect(h.player.queue.map(\.title) == ["Gulls"])
        #expect(Self.file(h, "Gone") == text)
    }

    @Test func aPlaylistFileLongerThanTheLimitIsReadUpToTheLimit() throws {
        let h = try Harness { $0.maxStoredPlaylistLength = 2 }
        try h.directory.write(
            "state/mpd-playlists/Long.m3u8", "#EXTM3U\n\(Self.gulls)\n\n\(Self.lowTide)\n\(Self.polarNight)\n")
        let (list, longest) = try h.withClient { c in
            (try c.command("listplaylist Long"), try c.command("save " + String(repeating: "x", count: 245)))
        }
        #expect(list == ["file: \(Self.gulls)", "file: \(Self.lowTide)", "OK"])
        #expect(longest == ["OK"])
    }

    @Test func withoutAStateDirectoryStoredPlaylistsAreDisabled() throws {
        let h = try Harness { $0.stateDirectory = nil }
        let (saved, listed) = try h.withClient { c in (try c.command("save Mine"), try c.command("listplaylists")) }
        #expect(saved == ["ACK [5@0] {save} Stored playlists are disabled"])
        #expect(listed.count == 3 && listed.first == "playlist: Road Trip")
    }

    @Test func aClientCannotMakeMorePlaylistsOrLongerOnesThanTheLimits() throws {
        let h = try Harness {
            $0.maxStoredPlaylists = 2
            $0.maxStoredPlaylistLength = 3
        }
        let answers = try h.withClient { c in
            try ["save a", "save b", "save c", "playlistadd a USBSTICK", "playlistadd b \"\(Self.gulls)\""].map {
                try c.command($0)
            }
        }
        #expect(answers[0] == ["OK"] && answers[1] == ["OK"])
        #expect(answers[2] == ["ACK [51@0] {save} Too many stored playlists (at most 2)"])
        #expect(answers[3] == ["ACK [51@0] {playlistadd} Stored playlist is too large"])
        #expect(answers[4] == ["OK"])
        #expect(Self.file(h, "c") == nil)
        #expect(Self.file(h, "a") == "")
    }
}
