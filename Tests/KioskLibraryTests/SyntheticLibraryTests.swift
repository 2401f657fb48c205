// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

@Suite struct SyntheticLibraryTests {
    @Test func generatedLibraryHasTheLayoutsCollections() throws {
        let dir = try TemporaryDirectory("kiosk-synthetic")
        defer { dir.remove() }
        var layout = SyntheticLibrary.Layout()
        layout.albums = 6
        layout.tracksPerAlbum = 3
        layout.secondsPerTrack = 0.05
        layout.playlists = 2
        layout.tracksPerPlaylist = 4
        layout.compressionLevel = 0
        let summary = try SyntheticLibrary.generate(at: dir.path, layout: layout)
        #expect(summary.tracks == 18)
        #expect(summary.embeddedPictures == 6)  // albums 0 and 5
        #expect(summary.coverFiles == 2)  // albums 1 and 4
        let (contents, _) = try VolumeScanner().scan(
            volume: VolumeID(rawValue: "s"), mountPoint: dir.path, indexPath: nil)
        let catalog = Catalog(volumes: [contents])
        #expect(catalog.trackCount == 18)
        #expect(catalog.problems.isEmpty)
        #expect(catalog.collections(in: .album).count == 6)
        #expect(catalog.names(.artist) == ["Artist 001", "Artist 002"])
        #expect(catalog.names(.playlist) == ["Mix 1", "Mix 2"])
        #expect(catalog.collections(in: .playlist).allSatisfy { $0.trackCount == 4 })
        let first = try #require(catalog.named(.album, "Album 0001"))
        #expect(catalog.tracks(of: first).map(\.trackNumber) == [1, 2, 3])
        #expect(catalog.tracks(of: first).allSatisfy { $0.hasEmbeddedPicture && $0.trackTotal == 3 })
        guard case .file(let cover, _)? = catalog.artwork(for: try #require(catalog.named(.album, "Album 0002"))) else {
            Issue.record("album 2 should have a cover file")
            return
        }
        #expect(cover.hasSuffix("Album 0002/cover.jpg"))
    }

    @Test(.tags(.integration), .enabled(if: which("flac") != nil, "the flac command is not installed"))
    func generatedFilesPassTheReferenceDecoder() throws {
        let dir = try TemporaryDirectory("kiosk-synthetic")
        defer { dir.remove() }
        let path = dir.file("a.flac")
        try SyntheticLibrary.writeFLAC(
            path: path, tags: [("TITLE", "Ünïcode ✓")],
            picture: EmbeddedPicture(bytes: SyntheticLibrary.sampleJPEG, mimeType: "image/jpeg"), seconds: 0.3,
            sampleRate: 96_000, channels: 6, bitsPerSample: 24)
        let result = run(which("flac")!, ["--test", "--silent", path])
        #expect(result.status == 0, "\(result.errors)")
        if let metaflac = which("metaflac") {
            let tags = run(metaflac, ["--export-tags-to=-", path])
            #expect(tags.output == "TITLE=Ünïcode ✓\n")
        }
    }

    @Test(.tags(.integration)) func solidPNGIsWellFormed() throws {
        let png = SyntheticLibrary.solidPNG(width: 300, height: 300, red: 10, green: 20, blue: 30)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(Array(png[12..<16]) == Array("IHDR".utf8))
        #expect(Array(png.suffix(8).prefix(4)) == Array("IEND".utf8))
        guard let python = which("python3") else { return }
        let dir = try TemporaryDirectory("kiosk-png")
        defer { dir.remove() }
        try dir.write("x.png", png)
        // Python's zlib checks the deflate stream and the Adler-32; binascii the chunk CRCs.
        let script = """
            import sys, zlib, struct, binascii
            d = open(sys.argv[1], 'rb').read(); i = 8; idat = b''
            while i < len(d):
                n = struct.unpack('>I', d[i:i+4])[0]; t = d[i+4:i+8]; body = d[i+8:i+8+n]
                assert struct.unpack('>I', d[i+8+n:i+12+n])[0] == binascii.crc32(t + body), t
                if t == b'IDAT': idat += body
                i += 12 + n
            raw = zlib.decompress(idat)
            assert len(raw) == 300 * (300 * 3 + 1), len(raw)
            assert raw[1:4] == bytes([10, 20, 30])
            print('ok')
            """
        let result = run(python, ["-c", script, dir.file("x.png")])
        #expect(result.output == "ok\n", "\(result.errors)")
    }

    @Test func sampleJPEGIsAJPEG() {
        #expect(SyntheticLibrary.sampleJPEG.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(SyntheticLibrary.sampleJPEG.suffix(2) == [0xFF, 0xD9])
    }

    @Test func invalidFormatIsAnError() {
        #expect(throws: SyntheticLibraryError.self) {
            try SyntheticLibrary.writeFLAC(path: "/tmp/never.flac", tags: [], channels: 9)
        }
    }
}

@Suite(.tags(.integration)) struct ScanCommandTests {
    @Test func scanPrintsSummaryAndProblems() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.track("A/1.flac", title: "One", artist: "X", album: "A")
        try library.write("A/bad.flac", text: "nope")
        let result = run(TestPaths.playerBinary, ["scan", library.root])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("Tracks: 1\n"))
        #expect(result.output.contains("  Albums: 1\n"))
        #expect(result.output.contains("  A/bad.flac: not a music file (the content is no format KioskPlayer plays)\n"))
    }

    @Test func scanJSONIsTheCatalog() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.track("A/1.flac", title: "One", artist: "X", album: "A")
        let state = try TemporaryDirectory("kiosk-state")
        defer { state.remove() }
        _ = run(TestPaths.playerBinary, ["scan", library.root, "--state-dir", state.path])
        let result = run(TestPaths.playerBinary, ["scan", "--json", library.root, "--state-dir", state.path])
        #expect(result.status == 0, "\(result.errors)")
        let json = try JSONValue.parse(result.output)
        #expect(json["trackCount"]?.int == 1)
        #expect(json["tracks"]?[0]?["title"]?.string == "One")
        #expect(json["statistics"]?["filesRead"]?.int == 0)
        #expect(json["categories"]?["artist"]?.array?.count == 1)
    }

    @Test func scanUsageErrors() {
        #expect(run(TestPaths.playerBinary, ["scan"]).status == 2)
        #expect(run(TestPaths.playerBinary, ["scan", "/nonexistent/kiosk"]).status == 1)
        #expect(run(TestPaths.playerBinary, ["scan", "/tmp", "--bogus"]).status == 2)
    }
}

extension JSONValue {
    fileprivate subscript(index: Int) -> JSONValue? {
        guard let array, index < array.count else { return nil }
        return array[index]
    }
}
