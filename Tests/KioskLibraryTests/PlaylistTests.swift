// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

@Suite struct PlaylistParserTests {
    func parse(_ bytes: [UInt8], _ name: String = "list.m3u") -> PlaylistFile {
        PlaylistParser.parse(bytes, relativePath: name, limits: ScanLimits())
    }

    @Test func extendedM3UWithCRLF() {
        let text = "#EXTM3U\r\n#EXTINF:123,Artist - Song\r\nMusic/a.flac\r\n\r\n#EXTINF:5,Other\r\n  Music/b.flac  \r\n"
        let list = parse(Array(text.utf8))
        #expect(list.entries == ["Music/a.flac", "Music/b.flac"])
        #expect(list.name == "list")
        #expect(list.warnings.isEmpty)
    }

    @Test func byteOrderMarkIsDropped() {
        let list = parse([0xEF, 0xBB, 0xBF] + Array("Motörhead/ä.flac\n".utf8), "x.m3u8")
        #expect(list.entries == ["Motörhead/ä.flac"])
    }

    @Test func windows1252FallbackForM3U() {
        // "Café/é – 1.flac" in Windows-1252 (0x96 is its en dash): not valid UTF-8. Decoded as the
        // walker decodes such file names, so the entry finds the file.
        let bytes: [UInt8] = Array("Caf".utf8) + [0xE9, 0x2F, 0xE9, 0x20, 0x96] + Array(" 1.flac\n".utf8)
        #expect(parse(bytes).entries == ["Café/é – 1.flac"])
        // The same bytes in an .m3u8 are damaged UTF-8: replaced, with a warning.
        let m3u8 = parse(bytes, "x.m3u8")
        #expect(m3u8.warnings == ["not valid UTF-8; damaged characters replaced"])
    }

    @Test func utf16WithByteOrderMark() {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in "Ümlaut.flac\r\n".utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(parse(bytes).entries == ["Ümlaut.flac"])
    }

    @Test func playlistDirectiveNamesTheList() {
        let list = parse(Array("#EXTM3U\n#PLAYLIST:Road Trip\na.flac\n".utf8), "Lists/rt.m3u")
        #expect(list.name == "Road Trip")
    }

    @Test func entryLimit() {
        var limits = ScanLimits()
        limits.maxPlaylistEntries = 2
        let list = PlaylistParser.parse(Array("a\nb\nc\nd\n".utf8), relativePath: "l.m3u", limits: limits)
        #expect(list.entries == ["a", "b"])
        #expect(list.warnings == ["2 entries past the limit of 2 ignored"])
    }

    @Test func aLineLongerThanTheLineCapIsIgnoredWithAWarning() {
        var limits = ScanLimits()
        limits.maxPlaylistLineBytes = 64
        let long = String(repeating: "x/", count: 40) + "a.flac"
        let list = PlaylistParser.parse(Array("a.flac\n\(long)\nb.flac\n".utf8), relativePath: "l.m3u", limits: limits)
        #expect(list.entries == ["a.flac", "b.flac"])
        #expect(list.warnings == ["1 lines longer than 64 bytes ignored"])
    }

    @Test func aPlaylistNameIsCutAtTheTagValueCapAndAMegabyteNameLineIsIgnored() {
        let long = PlaylistParser.parse(
            Array("#PLAYLIST:\(String(repeating: "n", count: 5000))\na.flac\n".utf8), relativePath: "l.m3u",
            limits: ScanLimits())
        #expect(long.name.utf8.count == ScanLimits().maxValueBytes)
        let huge = PlaylistParser.parse(
            Array("#PLAYLIST:\(String(repeating: "n", count: 1 << 20))\na.flac\n".utf8), relativePath: "l.m3u",
            limits: ScanLimits())
        #expect(huge.name == "l")
        #expect(huge.entries == ["a.flac"])
    }

    @Test func aListWithMoreEntriesThanTheStickHasLeftIsMarkedOverBudget() {
        let list = PlaylistParser.parse(
            Array("a\nb\nc\n".utf8), relativePath: "l.m3u", limits: ScanLimits(), entryBudget: 2)
        #expect(list.overBudget)
        #expect(list.entries.count <= 2)
    }
}

