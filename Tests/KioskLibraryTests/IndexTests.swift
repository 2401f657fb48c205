// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

@Suite struct IndexTests {
    /// How many files the index at `path` holds.
    func loadedFiles(_ path: String) throws -> Int {
        var strings = StringPool()
        let volume = TrackVolume(id: VolumeID(rawValue: "v"), mountPoint: "/")
        return try VolumeIndex(path: path).loadFiles(volume: volume, strings: &strings).count
    }

    /// A library and a state directory for its index.
    func libraryAndState() throws -> (TestLibrary, TemporaryDirectory) {
        (try TestLibrary(), try TemporaryDirectory("kiosk-state"))
    }

    func remove(_ library: TestLibrary, _ state: TemporaryDirectory) {
        library.remove()
        state.remove()
    }

    /// Album A's tracks 1…`tracks` ("Song N"), a file that is not audio (bad.flac) and list.m3u
    /// holding `playlist`.
    func albumA(_ library: TestLibrary, tracks: Int, playlist: String) throws {
        for i in 1...tracks { try library.track("A/\(i).flac", title: "Song \(i)", album: "A", track: "\(i)") }
        try library.write("bad.flac", text: "junk")
        try library.write("list.m3u", text: playlist)
    }

    /// Sets a file's mtime (so a rewrite within the same clock tick still counts as a change).
    func touch(_ path: String, seconds: Int) {
        var times = [
            timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0),
        ]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    @Test func rescanReadsOnlyChangedFiles() throws {
        let (library, state) = try libraryAndState()
        defer { remove(library, state) }
        let index = state.file("index.sqlite")
        try albumA(library, tracks: 5, playlist: "A/1.flac\n")

        let (first, firstStats) = try library.scan(indexPath: index)
        #expect(firstStats.filesRead == 6)
        #expect(first.trackCount == 5)

        let (second, secondStats) = try library.scan(indexPath: index)
        #expect(secondStats.filesRead == 0)
        #expect(secondStats.filesUnchanged == 6)
        #expect(second.allTracks == first.allTracks)
        #expect(second.problems == first.problems)
        #expect(second.names(.playlist) == ["list"])

        // One file retagged, one removed, one added, the bad one fixed; the playlist edited.
        try library.track("A/2.flac", title: "Renamed", album: "A", track: "2")
        touch(library.root + "/A/2.flac", seconds: 1_000_000)
        try Syscalls.unlink(library.root + "/A/5.flac")
        try library.track("A/6.flac", title: "Song 6", album: "A", track: "6")
        try library.track("bad.flac", title: "Fixed", album: "B")
        try library.write("list.m3u", text: "A/6.flac\nA/2.flac\n")
        touch(library.root + "/list.m3u", seconds: 1_000_000)
        let (third, thirdStats) = try library.scan(indexPath: index)
        #expect(thirdStats.filesRead == 3)
        #expect(thirdStats.filesRemoved == 1)
        #expect(third.query([.album("A")]).map(\.title) == ["Song 1", "Renamed", "Song 3", "Song 4", "Song 6"])
        #expect(third.query([.album("B")]).map(\.title) == ["Fixed"])
        #expect(third.problems.isEmpty)
        let list = try #require(third.named(.playlist, "list"))
        #expect(third.tracks(of: list).map(\.title) == ["Song 6", "Renamed"])
    }

