// SPDX-License-Identifier: GPL-3.0-or-later
import KioskApp
import KioskCore
import KioskDisplay
import KioskLibrary
import KioskSystem
import KioskTestSupport
import Testing

/// The demo's library has what the demo is meant to show: albums, artists, genres, a playlist,
/// embedded art, a cover file, a Japanese album, and a hi-res album (a format change).
@Suite(.tags(.integration)) struct DemoLibraryTests {
    @Test func demoLibraryHasEveryFeatureTheDemoShows() throws {
        let dir = try TemporaryDirectory("kiosk-demo-lib")
        defer { dir.remove() }
        let music = try DemoLibrary.prepare(root: dir.path, seconds: 0.5)
        let id = VolumeIdentity.identify(directory: music)
        let catalog = Catalog(
            volumes: [try VolumeScanner().scan(volume: id, mountPoint: music, indexPath: nil).contents])
        #expect(catalog.problems.filter { $0.severity == .excluded }.isEmpty, "\(catalog.problems)")
        let albums = catalog.collections(in: .album).map(\.name)
        #expect(
            Set(albums) == ["Northern Lights", "Coastline", "夜の歌", "Live at the Lighthouse", "Everyday Formats"])
        #expect(catalog.collections(in: .artist).count >= 3)
        #expect(catalog.collections(in: .genre).count == 4)
        // One album of the formats most sticks hold, each track with its tags (and the MP3 its cover).
        let everyday = try #require(catalog.collections(in: .album).first { $0.name == "Everyday Formats" })
        #expect(
            catalog.tracks(of: everyday).map(\.title) == [
                "Morning MP3", "Evening Opus", "Night Vorbis", "Afternoon AAC",
            ])
        #expect(
            catalog.tracks(of: everyday).map { $0.path.split(separator: ".").last! } == ["mp3", "opus", "ogg", "m4a"])
        guard case .embedded = catalog.artwork(for: everyday) else {
            Issue.record("Everyday Formats has the MP3's embedded cover")
            return
        }
        let playlist = try #require(catalog.collections(in: .playlist).first)
        #expect(
            catalog.tracks(of: playlist).count == 6, "an entry of each album and a second Japanese one (the MP3 too)")
        let northern = try #require(catalog.collections(in: .album).first { $0.name == "Northern Lights" })
        guard case .embedded(let bytes, "image/jpeg") = catalog.artwork(for: northern) else {
            Issue.record("Northern Lights has its cover embedded")
            return
        }
        #expect(bytes.starts(with: [0xFF, 0xD8]))
        let coastline = try #require(catalog.collections(in: .album).first { $0.name == "Coastline" })
        guard case .file(let path, _) = catalog.artwork(for: coastline) else {
            Issue.record("Coastline has a cover.jpg")
            return
        }
        #expect(path.hasSuffix("Coastline/cover.jpg"))
        let japanese = try #require(catalog.collections(in: .album).first { $0.name == "夜の歌" })
        #expect(catalog.artwork(for: japanese) == nil, "one album shows the placeholder")
        #expect(catalog.tracks(of: japanese).map(\.title) == ["月の光", "さくら通り", "最後の電車"])
        #expect(catalog.allTracks.contains { $0.sampleRate == 96_000 && $0.bitsPerSample == 24 })
        // Made once: a second call reuses the files.
        let again = try DemoLibrary.prepare(root: dir.path, seconds: 0.5)
        #expect(again == music)
    }
}

/// The terminal demo: the picture is the terminal, so the log goes to a file beside the library.
@Suite(.tags(.integration)) struct DemoTerminalTests {
    @Test func logLinesGoToDemoLogNotOverThePicture() throws {
        let dir = try TemporaryDirectory("kiosk-demo-term")
        defer { dir.remove() }
        // Short tracks made here: the demo finds them ready (the full-length library takes minutes
        // under emulation).
        _ = try DemoLibrary.prepare(root: dir.path, seconds: 0.5)
        try AtomicFile.replace(
            dir.file("script.jsonl"),
            with: Array(#"{"t": 0, "key": "down"}"#.utf8 + [10] + #"{"t": 50, "key": "up"}"#.utf8))
        let result = run(
            TestPaths.playerBinary,
            [
                "demo", "--dir", dir.path, "--screen", "terminal", "--device", "none", "--script",
                dir.file("script.jsonl"), "--exit-after-script", "300",
            ], timeoutSeconds: 120)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("Log: \(dir.path)/demo.log"))
        #expect(!result.output.contains("kiosk-player: info:"), "no log line in the picture")
        #expect(!result.errors.contains("kiosk-player: info:"))
        let log = String(decoding: try Syscalls.readFile(dir.file("demo.log")), as: UTF8.self)
        #expect(log.contains("kiosk-player: info: kiosk-player running"), "\(log.prefix(400))")
    }

    /// `kiosk-player demo` itself in an 80×24 and a 120×45 terminal (COLUMNS and LINES choose the
    /// size, as for curses programs): played, shuffled and put to sleep from the keyboard.
    @Test(arguments: [TerminalSize(columns: 80, rows: 24), TerminalSize(columns: 120, rows: 45)])
    func theDemoShowsItsKeysAndMarksInATerminalOfThatSize(size: TerminalSize) throws {
        let dir = try TemporaryDirectory("kiosk-demo-size")
        defer { dir.remove() }
        _ = try DemoLibrary.prepare(root: dir.path, seconds: 0.5)
        // "play" (an action name) plays the album browse starts on once the scan has listed it, and
        // does nothing more after that; r shuffles; z starts the sleep timer.
        let script =
            [
                #"{"t": 500, "key": "play"}"#, #"{"t": 1500, "key": "play"}"#, #"{"t": 2500, "key": "play"}"#,
                #"{"t": 2600, "key": "r"}"#, #"{"t": 2700, "key": "z"}"#,
                // The end comes 3 s later, when "Sleep in 15 min" has given way to now playing again.
            ].joined(separator: "\n") + "\n"
        try AtomicFile.replace(dir.file("script.jsonl"), with: Array(script.utf8))
        var environment = currentEnvironment()
        environment["COLUMNS"] = "\(size.columns)"
        environment["LINES"] = "\(size.rows)"
        let result = run(
            TestPaths.playerBinary,
            [
                "demo", "--dir", dir.path, "--screen", "terminal", "--device", "none", "--script",
                dir.file("script.jsonl"), "--exit-after-script", "3000",
            ], environment: environment, timeoutSeconds: 120)
        #expect(result.status == 0, "\(result.errors)")
        var screen = TerminalCapture(columns: size.columns, rows: size.rows)
        screen.feed(result.output)
        #expect(screen.overlaps.isEmpty, "text over the picture at \(size): \(screen.overlaps.prefix(5))")
        #expect(screen.outside == 0)
        #expect(screen.text.contains("Keys (the keyboard is the buttons)"), "the demo at \(size):\n\(screen.text)")
        #expect(screen.text.contains("play / pause") && screen.text.contains("rewind"))
        #expect(screen.text.contains("· shuffle") && screen.text.contains("· sleep 1"))
    }
}