@Suite struct PlaylistResolverTests {
    let resolver = PlaylistResolver(
        mountPoint: "/media/kiosk/STICK",
        files: ["Music/Artist/01 Song.flac", "Music/Artist/02 Other.flac", "top.flac"])

    func resolve(_ entry: String, in folder: String = "Lists") -> PlaylistResolver.Resolution {
        resolver.resolve(entry, playlistFolder: folder)
    }

    @Test func anAbsoluteLineOf200000ComponentsResolvesWithWorkLinearInItsLength() {
        // Joining the tail at every start position made this quadratic: 20 000 components took 64 s.
        let entry = "/" + String(repeating: "d/", count: 200_000) + "Music/Artist/01 Song.flac"
        #expect(resolve(entry) == .file("Music/Artist/01 Song.flac"))
        #expect(resolver.work.candidateBytes <= entry.utf8.count)
    }

    @Test func relativeToThePlaylistFolder() {
        #expect(resolve("../Music/Artist/01 Song.flac") == .file("Music/Artist/01 Song.flac"))
        #expect(resolve("Artist/./02 Other.flac", in: "Music") == .file("Music/Artist/02 Other.flac"))
        #expect(resolve("top.flac", in: "") == .file("top.flac"))
    }

    @Test func absolutePaths() {
        #expect(resolve("/media/kiosk/STICK/Music/Artist/01 Song.flac") == .file("Music/Artist/01 Song.flac"))
        #expect(resolve("/Music/Artist/01 Song.flac") == .file("Music/Artist/01 Song.flac"))
        // Written on another computer: the longest trailing part that exists on the volume.
        #expect(resolve("/home/me/Music/Artist/01 Song.flac") == .file("Music/Artist/01 Song.flac"))
        #expect(resolve("file:///home/me/Music/Artist/02%20Other.flac") == .file("Music/Artist/02 Other.flac"))
        #expect(resolve("file://localhost/top.flac") == .file("top.flac"))
    }

    @Test func windowsPaths() {
        #expect(resolve("E:\\Music\\Artist\\01 Song.flac") == .file("Music/Artist/01 Song.flac"))
        #expect(resolve("..\\Music\\Artist\\02 Other.flac") == .file("Music/Artist/02 Other.flac"))
        #expect(resolve("\\\\server\\share\\Music\\Artist\\01 Song.flac") == .file("Music/Artist/01 Song.flac"))
        // Windows does not care about case; neither does a FAT stick.
        #expect(resolve("e:\\MUSIC\\artist\\01 song.FLAC") == .file("Music/Artist/01 Song.flac"))
    }

    @Test func confinedToTheVolume() {
        #expect(resolve("../../etc/passwd.flac") == .failed("points outside the volume"))
        #expect(resolve("../../../top.flac", in: "a") == .failed("points outside the volume"))
        #expect(resolve("/etc/passwd") == .failed("not a music file"))
    }

    @Test func missingAndForeignEntries() {
        #expect(resolve("../Music/Artist/03 Gone.flac") == .failed("not found"))
        #expect(resolve("song.mp3") == .failed("not found"))
        #expect(resolve("notes.txt") == .failed("not a music file"))
        #expect(resolve("http://radio.example/stream") == .failed("not a local file"))
        #expect(resolve("/somewhere/else/nothing.flac") == .failed("not found on the volume"))
    }
}