    /// A rescan given the previous contents returns them as they are when the walk finds the
    /// same files, and scans normally (from the index) as soon as anything differs.
    @Test func unchangedRescanReusesPreviousContents() throws {
        let (library, state) = try libraryAndState()
        defer { remove(library, state) }
        let index = state.file("index.sqlite")
        try albumA(library, tracks: 4, playlist: "A/1.flac\nA/9.flac\n")
        try library.write("A/cover.jpg", SyntheticLibrary.sampleJPEG)
        let (first, firstStats) = try library.rescan(from: nil, indexPath: index)
        #expect(!firstStats.reusedPrevious)
        #expect(first.fingerprint != nil)

        let (second, secondStats) = try library.rescan(from: first, indexPath: index)
        #expect(secondStats.reusedPrevious)
        #expect(secondStats.filesRead == 0)
        #expect(secondStats.filesUnchanged == 5)
        #expect(secondStats.tracks == 4)
        #expect(second.tracks == first.tracks)
        #expect(second.problems == first.problems)

        // The same scan from the index alone gives the same contents.
        let (fromIndex, fromIndexStats) = try library.rescan(from: nil, indexPath: index)
        #expect(!fromIndexStats.reusedPrevious)
        #expect(fromIndexStats.filesRead == 0)
        #expect(fromIndex.tracks == first.tracks)
        #expect(fromIndex.problems == first.problems)
        #expect(fromIndex.playlists == first.playlists)
        #expect(fromIndex.covers == first.covers)

        // Any difference is a normal rescan: an mtime, a new cover, a removed file, other limits.
        touch(library.root + "/A/2.flac", seconds: 1_000_000)
        let (afterTouch, touchStats) = try library.rescan(from: second, indexPath: index)
        #expect(!touchStats.reusedPrevious)
        #expect(touchStats.filesRead == 1)
        #expect(afterTouch.tracks.map(\.relativePath) == first.tracks.map(\.relativePath))
        #expect(afterTouch.problems == first.problems)
        try library.write("folder.png", SyntheticLibrary.sampleJPEG)
        let (afterCover, coverStats) = try library.rescan(from: afterTouch, indexPath: index)
        #expect(!coverStats.reusedPrevious)
        #expect(coverStats.filesRead == 0)
        try Syscalls.unlink(library.root + "/A/4.flac")
        let (afterRemoval, removalStats) = try library.rescan(from: afterCover, indexPath: index)
        #expect(!removalStats.reusedPrevious)
        #expect(removalStats.filesRemoved == 1)
        #expect(afterRemoval.tracks.count == 3)
        // What those scans took from the previous contents is what the index says.
        let (checked, checkedStats) = try library.rescan(from: nil, indexPath: index)
        #expect(checkedStats.filesRead == 0)
        #expect(checkedStats.filesRemoved == 0)
        #expect(checked.tracks == afterRemoval.tracks)
        #expect(checked.problems == afterRemoval.problems)
        #expect(checked.playlists == afterRemoval.playlists)
        #expect(try loadedFiles(index) == 4)
        var limits = ScanLimits()
        limits.maxProblems = 100
        let other = try VolumeScanner(limits: limits).scan(
            volume: library.volume, mountPoint: library.root, indexPath: index, previous: afterRemoval)
        #expect(!other.statistics.reusedPrevious)
        let (_, againStats) = try library.rescan(from: afterRemoval, indexPath: index)
        #expect(againStats.reusedPrevious)

        // A deleted index is rebuilt, not skipped.
        VolumeIndex.deleteFiles(index)
        let (rebuilt, rebuiltStats) = try library.rescan(from: afterRemoval, indexPath: index)
        #expect(!rebuiltStats.reusedPrevious)
        #expect(rebuiltStats.filesRead == 4)
        // So is one of another schema version, even when only one file changed.
        try SQLiteDatabase(path: index).execute("PRAGMA user_version = 999")
        touch(library.root + "/A/3.flac", seconds: 2_000_000)
        let (_, versionStats) = try library.rescan(from: rebuilt, indexPath: index)
        #expect(versionStats.filesRead == 4)
        #expect(try loadedFiles(index) == 4)
    }

    /// Contents from a scan whose index could not be used stand for nothing later: the next scan
    /// must try again.
    @Test func contentsAfterIndexTroubleAreNotReused() throws {
        let (library, state) = try libraryAndState()
        defer { remove(library, state) }
        try library.track("a.flac", title: "A")
        let index = state.file("not-a-database")
        try Syscalls.mkdirs(index)  // a folder where the database should be
        let scanner = VolumeScanner()
        let (first, _) = try scanner.scan(volume: library.volume, mountPoint: library.root, indexPath: index)
        #expect(first.problems.contains { $0.reason.contains("cannot be used") })
        #expect(first.fingerprint == nil)
        let (_, stats) = try scanner.scan(
            volume: library.volume, mountPoint: library.root, indexPath: index, previous: first)
        #expect(!stats.reusedPrevious)
        #expect(stats.filesRead == 1)
    }

    @Test func indexRoundTripsEveryField() throws {
        let (library, state) = try libraryAndState()
        defer { remove(library, state) }
        try library.flac(
            "x.flac",
            [
                ("TITLE", "T"), ("ARTIST", "A1"), ("ARTIST", "A2"), ("ALBUM", "Al"), ("ALBUMARTIST", "AA"),
                ("GENRE", "G"), ("DATE", "2001-02-03"), ("TRACKNUMBER", "4/9"), ("DISCNUMBER", "1/2"),
            ], picture: EmbeddedPicture(bytes: SyntheticLibrary.sampleJPEG, mimeType: "image/jpeg"), seconds: 0.3,
            sampleRate: 96_000, channels: 3, bitsPerSample: 24)
        var limits = ScanLimits()
        limits.maxCommentBlockBytes = 1 << 20
        let (fresh, _) = try library.scan(indexPath: state.file("i.sqlite"))
        let (cached, stats) = try library.scan(indexPath: state.file("i.sqlite"))
        #expect(stats.filesRead == 0)
        #expect(cached.allTracks == fresh.allTracks)
        let track = try #require(cached.allTracks.first)
        #expect(track.tags.artists == ["A1", "A2"])
        #expect(track.trackTotal == 9)
        #expect(track.tags.discTotal == 2)
        #expect(track.hasEmbeddedPicture)
        #expect(track.totalFrames == 28_800)
        #expect(track.channels == 3)
    }

