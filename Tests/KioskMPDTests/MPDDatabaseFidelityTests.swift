// SPDX-License-Identifier: GPL-3.0-or-later
import KioskLibrary
import KioskMPD
import KioskSystem
import KioskTestSupport
import Testing

/// Database commands as MPD 0.23 answers them, beyond find/list: regular expressions in filters,
/// `listfiles`, and `findadd … position`.
@Suite(.tags(.integration), .serialized) struct MPDDatabaseFidelityTests {
    @Test func regularExpressionsMatchAndNegateAndSearchIgnoresCase() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            (
                try c.command("find \"(title =~ '^(Low|Blue)')\"").filter { $0.hasPrefix("Title: ") },
                try c.command("search \"(title =~ '^low')\"").filter { $0.hasPrefix("Title: ") },
                try c.command("find \"((title !~ 'o') AND (artist == 'Aurora Quartet'))\"").filter {
                    $0.hasPrefix("Title: ")
                }
            )
        }
        #expect(Set(result.0) == ["Title: Blue Hour", "Title: Low Tide"])
        #expect(result.1 == ["Title: Low Tide"])
        #expect(
            Set(result.2) == ["Title: Opening", "Title: Green Curtain"], "find is case-sensitive: Opening has no 'o'")
    }

    /// A pattern that does not compile is refused in MPD's words; one that backtracks without end
    /// on a long title (`(a|a)*[0-9]`: 2^3000 ways) gives up at PCRE2's match limit and answers an
    /// error within the budget, and the connection goes on.
    @Test func aBadPatternIsRefusedAndACatastrophicOneGivesUpInTime() throws {
        let long = String(repeating: "a", count: 3000)
        let h = try Harness(extraTracks: { root in
            try SyntheticLibrary.write(
                SyntheticTrack(
                    relativePath: "Loose/long.flac", tags: [(name: "TITLE", value: long)], seconds: 1,
                    sampleRate: 44_100),
                under: root, compressionLevel: 0)
            return 1
        })
        let result = try h.withClient { c in
            let started = Syscalls.monotonicNanoseconds()
            let costly = try c.command("search \"(title =~ '^(a|a)*[0-9]')\"")
            let ms = (Syscalls.monotonicNanoseconds() - started) / 1_000_000
            return (try c.command("find \"(title =~ '(unclosed')\""), costly, ms, try c.command("ping"))
        }
        #expect(result.0 == ["ACK [2@0] {find} Error in regex at offset 9: missing closing parenthesis"])
        #expect(result.1.count == 1 && result.1[0].hasPrefix("ACK [2@0] {search} Regular expression too costly"))
        #expect(result.2 < 5_000, "gave up after \(result.2) ms")
        #expect(result.3 == ["OK"])
    }

    @Test func listfilesListsEveryFileOfADirectoryWithItsSize() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            (
                try c.command("listfiles \"USBSTICK/The Field Recorders/Coastline\""),
                try c.command("listfiles USBSTICK/nothing"), try c.command("listfiles")
            )
        }
        let files = result.0.filter { $0.hasPrefix("file: ") }.sorted()
        #expect(files == ["file: 01 Low Tide.flac", "file: 02 Gulls.flac", "file: cover.jpg"])
        let cover = result.0.firstIndex(of: "file: cover.jpg").map { result.0[$0 + 1] }
        #expect(cover == "size: \(Fixture.coverJPEG.count)")
        #expect(result.0.filter { $0.hasPrefix("Last-Modified: ") }.count == 3)
        #expect(result.1 == ["ACK [50@0] {listfiles} No such directory"])
        #expect(result.2.first == "directory: USBSTICK")
    }

    @Test func findaddPutsTheSongsAtAPosition() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            _ = try c.command("add \"USBSTICK/Aurora Quartet/Northern Lights\"")
            _ = try c.command("findadd album Coastline position 1")
            return (
                try c.command("playlistinfo").filter { $0.hasPrefix("Title: ") },
                try c.command("searchadd album coast position +0")
            )
        }
        #expect(
            result.0 == [
                "Title: Polar Night", "Title: Low Tide", "Title: Gulls", "Title: Green Curtain", "Title: Solar Wind",
            ])
        #expect(result.1 == ["ACK [55@0] {searchadd} No current song"])
    }
}
