// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem
import KioskTestSupport
import Synchronization
import Testing

@testable import KioskLibrary

@Suite struct ScannerTests {
    func makeLibrary(tracks: Int) throws -> TestLibrary {
        let library = try TestLibrary()
        for i in 0..<tracks {
            try library.track(
                "Artist \(i % 3)/Album \(i % 5)/\(i).flac", title: "Song \(i)", artist: "Artist \(i % 3)",
                album: "Album \(i % 5)", track: "\(i)")
        }
        try library.write("Artist 0/broken.flac", text: "not flac")
        return library
    }

    @Test func namesThatDifferOnlyInUnicodeNormalizationAreTwoTracksEachFoundByItsOwnPath() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        // Two files on Linux: "Café" composed (NFC) and decomposed (NFD), as macOS writes it.
        let composed = "Caf\u{E9}.flac"
        let decomposed = "Cafe\u{301}.flac"
        try library.track(composed, title: "Composed")
        try library.track(decomposed, title: "Decomposed")
        let catalog = try library.catalog()
        #expect(catalog.trackCount == 2)
        #expect(catalog.track(volume: library.volume, relativePath: composed)?.title == "Composed")
        #expect(catalog.track(volume: library.volume, relativePath: decomposed)?.title == "Decomposed")
    }

    @Test func parallelReadersGiveTheSameCatalogAsOne() throws {
        let library = try makeLibrary(tracks: 90)
        defer { library.remove() }
        let scan = { (threads: Int) throws -> VolumeContents in
            try VolumeScanner(readerThreads: threads).scan(
                volume: library.volume, mountPoint: library.root, indexPath: nil
            ).contents
        }
        let one = Catalog(volumes: [try scan(1)])
        let four = Catalog(volumes: [try scan(4)])
        #expect(one.allTracks == four.allTracks)
        #expect(one.problems == four.problems)
        for category in Category.allCases {
            #expect(one.collections(in: category) == four.collections(in: category))
        }
        #expect(four.trackCount == 90)
        #expect(four.problems(for: "Artist 0/broken.flac").count == 1)
    }

    @Test func progressCountsFilesExamined() throws {
        let library = try makeLibrary(tracks: 10)
        defer { library.remove() }
        var reports: [Int] = []
        _ = try VolumeScanner(readerThreads: 1).scan(
            volume: library.volume, mountPoint: library.root, indexPath: nil
        ) { reports.append($0) }
        #expect(reports.first == 0)
        #expect(reports.last == 11)  // 10 tracks and the broken file
        #expect(reports == reports.sorted())
    }

    @Test func cancelledScanThrowsAndLeavesTheIndexUsable() throws {
        let library = try makeLibrary(tracks: 5)
        defer { library.remove() }
        let state = try TemporaryDirectory("kiosk-state")
        defer { state.remove() }
        let cancellation = ScanCancellation()
        cancellation.cancel()
        #expect(throws: ScanError.self) {
            try VolumeScanner().scan(
                volume: library.volume, mountPoint: library.root, indexPath: state.file("i.sqlite"),
                cancellation: cancellation)
        }
        let (catalog, stats) = try library.scan(indexPath: state.file("i.sqlite"))
        #expect(catalog.trackCount == 5)
        #expect(stats.filesRead == 6)
    }

    @Test func trackLookupByVolumeAndPath() throws {
        let library = try makeLibrary(tracks: 4)
        defer { library.remove() }
        let catalog = try library.catalog()
        #expect(catalog.track(volume: library.volume, relativePath: "Artist 1/Album 1/1.flac")?.title == "Song 1")
        #expect(catalog.track(volume: library.volume, relativePath: "Artist 0/broken.flac") == nil)
        #expect(catalog.track(volume: VolumeID(rawValue: "other"), relativePath: "Artist 1/Album 1/1.flac") == nil)
        let without = catalog.removing(volumes: [library.volume])
        #expect(without.track(volume: library.volume, relativePath: "Artist 1/Album 1/1.flac") == nil)
    }
}

@Suite(.serialized) struct LibraryFailureTests {
    @Test func aFolderThatCannotBeScannedShowsAsAProblem() throws {
        let state = try TemporaryDirectory("kiosk-state")
        defer { state.remove() }
        let loop = try EventLoop()
        let log = EventLog()
        let library = try Library(loop: loop, stateDirectory: state.path, mediaRoots: [], onEvent: log.record)
        library.addVolume(path: "/nonexistent/kiosk-music")
        #expect(try loop.run(until: { log.finished == 1 }, timeoutNanoseconds: 30_000_000_000))
        #expect(library.catalog.trackCount == 0)
        #expect(library.catalog.problems.first?.reason.contains("not a readable folder") == true)
        library.stop()
    }

    @Test func stateDirectoryThatCannotBeMadeIsAnError() throws {
        let loop = try EventLoop()
        #expect(throws: Errno.self) {
            _ = try Library(loop: loop, stateDirectory: "/proc/kiosk-nope", mediaRoots: []) { _, _ in }
        }
    }
}