    @Test func otherSchemaVersionIsRebuilt() throws {
        let (library, state) = try libraryAndState()
        defer { remove(library, state) }
        try library.track("a.flac", title: "A")
        let path = state.file("i.sqlite")
        _ = try library.scan(indexPath: path)
        do {
            let db = try SQLiteDatabase(path: path)
            try db.execute("PRAGMA user_version = 999")
        }
        let (catalog, stats) = try library.scan(indexPath: path)
        #expect(stats.filesRead == 1)
        #expect(catalog.trackCount == 1)
        let db = try SQLiteDatabase(path: path)
        #expect(try db.userVersion == VolumeIndex.schemaVersion)
    }

    @Test func damagedIndexIsRebuilt() throws {
        let (library, state) = try libraryAndState()
        defer { remove(library, state) }
        try library.track("a.flac", title: "A")
        let path = state.file("i.sqlite")
        try state.write("i.sqlite", [UInt8](repeating: 0x42, count: 8192))
        let (catalog, stats) = try library.scan(indexPath: path)
        #expect(stats.filesRead == 1)
        #expect(catalog.trackCount == 1)
        #expect(catalog.problems.contains { $0.reason.hasPrefix("the index was damaged and was rebuilt") })
        let (_, again) = try library.scan(indexPath: path)
        #expect(again.filesRead == 0)
    }

    @Test func unusableIndexStillScans() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.track("a.flac", title: "A")
        let (catalog, stats) = try library.scan(indexPath: "/nonexistent-dir/kiosk/i.sqlite")
        #expect(catalog.trackCount == 1)
        #expect(stats.indexPath == nil)
        #expect(catalog.problems.first?.reason.contains("cannot be used") == true)
    }
}

@Suite struct TestbenchTests {
    @Test(
        .enabled(
            if: TestPaths.flacTestbench != nil,
            "the FLAC decoder testbench (../shared/flac-testbench/subset) is not here"))
    func everyTestbenchFileIsScannedWithoutCrash() throws {
        let root = try #require(TestPaths.flacTestbench)
        let scanner = VolumeScanner()
        let (contents, stats) = try scanner.scan(volume: VolumeID(rawValue: "bench"), mountPoint: root, indexPath: nil)
        let catalog = Catalog(volumes: [contents])
        let names = listDirectory(root).filter { $0.lowercased().hasSuffix(".flac") }
        #expect(stats.musicFiles == names.count)
        let excluded = catalog.problems.filter { $0.severity == .excluded }
        // Every file is either a track or named in the report with a reason.
        for name in names {
            let listed = catalog.track(volume: VolumeID(rawValue: "bench"), relativePath: name) != nil
            let reported = excluded.contains { $0.relativePath == name && !$0.reason.isEmpty }
            #expect(listed != reported, "\(name): listed \(listed), reported \(reported)")
        }
        print("testbench: \(catalog.trackCount) of \(names.count) files playable")
        for problem in catalog.problems { print("  \(problem)") }
        // The subset is valid FLAC: all of it must be playable.
        #expect(catalog.trackCount == names.count)
        let pictures = catalog.allTracks.filter(\.hasEmbeddedPicture).map(\.relativePath).sorted()
        #expect(
            pictures == [
                "56 - JPG PICTURE.flac", "57 - PNG PICTURE.flac", "58 - GIF PICTURE.flac", "59 - AVIF PICTURE.flac",
            ])
        let unknownLength = try #require(
            catalog.track(volume: VolumeID(rawValue: "bench"), relativePath: "45 - no total number of samples set.flac")
        )
        #expect(unknownLength.totalFrames == nil)
        #expect(unknownLength.durationSeconds == nil)
        let jpg = try #require(
            catalog.track(volume: VolumeID(rawValue: "bench"), relativePath: "56 - JPG PICTURE.flac"))
        guard case .embedded(let bytes, let mime)? = catalog.artwork(for: jpg) else {
            Issue.record("no embedded artwork for the JPG PICTURE file")
            return
        }
        #expect(mime == "image/jpeg")
        #expect(bytes.starts(with: [0xFF, 0xD8]))
    }
}
