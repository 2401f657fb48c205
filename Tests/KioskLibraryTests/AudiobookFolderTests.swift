// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

/// A file named `.audiobook` marks its folder and the folders below it as an audiobook, whatever
/// the tags say: the scan sets `Track.isInAudiobookFolder`, and a rescan follows the marker when it
/// is added or removed.
@Suite struct AudiobookFolderTests {
    @Test func tracksInAndBelowAMarkedFolderAreMarkedAndNoOthers() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.track("Books/Hobbit/CD1/1.flac", title: "Chapter 1", album: "The Hobbit")
        try library.track("Books/Hobbit/CD2/2.flac", title: "Chapter 2", album: "The Hobbit")
        try library.track("Music/Song.flac", title: "Song", album: "Songs")
        try library.write("Books/Hobbit/.audiobook", text: "")
        let marked = try library.catalog().allTracks.filter(\.isInAudiobookFolder).map(\.title)
        #expect(marked.sorted() == ["Chapter 1", "Chapter 2"])
    }

    @Test func theMarkerIsFoundInAnyCaseAndAtTheTopOfTheStick() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.track("Tale/1.flac", title: "Tale")
        try library.write(".AUDIOBOOK", text: "")  // as FAT tools write it
        #expect(try library.catalog().allTracks.allSatisfy(\.isInAudiobookFolder))
    }

    @Test func addingOrRemovingTheMarkerIsSeenByTheNextRescan() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let state = try TemporaryDirectory("kiosk-state")
        defer { state.remove() }
        try library.track("Tale/1.flac", title: "Tale")
        let (plain, _) = try library.rescan(from: nil, indexPath: state.file("index.sqlite"))
        #expect(!plain.tracks[0].isInAudiobookFolder)
        try library.write("Tale/.audiobook", text: "")
        let (marked, markedStats) = try library.rescan(from: plain, indexPath: state.file("index.sqlite"))
        #expect(!markedStats.reusedPrevious)
        #expect(markedStats.filesRead == 0, "the marker changes no file: the index still holds the track")
        #expect(marked.tracks[0].isInAudiobookFolder)
        try Syscalls.unlink(library.root + "/Tale/.audiobook")
        let (unmarked, _) = try library.rescan(from: marked, indexPath: state.file("index.sqlite"))
        #expect(!unmarked.tracks[0].isInAudiobookFolder)
    }
}
