// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

/// Cover files, playlists and music files of a hostile stick (issue 44): FIFOs, sockets, links to
/// /dev/zero and out of the volume, folders. Each reader refuses them without waiting and names
/// the file; nothing is read through a link.
@Suite struct StickFileKindsTests {
    /// A "state directory" beside the stick: what a link out of the volume points to.
    static func stateDirectory() throws -> TemporaryDirectory {
        let state = try TemporaryDirectory("kiosk-state")
        try state.write("cards.json", #"{"cards": {}}"#)
        try state.write("list.m3u", "A/01.flac\n")
        return state
    }

    /// An album scanned with its `cover.jpg`, which is then taken away and `name` made `entry`:
    /// the stick changed after the scan (or was swapped for one like it).
    @Test(arguments: HostileEntry.allCases, ["cover.jpg", "folder.jpg"])
    func aCoverFileOfAHostileKindIsRefusedNamingIt(entry: HostileEntry, name: String) throws {
        let state = try Self.stateDirectory()
        defer { state.remove() }
        let library = try TestLibrary()
        defer { library.remove() }
        try library.track("A/01.flac", title: "a1", album: "A", track: "1")
        try library.write("A/cover.jpg", SyntheticLibrary.sampleJPEG)
        let catalog = try library.catalog()
        try Syscalls.unlink(library.root + "/A/cover.jpg")
        try entry.make(at: library.root + "/A/" + name, outside: state.file("cards.json"))
        let album = try #require(catalog.named(.album, "A"))
        let artwork = try #require(catalog.artwork(for: album))
        let rescue = FIFORescue(fifos: [library.root + "/A/" + name])
        var refusal = ""
        do {
            let bytes = try artwork.bytes(limit: 16 << 20)
            Issue.record("read \(bytes.count) bytes of \(entry)")
        } catch {
            refusal = "\(error)"
        }
        #expect(!rescue.finish(), "the read waited for a FIFO's writer")
        #expect(refusal.contains(library.root + "/A/" + name), "\(refusal)")
        #expect(refusal.contains(entry.expectedWords), "\(refusal)")
    }

    /// Playlists of every hostile kind beside a good one: the scan ends, lists the good one and
    /// reads nothing through a link (the state directory's list would add a playlist).
    @Test func aScanOfHostilePlaylistsListsOnlyTheRegularOne() throws {
        let state = try Self.stateDirectory()
        defer { state.remove() }
        let library = try TestLibrary()
        defer { library.remove() }
        try library.track("A/01.flac", title: "a1", album: "A", track: "1")
        try library.write("good.m3u", text: "A/01.flac\n")
        var fifos: [String] = []
        for entry in HostileEntry.allCases {
            let path = library.root + "/\(entry).m3u"
            try entry.make(at: path, outside: state.file("list.m3u"))
            if entry == .fifo { fifos.append(path) }
        }
        let rescue = FIFORescue(fifos: fifos)
        let catalog = try library.catalog()
        #expect(!rescue.finish(), "the scan waited for a FIFO's writer")
        #expect(catalog.collections(in: .playlist).map(\.name) == ["good"])
    }

    /// A playlist read the way the scan reads one (`StickFile`, beneath the volume): a file that
    /// became a hostile kind since the walk listed it is refused, naming it.
    @Test(arguments: HostileEntry.allCases)
    func aPlaylistThatBecameAHostileKindIsRefusedNamingIt(entry: HostileEntry) throws {
        let state = try Self.stateDirectory()
        defer { state.remove() }
        let library = try TestLibrary()
        defer { library.remove() }
        try library.mkdir("Lists")
        try entry.make(at: library.root + "/Lists/x.m3u", outside: state.file("list.m3u"))
        let rescue = FIFORescue(fifos: [library.root + "/Lists/x.m3u"])
        var refusal = ""
        do {
            _ = try StickFile.read("Lists/x.m3u", beneath: library.root, limit: ScanLimits().maxPlaylistBytes)
        } catch {
            refusal = "\(error)"
        }
        #expect(!rescue.finish(), "the read waited for a FIFO's writer")
        #expect(refusal.contains(library.root + "/Lists/x.m3u") && refusal.contains(entry.expectedWords), "\(refusal)")
    }

    /// A music file that is a FIFO (named to the tag reader by MPD, or swapped in after the walk):
    /// unplayable at once, "not a regular file".
    @Test func aMusicFileThatIsAFIFOIsUnplayableWithoutWaiting() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let path = library.root + "/01.flac"
        try HostileEntry.fifo.make(at: path, outside: "")
        let rescue = FIFORescue(fifos: [path])
        let outcome = MusicFileReader().read(path: path)
        #expect(!rescue.finish(), "the reader waited for a FIFO's writer")
        guard case .unplayable(let reason, _) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(reason.contains("not a regular file"), "\(reason)")
    }
}
