// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

/// The library keeps each track once and small (see `Track`, `Catalog.sharingTracks(with:)`):
/// what it gives back must be what the files say, whatever it leaves out of memory.
@Suite struct CompactStorageTests {
    /// Sets a file's mtime (so a rewrite within the same clock tick still counts as a change).
    func touch(_ path: String, seconds: Int) {
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    /// The address of a string's bytes (nil for one stored inside the String value).
    func storage(_ string: String) -> UnsafeRawPointer? {
        string.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    @Test func trackStaysSmall() {
        // 10 000 tracks are a few megabytes on a 512 MB board only while a track is this small.
        #expect(MemoryLayout<Track>.stride <= 192)
    }

    /// `tags` is rebuilt from the display values unless a field has several values: either way it
    /// is exactly what the reader found in the file.
    @Test func tagsAreWhatTheFileHas() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let shapes: [[(name: String, value: String)]] = [
            [],
            [("TITLE", "Only a title")],
            [
                ("TITLE", "T"), ("ARTIST", "A"), ("ALBUM", "Al"), ("ALBUMARTIST", "AA"), ("GENRE", "G"),
                ("DATE", "1999"), ("TRACKNUMBER", "3/12"), ("DISCNUMBER", "2/3"),
            ],
            [("ARTIST", "First"), ("ARTIST", "Second"), ("GENRE", "Jazz"), ("GENRE", "Blues")],
            [("TITLE", "One"), ("TITLE", "Two"), ("DATE", "2001"), ("DATE", "2002-03-04")],
            [("ALBUM", "A1"), ("ALBUM", "A2"), ("ALBUMARTIST", "X"), ("ALBUMARTIST", "Y")],
            [("ARTIST", "Unknown Artist"), ("GENRE", "Unknown Genre"), ("ALBUM", "Unknown Album")],
            [("ALBUMARTIST", "Band only")],
            [("TRACKTOTAL", "9"), ("DISCTOTAL", "4")],
        ]
        for (i, tags) in shapes.enumerated() { try library.flac("f\(i).flac", tags) }
        let catalog = try library.catalog()
        #expect(catalog.trackCount == shapes.count)
        let reader = FLACFileReader()
        for track in catalog.allTracks {
            guard case .playable(let info, _) = reader.read(path: track.path) else {
                Issue.record("\(track.relativePath) does not read back")
                continue
            }
            #expect(track.tags == info.tags, "\(track.relativePath)")
            #expect(track.info == info, "\(track.relativePath)")
        }
        // Made from the index's rows, the tracks are the same.
        let state = try TemporaryDirectory("kiosk-state")
        defer { state.remove() }
        let (fresh, _) = try library.scan(indexPath: state.file("i.sqlite"))
        let (cached, cachedStats) = try library.scan(indexPath: state.file("i.sqlite"))
        #expect(cachedStats.filesRead == 0)
        #expect(cached.allTracks == fresh.allTracks)
        #expect(cached.allTracks.map(\.tags) == catalog.allTracks.map(\.tags))
        let several = try #require(catalog.allTracks.first { $0.relativePath == "f3.flac" })
        #expect(several.artist == "First, Second")
        #expect(several.artistNames == ["First", "Second"])
        #expect(several.genreNames == ["Jazz", "Blues"])
        let fallback = try #require(catalog.allTracks.first { $0.relativePath == "f6.flac" })
        #expect(fallback.tags.artists == ["Unknown Artist"])
        let untagged = try #require(catalog.allTracks.first { $0.relativePath == "f0.flac" })
        #expect(untagged.tags.isEmpty)
        #expect(untagged.artist == Track.unknownArtist)
    }

    /// Two names that differ only in how an accent is encoded are two files, each track keeping
    /// its own bytes, from the index as well.
    @Test func composedAndDecomposedNamesStayApart() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let state = try TemporaryDirectory("kiosk-state")
        defer { state.remove() }
        // Same size and mtime: only the name's bytes tell them apart.
        try library.track("Caf\u{E9}.flac", title: "Composed")
        try library.track("Cafe\u{301}.flac", title: "Separate")
        touch(library.root + "/Caf\u{E9}.flac", seconds: 1_000_000)
        touch(library.root + "/Cafe\u{301}.flac", seconds: 1_000_000)
        for _ in 0..<2 {
            let (catalog, _) = try library.scan(indexPath: state.file("i.sqlite"))
            #expect(catalog.trackCount == 2)
            #expect(Set(catalog.allTracks.map { Array($0.relativePath.utf8) }).count == 2)
            for track in catalog.allTracks {
                let composed = Array(track.relativePath.utf8) == Array("Caf\u{E9}.flac".utf8)
                #expect(track.title == (composed ? "Composed" : "Separate"))
                #expect(Syscalls.exists(track.path))
            }
        }
    }

    @Test func equalStringsAreSharedByteForByte() {
        var pool = StringPool()
        let long = "A rather long album title"
        let a = pool.shared(String(decoding: Array(long.utf8), as: UTF8.self))
        let b = pool.shared(String(decoding: Array(long.utf8), as: UTF8.self))
        #expect(storage(a) != nil)
        #expect(storage(a) == storage(b))
        // Canonically equal but different bytes: both spellings are kept as they are.
        let composed = pool.shared("Caf\u{E9} de la musique ancienne")
        let decomposed = pool.shared("Cafe\u{301} de la musique ancienne")
        #expect(Array(composed.utf8) != Array(decomposed.utf8))
        #expect(Array(decomposed.utf8) == Array("Cafe\u{301} de la musique ancienne".utf8))
        #expect(pool.count == 3)
    }

