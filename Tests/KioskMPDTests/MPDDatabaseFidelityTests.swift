import KioskMPD
import KioskSystem
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

    /// A pattern that could make matching slow, or that does not compile, is refused with a clear
    /// error; the connection goes on.
    @Test func aBackReferenceOrABadPatternIsRefused() throws {
        let h = try Harness()
        let result = try h.withClient { c in
            (
                try c.command("find \"(title =~ '(a*)*\\\\\\\\1')\""), try c.command("find \"(title =~ '(unclosed')\""),
                try c.command("ping")
            )
        }
        #expect(result.0 == ["ACK [2@0] {find} Back-references are not supported in regular expressions"])
        #expect(result.1.first?.hasPrefix("ACK [2@0] {find} Bad regular expression: ") == true)
        #expect(result.2 == ["OK"])
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
