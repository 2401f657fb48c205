// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

/// A restart lists what the volume's index remembers before the scan's walk, then the scan's
/// own catalog replaces it.
@Suite(.serialized) final class RememberedContentsTests {
    let music: TestLibrary
    let state: TemporaryDirectory

    init() throws {
        music = try TestLibrary()
        state = try TemporaryDirectory("kiosk-state")
    }

    deinit {
        music.remove()
        state.remove()
    }

    /// What one event brought: its kind and the catalog's track paths after it.
    struct Seen {
        let finished: Bool
        let paths: Set<String>
    }

    /// A library over `state`'s indexes that keeps, for each scan end and catalog change, the
    /// catalog's paths; run until the first scan of `music` (and its playability pass) has ended.
    func run() throws -> [Seen] {
        let loop = try EventLoop()
        var seen: [Seen] = []
        var library: Library?
        library = try Library(loop: loop, stateDirectory: state.path, mediaRoots: []) { event, catalog in
            let paths = Set(catalog.allTracks.map(\.relativePath))
            switch event {
            case .scanFinished: seen.append(Seen(finished: true, paths: paths))
            case .catalogChanged: seen.append(Seen(finished: false, paths: paths))
            default: break
            }
        }
        library?.addVolume(path: music.root)
        #expect(
            try loop.run(
                until: { seen.contains(where: \.finished) && library?.isCheckingPlayability == false },
                timeoutNanoseconds: 30_000_000_000))
        library?.stop()
        return seen
    }

    func album(_ numbers: ClosedRange<Int>) throws {
        for i in numbers {
            try music.track("Album/\(i < 10 ? "0" : "")\(i).flac", title: "T\(i)", artist: "Band", album: "Album")
        }
    }

    @Test func aRestartListsTheIndexsTracksBeforeTheWalkAndTheScanThenCorrectsThem() throws {
        try album(1...5)
        _ = try run()
        // While the box was off: one file deleted, one added.
        #expect(unlink(music.root + "/Album/03.flac") == 0)
        try album(6...6)

        let seen = try run()
        let remembered: Set = ["Album/01.flac", "Album/02.flac", "Album/03.flac", "Album/04.flac", "Album/05.flac"]
        let scanned: Set = ["Album/01.flac", "Album/02.flac", "Album/04.flac", "Album/05.flac", "Album/06.flac"]
        #expect(seen.first?.finished == false, "the first catalog came before the scan's end: \(seen)")
        #expect(seen.first?.paths == remembered)
        #expect(seen.last?.paths == scanned)
    }

    @Test func aVolumeWithNoIndexIsListedOnlyByItsScan() throws {
        try album(1...3)
        let seen = try run()
        #expect(seen.first?.finished == true, "\(seen)")
        #expect(seen.last?.paths.count == 3)
    }

    @Test func anIndexOfAnotherSchemaIsNotListedAndTheScanRebuildsIt() throws {
        try album(1...3)
        _ = try run()
        let id = VolumeIdentity.identify(directory: music.root)
        let index = "\(state.path)/library/\(id.rawValue).sqlite"
        do {
            let database = try SQLiteDatabase(path: index)
            try database.execute("PRAGMA user_version = 1")
        }
        let seen = try run()
        #expect(seen.first?.finished == true, "\(seen)")
        #expect(seen.last?.paths.count == 3)
    }
}
