// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

private typealias F = MusicTagFixtures
private typealias H = HostileTagFixtures

/// One stick holding every hostile file of issue 31 beside two good tracks: the scan lists the
/// good ones and names each bad one with its reason, within 100 MB and 30 s, and `run` plays the
/// good ones from it. Everything is made in the test.
@Suite(.tags(.integration), .serialized, .needsTagEncoders)
struct HostileStickTests {
    /// The bad files and the start of the reason each must be listed with.
    static let expectedReasons: [(path: String, reason: String)] = [
        ("Bad/rf64-2^63.wav", "not a playable WAV file: damaged file"),
        ("Bad/box-2^63.m4a", "not a playable MP4"),
        ("Bad/inflate-200MB.mp3", "compressed ID3v2 frames inflate to more than"),
        ("Bad/txxx-60000.mp3", "ID3v2 tag of more than 4096 frames"),
        ("Bad/ape-200000.mp3", "APE tag of 200000 items"),
        ("Bad/ilst-100000.m4a", "MP4 item list (ilst) of more than 4096 items"),
        ("Bad/comment-30MB.ogg", "Ogg comment header of more than"),
        ("Bad/comment-30MB.opus", "Ogg comment header of more than"),
        ("Bad/vorbis-then-opus.ogg", "not a playable Ogg Vorbis file: a later link"),
        ("Bad/empty.mp3", "empty file"),
    ]