@Suite struct PlaylistCatalogTests {
    @Test func playlistsKeepTheirOrderAndDropMissingOrUnplayableEntries() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.track("Music/b.flac", title: "B", album: "X", track: "2")
        try library.track("Music/a.flac", title: "A", album: "X", track: "1")
        try library.write("Music/broken.flac", text: "garbage")
        try library.write(
            "Lists/Mix.m3u8",
            text:
                "#EXTM3U\n../Music/b.flac\n../Music/missing.flac\n../Music/broken.flac\n../Music/a.flac\n../Music/b.flac\n"
        )
        try library.write("Lists/Gone.m3u", text: "../Music/nothing.flac\r\n")
        try library.write("Lists/Empty.m3u", text: "#EXTM3U\n")
        let catalog = try library.catalog()
        #expect(catalog.names(.playlist) == ["Mix"])
        let mix = try #require(catalog.named(.playlist, "Mix"))
        #expect(catalog.tracks(of: mix).map(\.title) == ["B", "A", "B"])
        #expect(mix.subtitle == "3 tracks")
        let mixProblems = catalog.problems(for: "Lists/Mix.m3u8").map(\.reason)
        #expect(
            mixProblems == [
                "entry 2 \"../Music/missing.flac\": not found; dropped",
                "entry 3 \"../Music/broken.flac\": cannot be played (not a music file (the content is no format KioskPlayer plays)); dropped",
            ])
        #expect(
            catalog.problems(for: "Lists/Gone.m3u").map(\.reason).last == "no playable entries; the playlist is hidden")
        #expect(
            catalog.problems(for: "Lists/Empty.m3u").map(\.reason) == ["no playable entries; the playlist is hidden"])
    }

    @Test func theStickPlaylistsShareOneEntryTotalAndTheListsOverItAreNamed() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.track("a.flac", title: "A")
        for name in ["one", "two", "three"] {
            try library.write("\(name).m3u", text: String(repeating: "a.flac\n", count: 4))
        }
        var limits = ScanLimits()
        limits.maxStickPlaylistEntries = 10
        let catalog = try library.catalog(limits: limits)
        #expect(catalog.names(.playlist).count == 2)
        let leftOut = ["one", "two", "three"].filter { name in
            catalog.problems(for: "\(name).m3u").contains { $0.reason.hasPrefix("playlist left out:") }
        }
        #expect(leftOut.count == 1)
    }

    @Test func theListsLeftOutAreAlsoNamedInOneLineForTheStick() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.track("a.flac", title: "A")
        // More than the 100 problems in a row kept for one folder.
        for n in 0..<130 { try library.write("l\(1000 + n).m3u", text: "a.flac\na.flac\n") }
        var limits = ScanLimits()
        limits.maxStickPlaylistEntries = 10
        let catalog = try library.catalog(limits: limits)
        #expect(catalog.names(.playlist).count == 5)
        let line = catalog.problems(for: "").first { $0.reason.hasPrefix("125 playlists left out") }
        #expect(line?.reason.hasSuffix(" and 105 more") == true)
    }

    @Test func listsTakenFromTheIndexCountAgainstTheStickTotalToo() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.track("a.flac", title: "A")
        for name in ["one", "two", "three"] {
            try library.write("\(name).m3u", text: String(repeating: "a.flac\n", count: 4))
        }
        let state = try TemporaryDirectory("kiosk-playlist-index")
        defer { state.remove() }
        let index = state.file("index.sqlite")
        _ = try library.scan(indexPath: index)
        var limits = ScanLimits()
        limits.maxStickPlaylistEntries = 10
        let (contents, _) = try library.rescan(from: nil, indexPath: index, limits: limits)
        #expect(contents.playlists.count == 2)
        #expect(contents.problems.filter { $0.reason.hasPrefix("playlist left out:") }.count == 1)
    }

    @Test func aPlaylistOverTheStickByteTotalIsLeftOutAndNamed() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.track("a.flac", title: "A")
        try library.write("small.m3u", text: "a.flac\n")
        try library.write("big.m3u", text: String(repeating: "a.flac\n", count: 100))
        var limits = ScanLimits()
        limits.maxStickPlaylistBytes = 100
        let catalog = try library.catalog(limits: limits)
        #expect(catalog.names(.playlist) == ["small"])
        #expect(catalog.problems(for: "big.m3u").first?.reason.hasPrefix("playlist left out:") == true)
    }

    @Test func oversizedPlaylistIsRejected() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.track("a.flac", title: "A")
        try library.write("big.m3u", text: String(repeating: "a.flac\n", count: 100))
        var limits = ScanLimits()
        limits.maxPlaylistBytes = 100
        let catalog = try library.catalog(limits: limits)
        #expect(catalog.names(.playlist).isEmpty)
        #expect(catalog.problems(for: "big.m3u").first?.reason == "playlist of 700 bytes is over the 100-byte limit")
    }
}
