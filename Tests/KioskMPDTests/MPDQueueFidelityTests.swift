// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
import KioskLibrary
import KioskMPD
import Testing

/// The queue as MPD 0.23 clients see it (src/command/QueueCommands.cxx, src/queue/PlaylistEdit.cxx,
/// src/command/PositionArg.cxx): ids that stay with their entries, MPD's "current song", relative
/// positions, and the edits clients send (moveid, swap, shuffle, prio, the crop of MPDroid).
@Suite(.tags(.integration), .serialized) struct MPDQueueFidelityTests {
    /// `Id:` values of `playlistinfo`, in queue order.
    static func ids(_ c: TestClient) throws -> [String] {
        try c.command("playlistinfo").filter { $0.hasPrefix("Id: ") }
    }

    @Test func moveKeepsTheIDsOfEveryEntryAndThePlayingOne() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            _ = try c.command("add USBSTICK")
            _ = try c.command("play 2")
            let before = try Self.ids(c)
            let playing = try c.pairs("status")["songid"]
            _ = try c.command("move 5 0")
            return (before, try Self.ids(c), playing, try c.pairs("status"))
        }
        #expect(result.1 == [result.0[5]] + result.0[0..<5] + result.0[6...])
        #expect(result.3["songid"] == result.2, "the playing entry keeps its id")
        #expect(result.3["song"] == "3")
    }

    @Test func theSameSongAddedTwiceHasTwoIDsAndDeleteidRemovesTheOneNamed() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            let uri = "\"USBSTICK/Loose/untagged.flac\""
            let first = try c.command("addid \(uri)")
            let second = try c.command("addid \(uri)")
            let secondID = second.first?.dropFirst(4) ?? ""
            _ = try c.command("deleteid \(secondID)")
            return (first, second, try Self.ids(c))
        }
        #expect(result.0 != result.1)
        #expect(result.2 == [result.0[0]], "the copy added first is left")
    }

    /// A queue that never played has no current song: nothing in status or currentsong, and
    /// positions relative to it are refused (mpc insert, `add URI +0`).
    @Test func aQueueThatNeverPlayedHasNoCurrentSong() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            _ = try c.command("add \"USBSTICK/The Field Recorders\"")
            return (
                try c.pairs("status"), try c.command("currentsong"),
                try c.command("add \"USBSTICK/Loose/untagged.flac\" +0"),
                try c.command("addid \"USBSTICK/Loose/untagged.flac\" -0")
            )
        }
        #expect(result.0["song"] == nil && result.0["songid"] == nil && result.0["nextsong"] == nil)
        #expect(result.0["playlistlength"] == "2")
        #expect(result.1 == ["OK"])
        #expect(result.2 == ["ACK [55@0] {add} No current song"])
        #expect(result.3 == ["ACK [55@0] {addid} No current song"])
    }

    @Test func stopKeepsTheCurrentSongAndClearForgetsIt() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            _ = try c.command("add \"USBSTICK/The Field Recorders\"")
            _ = try c.command("play 1")
            _ = try c.command("stop")
            let stopped = try c.pairs("status")
            _ = try c.command("clear")
            return (stopped, try c.pairs("status"))
        }
        #expect(result.0["song"] == "1" && result.0["state"] == "stop")
        #expect(result.1["song"] == nil)
    }

    @Test func insertAfterTheCurrentSongLandsRightAfterIt() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            _ = try c.command("add \"USBSTICK/Aurora Quartet/Northern Lights\"")
            _ = try c.command("play 0")
            _ = try c.command("add \"USBSTICK/Loose/untagged.flac\" +0")
            return try c.command("playlistinfo").filter { $0.hasPrefix("file: ") }
        }
        #expect(result[1] == "file: USBSTICK/Loose/untagged.flac")
    }

    @Test func moveToAPositionRelativeToTheCurrentSong() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            _ = try c.command("add USBSTICK")
            _ = try c.command("play 3")
            let before = try Self.ids(c)
            _ = try c.command("move 0 +0")
            let after = try Self.ids(c)
            let itself = try c.command("move 2 +1")
            let before2 = try c.command("move 6:8 -0")
            return (before, after, itself, before2, try Self.ids(c), try c.pairs("status"))
        }
        // Entry 0 goes right after the current one (which moves up to 2).
        #expect(result.1 == Array(result.0[1...3]) + [result.0[0]] + Array(result.0[4...]))
        #expect(result.2 == ["ACK [2@0] {move} Cannot move current song relative to itself"])
        #expect(result.3 == ["OK"])
        #expect(result.5["song"] == "4", "6:8 went right before the current song")
        #expect(Array(result.4[2...3]) == Array(result.1[6...7]))
    }

    @Test func moveidSwapAndSwapidKeepTheIDs() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            _ = try c.command("add \"USBSTICK/Aurora Quartet/Northern Lights\"")
            let ids = try Self.ids(c).map { String($0.dropFirst(4)) }
            _ = try c.command("moveid \(ids[2]) 0")
            let moved = try Self.ids(c)
            _ = try c.command("swap 0 1")
            let swapped = try Self.ids(c)
            _ = try c.command("swapid \(ids[1]) \(ids[0])")
            return (ids, moved, swapped, try Self.ids(c), try c.command("moveid 999 0"), try c.command("swap 0 9"))
        }
        let i = result.0.map { "Id: \($0)" }
        #expect(result.1 == [i[2], i[0], i[1]])
        #expect(result.2 == [i[0], i[2], i[1]])
        #expect(result.3 == [i[1], i[2], i[0]])
        #expect(result.4 == ["ACK [50@0] {moveid} No such song"])
        #expect(result.5 == ["ACK [2@0] {swap} Bad song index"])
    }

    /// MPDroid's crop: the playing entry to the front, then everything after it deleted.
    @Test func mpdroidsCropLeavesThePlayingEntryPlaying() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            _ = try c.command("add USBSTICK")
            _ = try c.command("play 4")
            let playing = try c.pairs("status")["songid"] ?? ""
            _ = try c.send("command_list_ok_begin\nmoveid \(playing) 0\ndelete 1:\ncommand_list_end\n")
            let answer = try c.response()
            return (playing, answer, try Self.ids(c), try c.pairs("status"))
        }
        #expect(result.1 == ["list_OK", "list_OK", "OK"])
        #expect(result.2 == ["Id: \(result.0)"])
        #expect(result.3["state"] == "play" && result.3["songid"] == result.0)
    }

    @Test func shuffleRearrangesPositionsAndKeepsThePlayingEntryFirst() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            _ = try c.command("add USBSTICK")
            _ = try c.command("play 3")
            let before = try Self.ids(c)
            _ = try c.command("shuffle")
            return (before, try Self.ids(c), try c.pairs("status"))
        }
        #expect(Set(result.1) == Set(result.0))
        #expect(result.1.first == result.0[3])
        #expect(result.2["song"] == "0" && result.2["state"] == "play")
    }

    /// In random mode the entry with the highest priority plays next (M.A.L.P.'s "play next").
    @Test func prioritisedEntriesPlayNextInRandomMode() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            _ = try c.command("add USBSTICK")
            _ = try c.command("random 1")
            _ = try c.command("play 0")
            let ids = try Self.ids(c).map { String($0.dropFirst(4)) }
            _ = try c.command("prioid 200 \(ids[6])")
            let first = try c.pairs("status")["nextsongid"]
            _ = try c.command("prio 255 3:4")
            return (ids, first, try c.pairs("status")["nextsongid"], try c.command("prio 256 0"))
        }
        #expect(result.1 == result.0[6])
        #expect(result.2 == result.0[3])
        #expect(result.3 == ["ACK [2@0] {prio} Number too large: 256"])
    }

    @Test func plchangesFromAVersionInTheFutureAnswersTheWholeQueue() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            _ = try c.command("add \"USBSTICK/The Field Recorders\"")
            return try c.command("plchangesposid 4000000")
        }
        #expect(result.filter { $0.hasPrefix("cpos: ") } == ["cpos: 0", "cpos: 1"])
    }

    @Test func playlistfindAndPlaylistsearchMatchTheQueue() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            _ = try c.command("add USBSTICK")
            return (
                try c.command("playlistfind title Gulls").filter { $0.hasPrefix("Pos: ") },
                try c.command("playlistsearch title gull").filter { $0.hasPrefix("Pos: ") },
                try c.command("playlistfind title gull").filter { $0.hasPrefix("Pos: ") }
            )
        }
        #expect(result.0.count == 1)
        #expect(result.1 == result.0)
        #expect(result.2.isEmpty, "playlistfind is exact")
    }

    /// The settings screens of clients send these: accepted, and answered with what the box does.
    @Test func crossfadeMixrampAndReplayGainAreAcceptedAndReportedHonestly() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            (
                try c.command("crossfade 3"), try c.command("mixrampdb -17.5"), try c.command("mixrampdelay 2"),
                try c.pairs("status"), try c.command("replay_gain_mode off"),
                try c.command("replay_gain_mode loud"), try c.command("replay_gain_status")
            )
        }
        #expect(result.0 == ["OK"] && result.1 == ["OK"] && result.2 == ["OK"])
        #expect(result.3["xfade"] == nil && result.3["mixrampdb"] == "0" && result.3["mixrampdelay"] == nil)
        #expect(result.4 == ["OK"])
        #expect(result.5 == ["ACK [2@0] {replay_gain_mode} Unrecognized replay gain mode"])
        #expect(result.6 == ["replay_gain_mode: off", "OK"])
    }

    /// `replay_gain_mode` sets the player's ReplayGain mode, `replay_gain_status` reports it, and
    /// clients idling on options hear of it (MPD's IDLE_OPTIONS).
    @Test func replayGainModeSetsThePlayersModeAndWakesIdleOptions() throws {
        let h = try Harness()
        let path = h.socketPath
        let (set, status, idle) = try h.client {
            let watcher = try TestClient(unix: path)
            let other = try TestClient(unix: path)
            try watcher.send("idle options\n")
            let set = try other.command("replay_gain_mode album")
            let idle = try watcher.response()
            return (set, try other.command("replay_gain_status"), idle)
        }
        #expect(set == ["OK"])
        #expect(status == ["replay_gain_mode: album", "OK"])
        #expect(idle == ["changed: options", "OK"])
        #expect(h.player.replayGainMode == .album)
    }

    /// MPD deletes a paused current entry by stopping at the next one (src/queue/PlaylistEdit.cxx).
    @Test func deletingThePausedCurrentEntryStopsAtTheNextOne() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            _ = try c.command("add \"USBSTICK/Aurora Quartet/Northern Lights\"")
            _ = try c.command("play 0")
            _ = try c.command("pause 1")
            let ids = try Self.ids(c)
            _ = try c.command("delete 0")
            return (ids, try c.pairs("status"))
        }
        #expect(result.1["state"] == "stop")
        #expect(result.1["song"] == "0" && "Id: \(result.1["songid"] ?? "")" == result.0[1])
    }

    @Test func playlistinfoShowsAPriorityAndPlaylistListsTheURIs() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            _ = try c.command("add \"USBSTICK/The Field Recorders\"")
            _ = try c.command("prio 7 1")
            return (try c.command("playlistinfo 1"), try c.command("playlist"))
        }
        #expect(Array(result.0.suffix(2)) == ["Prio: 7", "OK"])
        #expect(
            result.1 == [
                "0:file: USBSTICK/The Field Recorders/Coastline/01 Low Tide.flac",
                "1:file: USBSTICK/The Field Recorders/Coastline/02 Gulls.flac", "OK",
            ])
    }

    /// MPD parses the destination before it checks the range: without a current song a relative
    /// move answers "No current song" whatever the range.
    @Test func aRelativeMoveWithoutACurrentSongIsRefusedAsSuch() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            _ = try c.command("add \"USBSTICK/The Field Recorders\"")
            return (try c.command("move 7 -6"), try c.command("move 9 0"), try c.command("crossfade -1"))
        }
        #expect(result.0 == ["ACK [55@0] {move} No current song"])
        #expect(result.1 == ["ACK [2@0] {move} Bad song index"])
        #expect(result.2 == ["ACK [2@0] {crossfade} Number too large: -1"])
    }
}