    /// Writes the stick under `root`: Good/ (two tagged FLAC tracks and a multi-scan JPEG cover of
    /// 10000×3600), Bad/ (the files above), Names/ (control characters), Empty/ (`emptyFiles`).
    static func writeStick(_ library: TestLibrary, emptyFiles: Int) throws {
        for n in 1...2 {
            try library.flac(
                "Good/0\(n).flac", [("TITLE", "Good \(n)"), ("ALBUM", "A Good Album"), ("TRACKNUMBER", "\(n)")],
                seconds: 0.5)
        }
        try library.write("Good/cover.jpg", HostileFiles.multiScanJPEG(width: 10_000, height: 3600))
        try library.write("Bad/rf64-2^63.wav", HostileFiles.rf64(dataSize: UInt64(Int64.max) - 8))
        try library.write("Bad/box-2^63.m4a", HostileFiles.mp4(largeBoxSize: UInt64(Int64.max) - 4))
        try F.plainMP3(library.root + "/plain.mp3")
        let mp3 = try library.read("plain.mp3")
        unlink(library.root + "/plain.mp3")
        try library.write(
            "Bad/inflate-200MB.mp3",
            F.tag(
                version: 4,
                frames: [
                    H.compressedFrame("TPE1", compressed: H.zlibStream([0], zeros: 200 << 20), inflated: 200 << 20)
                ])
                + mp3)
        var frames: [[UInt8]] = []
        for i in 0..<60_000 { frames.append(F.frame("TXXX", [0] + Array("D\(i)".utf8) + [0, 0x78], version: 3)) }
        try library.write("Bad/txxx-60000.mp3", F.tag(version: 3, frames: frames) + mp3)
        try library.write("Bad/ape-200000.mp3", mp3 + F.apeTag((0..<200_000).map { ("K\($0)", "v") }))
        try F.tone(library.root + "/src.wav", rate: 48000)
        try F.tool(
            F.ffmpeg, ["-v", "error", "-y", "-i", library.root + "/src.wav", "-c:a", "aac", library.root + "/src.m4a"])
        try F.tool(F.oggenc, ["-Q", "-o", library.root + "/src.ogg", library.root + "/src.wav"])
        try F.tool(F.opusenc, ["--quiet", library.root + "/src.wav", library.root + "/src.opus"])
        let m4a = try library.read("src.m4a")
        let ogg = try library.read("src.ogg")
        let opus = try library.read("src.opus")
        for name in ["src.wav", "src.m4a", "src.ogg", "src.opus"] { unlink(library.root + "/" + name) }
        try library.write("Bad/ilst-100000.m4a", try #require(H.withItemList(m4a, items: 100_000)))
        try library.write(
            "Bad/comment-30MB.ogg", try #require(H.withComments(ogg, count: 30_000, commentBytes: 1000)))
        try library.write(
            "Bad/comment-30MB.opus", try #require(H.withComments(opus, count: 30_000, commentBytes: 1000)))
        try library.write("Bad/vorbis-then-opus.ogg", ogg + opus)
        try library.write("Bad/empty.mp3", [])
        try library.write("Names/a\u{1B}]0;pwned\u{07}\nforged line.mp3", [])
        try makeEmptyFiles(emptyFiles, in: library.root + "/Empty")
    }

    @Test(
        "scan: the good tracks listed, every bad file named with its reason, under 100 MB, without reading every file through"
    )
    func scanOfTheHostileStick() throws {
        let library = try TestLibrary("kiosk-hostile")
        defer { library.remove() }
        // 190 000 empty files and the rest: under the walk's 200 000-file limit, so Good/ is reached.
        try Self.writeStick(library, emptyFiles: 190_000)
        let state = try TemporaryDirectory("kiosk-hostile-state")
        defer { state.remove() }
        let result = run(
            TestPaths.playerBinary, ["scan", "--json", library.root, "--state-dir", state.path], timeoutSeconds: 120)
        #expect(result.status == 0, "\(result.errors)")
        let json = try JSONReader.parse(result.stdout, file: "scan output")
        let statistics = try #require(try json.object("statistics"))
        let peak = try #require(try statistics.int("peakResidentBytes", range: 1...Int.max))
        let readCalls = try #require(try statistics.int("readCalls", range: 0...Int.max))
        let readBytes = try #require(try statistics.int("readBytes", range: 0...Int.max))
        #expect(peak < 100 << 20, "peak \(peak >> 20) MB")
        // Counts, not seconds (a busy machine slows the scan, not its reads): 2026-12-06, 3 753 read
        // calls and 26.9 MB. Fewer calls than one per 19 empty files (they are never read), and fewer
        // bytes than the two 30 MB comment packets alone (refused after their first 4 MiB).
        #expect(readCalls < 10_000, "\(readCalls) read calls")
        #expect(readBytes < 48 << 20, "\(readBytes >> 20) MB read")
        let titles = try (json.objects("tracks") ?? []).compactMap { try $0.string("title") }
        #expect(titles.contains("Good 1") && titles.contains("Good 2"), "\(titles)")
        var reasons: [String: String] = [:]
        for problem in try json.objects("problems") ?? [] {
            // The summary lines have no path.
            guard let path = try? problem.string("path") else { continue }
            reasons[path] = try problem.string("reason")
        }
        for (path, reason) in Self.expectedReasons {
            #expect(reasons[path]?.hasPrefix(reason) == true, "\(path): \(reasons[path] ?? "not listed")")
        }
        #expect(reasons["Names/a\u{1B}]0;pwned\u{07}\nforged line.mp3"] == "empty file")
    }

    @Test("run: plays the good tracks from the hostile stick and logs the bad files with their reasons")
    func runWithTheHostileStick() throws {
        let library = try TestLibrary("kiosk-hostile-run")
        defer { library.remove() }
        try Self.writeStick(library, emptyFiles: 20_000)
        let box = try TemporaryDirectory("kiosk-hostile-box")
        defer { box.remove() }
        try box.write(
            "boards/e2e.json", #"{"name": "e2e", "description": "hostile stick", "screen": {"type": "none"}}"#)
        let out = box.file("out.raw")
        let config = JSONValue.object([
            ("board", .string("e2e")), ("boardsDirectory", .string(box.file("boards"))),
            ("mediaRoots", .array([.string(box.file("media"))])),
            ("libraryDirectories", .array([.string(library.root)])),
            ("stateDirectory", .string(box.file("state"))), ("volume", .number(100)),
            (
                "audio",
                .object([
                    ("device", .string("file:'\(out)',raw")), ("fallbackDevices", .array([])),
                    ("realtimePriority", .number(0)),
                ])
            ),
            ("screen", .object([("type", .string("png")), ("pngDirectory", .string(box.file("frames")))])),
            ("inputs", .object([("keyboard", .bool(false))])),
        ])
        try AtomicFile.replace(box.file("config.json"), with: config.serialized(pretty: true) + "\n")
        // The albums list once scanned; "A Good Album" sorts first; enter plays it.
        try box.write("script.jsonl", "{\"t\": 12000, \"key\": \"enter\"}\n")
        var environment = currentEnvironment()
        environment["JOURNAL_STREAM"] = nil
        environment["NOTIFY_SOCKET"] = nil
        let log = box.file("player.log")
        let pid = try Syscalls.spawn(
            TestPaths.playerBinary,
            arguments: [
                "--verbose", "run", "--config", box.file("config.json"), "--script", box.file("script.jsonl"),
                "--exit-after-script", "4000",
            ],
            environment: environment, stdin: .null(writing: false),
            stdout: .file(log, flags: O_WRONLY | O_CREAT | O_TRUNC), stderr: .duplicate(1))
        var peakKB = 0
        var status: Int32 = 0
        let deadline = Syscalls.monotonicNanoseconds() + 90_000_000_000
        while waitpid(pid, &status, WNOHANG) == 0 {
            if let text = try? Syscalls.readFile("/proc/\(pid)/status", limit: 16_384),
                let line = String(decoding: text, as: UTF8.self).split(separator: "\n").first(where: {
                    $0.hasPrefix("VmHWM:")
                })
            {
                peakKB = max(peakKB, Int(line.filter(\.isNumber)) ?? 0)
            }
            if Syscalls.monotonicNanoseconds() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                Issue.record("the player did not exit within 90 s")
                break
            }
            Syscalls.sleep(nanoseconds: 100_000_000)
        }
        let text = String(decoding: (try? Syscalls.readFile(log, limit: 16 << 20)) ?? [], as: UTF8.self)
        #expect(status == 0, "exit status \(status): \(text.suffix(3000))")
        #expect(text.contains("track started: Good/01.flac"), "\(text.suffix(3000))")
        #expect(text.contains("track started: Good/02.flac"), "\(text.suffix(3000))")
        for (path, reason) in Self.expectedReasons {
            #expect(text.contains(": \(path): \(reason)"), "\(path) not logged with its reason")
        }
        #expect(text.contains("decoding the JPEG image would need"), "the cover refused: \(text.suffix(3000))")
        #expect(peakKB > 0 && peakKB < 100 << 10, "peak \(peakKB) kB")
    }
}