    @Test func tracksOfAnAlbumShareTheirStrings() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        for i in 1...3 {
            try library.track(
                "A/\(i).flac", title: "Song \(i)", artist: "A performer with a long name",
                album: "An album with a long title", genre: "Progressive electronic", track: "\(i)")
        }
        let tracks = try library.catalog().allTracks
        #expect(tracks.count == 3)
        #expect(Set(tracks.map { storage($0.album) }).count == 1)
        #expect(Set(tracks.map { storage($0.artist) }).count == 1)
        #expect(Set(tracks.map { storage($0.genre) }).count == 1)
        #expect(Set(tracks.map { storage($0.folder) }).count == 1)
    }

    /// A library whose folders do not come in canonical order: the kept scan result takes the
    /// catalog's array (one copy of each track), and later rescans work from it as before.
    @Test func scanResultSharesTheCatalogsTracks() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let state = try TemporaryDirectory("kiosk-state")
        defer { state.remove() }
        let index = state.file("index.sqlite")
        // Walk order a/, b/, c/; canonical order by artist: Zed's album last, "The Alpha" first.
        for i in 1...3 { try library.track("a/\(i).flac", title: "Z\(i)", artist: "Zed", album: "Z", track: "\(i)") }
        for i in 1...3 {
            try library.track("b/\(i).flac", title: "M\(i)", artist: "Mid", album: "M", track: "\(4 - i)")
        }
        try library.track("c/1.flac", title: "A1", artist: "The Alpha", album: "A")
        try library.write("c/bad.flac", text: "junk")
        // A reader warning on one track: only the first 5 comments of a file are read.
        try library.flac(
            "c/2.flac",
            [("TITLE", "A2"), ("ARTIST", "The Alpha"), ("ALBUM", "A"), ("GENRE", "G"), ("DATE", "1"), ("DATE", "2")])
        var limits = ScanLimits()
        limits.maxComments = 5
        let (scanned, _) = try library.rescan(from: nil, indexPath: index, limits: limits)
        let catalog = Catalog(volumes: [scanned], limits: limits)
        #expect(scanned.tracks.map(\.title) != catalog.allTracks.map(\.title))
        let kept = catalog.sharingTracks(with: scanned)
        let shared = kept.tracks.withUnsafeBufferPointer { a in
            catalog.allTracks.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress }
        }
        #expect(shared)
        #expect(kept.problems == scanned.problems)
        #expect(kept.problems.contains { $0.relativePath == "c/2.flac" && $0.severity == .warning })
        #expect(kept.problems.contains { $0.relativePath == "c/bad.flac" && $0.severity == .excluded })

        // Nothing changed: the kept contents stand.
        let (again, againStats) = try library.rescan(from: kept, indexPath: index, limits: limits)
        #expect(againStats.reusedPrevious)
        #expect(again.tracks == kept.tracks)

        // One file changed: only it is read; the rest (and the warning) come from the kept contents.
        try library.track("b/2.flac", title: "Retitled", artist: "Mid", album: "M", track: "2")
        touch(library.root + "/b/2.flac", seconds: 1_000_000)
        let (changed, changedStats) = try library.rescan(from: kept, indexPath: index, limits: limits)
        #expect(!changedStats.reusedPrevious)
        #expect(changedStats.filesRead == 1)
        let (fromIndex, fromIndexStats) = try library.rescan(from: nil, indexPath: index, limits: limits)
        #expect(fromIndexStats.filesRead == 0)
        #expect(changed.tracks == fromIndex.tracks)
        #expect(changed.problems == fromIndex.problems)
        #expect(
            Catalog(volumes: [changed], limits: limits).allTracks.map(\.title) == [
                "A1", "A2", "M3", "Retitled", "M1", "Z1", "Z2", "Z3",
            ])
    }

    @Test func tracksAreFoundByVolumeAndPath() throws {
        let first = try TestLibrary()
        defer { first.remove() }
        let second = try TestLibrary()
        defer { second.remove() }
        for i in 0..<40 { try first.track("x/\(i).flac", title: "First \(i)") }
        for i in 0..<5 { try second.track("x/\(i).flac", title: "Second \(i)") }
        let volumes = [VolumeID(rawValue: "first"), VolumeID(rawValue: "second")]
        let contents = try zip([first, second], volumes).map {
            try VolumeScanner().scan(volume: $1, mountPoint: $0.root, indexPath: nil).contents
        }
        let catalog = Catalog(volumes: contents)
        #expect(catalog.trackCount == 45)
        for track in catalog.allTracks {
            #expect(catalog.track(volume: track.volume, relativePath: track.relativePath) == track)
        }
        #expect(catalog.track(volume: volumes[1], relativePath: "x/7.flac") == nil)
        #expect(catalog.track(volume: volumes[0], relativePath: "x/7.flac")?.title == "First 7")
        #expect(catalog.track(volume: volumes[1], relativePath: "x/1.flac")?.title == "Second 1")
        #expect(catalog.track(volume: VolumeID(rawValue: "elsewhere"), relativePath: "x/1.flac") == nil)
        let without = catalog.removing(volumes: [volumes[0]])
        #expect(without.trackCount == 5)
        #expect(without.track(volume: volumes[0], relativePath: "x/1.flac") == nil)
        #expect(without.track(volume: volumes[1], relativePath: "x/1.flac")?.title == "Second 1")
    }
}
