// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

@Suite struct WalkerTests {
    func walk(_ library: TestLibrary, limits: ScanLimits = ScanLimits()) -> WalkResult {
        VolumeWalker(root: library.root, volume: library.volume, limits: limits).walk()
    }

    @Test func findsMusicFilesPlaylistsAndCoversByExtensionAnyCase() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("a/one.flac")
        try library.flac("a/TWO.FLAC")
        try library.write("a/three.mp3", text: "x")
        try library.write("a/notes.txt", text: "x")
        try library.write("list.M3U", text: "a/one.flac\n")
        try library.write("b/list.m3u8", text: "")
        try library.write("a/Folder.JPG", SyntheticLibrary.sampleJPEG)
        try library.write("a/booklet.jpg", SyntheticLibrary.sampleJPEG)
        try library.write("a/flac", text: "no extension")
        let result = walk(library)
        #expect(result.musicFiles.map(\.relativePath).sorted() == ["a/TWO.FLAC", "a/one.flac", "a/three.mp3"])
        #expect(result.playlists.map(\.relativePath).sorted() == ["b/list.m3u8", "list.M3U"])
        #expect(result.coverFiles == ["a/Folder.JPG"])
        #expect(result.warnings.isEmpty)
        let one = try #require(result.musicFiles.first { $0.relativePath == "a/one.flac" })
        let st = try Syscalls.fileStatus(library.root + "/a/one.flac")
        #expect(one.size == Int64(st.st_size))
        #expect(one.modificationTime == Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
    }

    @Test func hiddenAndSystemFoldersAreSkipped() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("Music/keep.flac")
        try library.flac(".Trashes/501/deleted.flac")
        try library.flac(".Spotlight-V100/x.flac")
        try library.flac("System Volume Information/x.flac")
        try library.flac("$RECYCLE.BIN/S-1-5/x.flac")
        try library.flac("RECYCLER/x.flac")
        try library.flac(".hidden/x.flac")
        try library.write("Music/._keep.flac", [0, 5, 22, 7, 0, 2, 0, 0])  // AppleDouble
        try library.write("Music/.DS_Store", [0])
        let catalog = try library.catalog()
        #expect(catalog.allTracks.map(\.relativePath) == ["Music/keep.flac"])
        #expect(catalog.problems.isEmpty)
    }

    @Test func symlinkLoopIsNotFollowed() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("Artist/Album/song.flac")
        try library.symlink("Artist/Album/again", to: "..")
        try library.symlink("Artist/top", to: library.root)
        let result = walk(library)
        #expect(result.musicFiles.map(\.relativePath) == ["Artist/Album/song.flac"])
        #expect(
            result.warnings.contains {
                $0.relativePath == "Artist/Album/again" && $0.reason.contains("already scanned")
            })
        #expect(result.warnings.contains { $0.relativePath == "Artist/top" && $0.reason.contains("loop") })
    }

    @Test func symlinksOutOfTheVolumeAreNotFollowed() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let outside = try TestLibrary("kiosk-outside")
        defer { outside.remove() }
        try outside.flac("secret.flac")
        try library.flac("in.flac")
        try library.symlink("escape", to: outside.root)
        try library.symlink("file.flac", to: outside.root + "/secret.flac")
        try library.symlink("relative-escape", to: "../")
        let result = walk(library)
        #expect(result.musicFiles.map(\.relativePath) == ["in.flac"])
        #expect(result.warnings.filter { $0.reason.contains("outside the volume") }.count == 3)
    }

    @Test func symlinksInsideTheVolumeAreFollowedOnce() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("Real/song.flac")
        try library.symlink("Alias/link.flac", to: "../Real/song.flac")  // same file: listed once
        try library.flac("Other/x.flac")
        try library.symlink("Shortcut", to: "Other")  // same folder twice: walked once
        try library.symlink("dangling.flac", to: "nowhere.flac")
        let result = walk(library)
        #expect(result.musicFiles.map(\.relativePath).sorted() == ["Other/x.flac", "Real/song.flac"])
        #expect(result.warnings.contains { $0.relativePath == "dangling.flac" && $0.reason.contains("missing") })
    }

    @Test func depthLimitWarns() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("1/2/3/ok.flac")
        try library.flac("1/2/3/4/5/deep.flac")
        var limits = ScanLimits()
        limits.maxDepth = 3
        let result = walk(library, limits: limits)
        #expect(result.musicFiles.map(\.relativePath) == ["1/2/3/ok.flac"])
        #expect(result.warnings.map(\.relativePath) == ["1/2/3/4"])
        #expect(result.warnings.first?.reason == "folder deeper than 3 levels; not scanned")
    }

    @Test func fileCountLimitWarnsAndStops() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        for i in 0..<5 { try library.flac("f\(i).flac") }
        var limits = ScanLimits()
        limits.maxFiles = 3
        let result = walk(library, limits: limits)
        #expect(result.musicFiles.count == 3)
        #expect(result.warnings.map(\.reason) == ["more than 3 music files; the rest of the volume was not scanned"])
    }

    @Test func entryLimitWarns() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        for i in 0..<10 { try library.write("junk\(i).txt", text: "") }
        try library.flac("z.flac")
        var limits = ScanLimits()
        limits.maxEntries = 5
        let result = walk(library, limits: limits)
        #expect(result.warnings.map(\.reason) == ["more than 5 folder entries; the rest of the volume was not scanned"])
    }

    @Test func pathLengthLimitWarns() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let long = String(repeating: "n", count: 60)
        try library.flac("\(long)/\(long).flac")
        try library.flac("short.flac")
        var limits = ScanLimits()
        limits.maxPathBytes = 100
        let result = walk(library, limits: limits)
        #expect(result.musicFiles.map(\.relativePath) == ["short.flac"])
        #expect(result.warnings.first?.reason == "path longer than 100 bytes; skipped")
    }

    @Test func namesInWindows1252AreShownDecodedAndTheirFilesRead() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.track("Motörhead/Brontë – Überall.flac", title: "Song")
        #expect(renameToWindows1252(folder: library.root + "/Motörhead", name: "Brontë – Überall.flac"))
        #expect(renameToWindows1252(folder: library.root, name: "Motörhead"))
        let result = walk(library)
        #expect(result.warnings.isEmpty)
        let file = try #require(result.musicFiles.first)
        #expect(file.relativePath == "Motörhead/Brontë – Überall.flac")
        let outcome = MusicFileReader().read(path: library.root + "/" + file.relativePath)
        guard case .playable(let info, _) = outcome else {
            Issue.record("expected playable, got \(outcome)")
            return
        }
        #expect(info.tags.titles == ["Song"])
    }

    @Test func aWindows1252NameThatReadsAsAnotherFilesNameIsSkippedWithAWarning() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("café.flac")
        #expect(renameToWindows1252(folder: library.root, name: "café.flac"))
        try library.flac("café.flac")  // the UTF-8 name, written after the other was renamed
        let result = walk(library)
        #expect(result.musicFiles.map(\.relativePath) == ["café.flac"])
        #expect(
            result.warnings.map(\.reason) == [
                "the name is not UTF-8 and, read as Windows-1252, is another file's name; skipped"
            ])
    }

    /// Folders listed ahead on several threads give exactly the walk of one thread: same order,
    /// same warnings, same cut-offs at every limit, links and loops handled the same.
    static let walkLimits: [(Int, Int, Int)] = [
        (2_000_000, 200_000, 24), (40, 200_000, 24), (2_000_000, 17, 24), (2_000_000, 200_000, 2), (7, 3, 1),
    ]

    @Test(arguments: walkLimits)
    func threadsListingAheadDoNotChangeTheWalk(maxEntries: Int, maxFiles: Int, maxDepth: Int) throws {
        let library = try TestLibrary()
        defer { library.remove() }
        for artist in 0..<4 {
            for album in 0..<3 {
                let folder = "Artist \(artist)/Album \(album)"
                for track in 0..<3 { try library.write("\(folder)/\(track).flac", text: "x") }
                try library.write("\(folder)/notes.txt", text: "x")
                if album == 1 { try library.write("\(folder)/cover.jpg", text: "x") }
            }
        }
        try library.write("Artist 1/Album 0/Disc 2/deep/deeper/1.flac", text: "x")
        try library.write(".hidden/x.flac", text: "x")
        try library.write("System Volume Information/x.flac", text: "x")
        try library.write("list.m3u", text: "")
        try library.symlink("Artist 0/again", to: "..")
        try library.symlink("Shortcut", to: "Artist 2")
        try library.symlink("song.flac", to: "Artist 3/Album 2/1.flac")
        var limits = ScanLimits()
        limits.maxEntries = maxEntries
        limits.maxFiles = maxFiles
        limits.maxDepth = maxDepth
        let one = VolumeWalker(root: library.root, volume: library.volume, limits: limits, threads: 1).walk()
        for threads in [2, 4, 8] {
            let many = VolumeWalker(root: library.root, volume: library.volume, limits: limits, threads: threads).walk()
            #expect(many.musicFiles == one.musicFiles, "\(threads) threads")
            #expect(many.playlists == one.playlists)
            #expect(many.coverFiles == one.coverFiles)
            #expect(many.warnings == one.warnings)
            #expect(many.directories == one.directories)
            #expect(many.entries == one.entries)
        }
        if maxEntries > 1000 && maxFiles > 1000 && maxDepth > 10 {
            #expect(one.musicFiles.count == 37)
            #expect(one.warnings.contains { $0.relativePath == "Artist 0/again" })
        }
    }

    @Test func unreadableVolumeIsAnError() throws {
        let scanner = VolumeScanner()
        #expect(throws: ScanError.self) {
            try scanner.scan(volume: VolumeID(rawValue: "x"), mountPoint: "/nonexistent/kiosk", indexPath: nil)
        }
    }
}
