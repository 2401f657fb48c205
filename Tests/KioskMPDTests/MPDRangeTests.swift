// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
import Testing

/// `rangeid ID START:END` as MPD 0.23 (src/command/QueueCommands.cxx `handle_rangeid`,
/// src/queue/PlaylistEdit.cxx `SetSongIdRange`, src/SongPrint.cxx `PrintRange`): the entry plays
/// part of its song, shows it as `Range:`, and MPD's times count within the range. The fixture's
/// songs last 20 s.
@Suite(.tags(.integration), .serialized) struct MPDRangeTests {
    /// Ids of the two Coastline entries (20 s each), after adding them.
    private static func addCoastline(_ c: TestClient) throws -> [String] {
        _ = try c.command("add \"USBSTICK/The Field Recorders\"")
        return try c.command("playlistinfo").filter { $0.hasPrefix("Id: ") }.map { String($0.dropFirst(4)) }
    }

    @Test func aRangeIsListedAfterTheFileWithTheRangesDuration() throws {
        let h = try Harness()
        let lines = try h.withClient { c in
            let ids = try Self.addCoastline(c)
            #expect(try c.command("rangeid \(ids[1]) 1.0:2.5") == ["OK"])
            return try c.command("playlistinfo 1")
        }
        #expect(
            Array(lines.prefix(2)) == [
                "file: USBSTICK/The Field Recorders/Coastline/02 Gulls.flac", "Range: 1.000-2.500",
            ])
        #expect(lines.contains("Time: 2") && lines.contains("duration: 1.500"), "\(lines)")
    }

    /// `10:` plays from 10 s to the end (`Range: 10.000-`); an END at or past the song's end means
    /// its end; `:` is the whole song again (no Range line).
    @Test func openEndsAndTheWholeSong() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            let ids = try Self.addCoastline(c)
            _ = try c.command("rangeid \(ids[0]) 10:")
            let open = try c.command("playlistid \(ids[0])")
            _ = try c.command("rangeid \(ids[0]) 5:30")
            let pastTheEnd = try c.command("playlistid \(ids[0])")
            _ = try c.command("rangeid \(ids[0]) :")
            return (open, pastTheEnd, try c.command("playlistid \(ids[0])"))
        }
        #expect(result.0.contains("Range: 10.000-") && result.0.contains("duration: 10.000"), "\(result.0)")
        #expect(result.1.contains("Range: 5.000-"), "\(result.1)")
        #expect(!result.2.contains { $0.hasPrefix("Range:") } && result.2.contains("duration: 20.000"))
    }

    @Test func badRangesUnknownIdsAndStartsPastTheEndAreRefusedInMPDsWords() throws {
        let h = try Harness()
        let answers = try h.withClient { c in
            let ids = try Self.addCoastline(c)
            return [
                try c.command("rangeid \(ids[0]) 2:1"), try c.command("rangeid \(ids[0]) 1"),
                try c.command("rangeid \(ids[0]) -1:"), try c.command("rangeid 9999 1:2"),
                try c.command("rangeid \(ids[0]) 25:"),
            ]
        }
        #expect(
            answers == [
                ["ACK [2@0] {rangeid} Bad range"], ["ACK [2@0] {rangeid} Bad range"], ["ACK [2@0] {rangeid} Bad range"],
                ["ACK [50@0] {rangeid} No such song"], ["ACK [2@0] {rangeid} Invalid start offset"],
            ])
    }

    /// MPD's `PlaylistResult::DENIED` is `ACK_ERROR_PERMISSION` (4); a stopped queue's current song
    /// may be edited.
    @Test func theCurrentSongCannotBeEditedWhilePlaying() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            let ids = try Self.addCoastline(c)
            _ = try c.command("play 0")
            let playing = try c.command("rangeid \(ids[0]) 1:2")
            _ = try c.command("stop")
            return (playing, try c.command("rangeid \(ids[0]) 1:2"))
        }
        #expect(result.0 == ["ACK [4@0] {rangeid} Cannot edit the current song"])
        #expect(result.1 == ["OK"])
    }

    /// The ranged entry has changed: `plchanges` with the version before lists it alone.
    @Test func plchangesReportsTheRangedEntry() throws {
        let h = try Harness()
        let changed = try h.withClient { c in
            let ids = try Self.addCoastline(c)
            let version = try c.pairs("status")["playlist"] ?? ""
            _ = try c.command("rangeid \(ids[1]) 3:4")
            return try c.command("plchangesposid \(version)")
        }
        #expect(changed.filter { $0.hasPrefix("cpos: ") } == ["cpos: 1"])
    }

    /// As in MPD, `elapsed` and `duration` of a ranged song count within its range, and seeks are
    /// relative to its start.
    @Test func statusAndSeeksCountFromTheRangesStart() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            let ids = try Self.addCoastline(c)
            _ = try c.command("rangeid \(ids[1]) 5:15")
            _ = try c.command("play 1")
            _ = try c.command("pause 1")
            let started = try c.pairs("status")
            _ = try c.command("seekcur 2")
            return (started, try c.pairs("status"))
        }
        // Paused, so no time passes between the commands and their answers (however busy the machine):
        // counted from the file's start, elapsed would be 5 s more.
        #expect(result.0["duration"] == "10.000" && result.0["time"]?.hasSuffix(":10") == true, "\(result.0)")
        #expect((Double(result.0["elapsed"] ?? "") ?? -1) < 5, "\(result.0)")
        #expect(result.1["elapsed"] == "2.000", "\(result.1)")
    }
}
