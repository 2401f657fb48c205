// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskDisplay
import KioskLibrary
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// The "track started" debug lines of a player's log: which track, at which frame, when.
struct TrackStartLine: Equatable {
    let relativePath: String
    let frame: Int64
    let sampleRate: Int
    let monotonicNs: UInt64
    /// The frame the engine started the track from (its position when the loop logged it is `frame`).
    let startFrame: Int64?

    var seconds: Double { Double(frame) / Double(sampleRate) }
    /// Where the track started, in seconds: a restored position exactly, however late the log line.
    var startSeconds: Double? { startFrame.map { Double($0) / Double(sampleRate) } }

    /// Parses lines like "track started: A/B/01 x.flac (1/3) at frame 0 of 44100 Hz; monotonic 123 ns;
    /// from frame 0".
    static func all(in log: String) -> [TrackStartLine] {
        var found: [TrackStartLine] = []
        for line in log.split(separator: "\n") {
            guard let start = line.firstRange(of: "track started: ") else { continue }
            let rest = line[start.upperBound...]
            guard let at = rest.ranges(of: " at frame ").last,
                let paren = rest[..<at.lowerBound].ranges(of: " (").last
            else { continue }
            let path = String(rest[..<paren.lowerBound])
            let words = rest[at.upperBound...].split(separator: " ")
            // "N of R Hz; monotonic T ns"
            guard words.count >= 6, let frame = Int64(words[0]), let rate = Int(words[2]),
                let t = UInt64(words[5])
            else { continue }
            let startFrame = words.count >= 10 && words[7] == "from" ? Int64(words[9]) : nil
            found.append(
                TrackStartLine(
                    relativePath: path, frame: frame, sampleRate: rate, monotonicNs: t, startFrame: startFrame))
        }
        return found
    }
}

/// A resume record the player's log says it began writing ("resume: writing record 7 (position,
/// slot 1): A/B/01 x.flac at frame 88200") and whether it said it was written ("resume: record 7
/// written"): what a power cut may leave on the card.
struct ResumeRecordLine: Equatable {
    let sequence: Int
    let relativePath: String?
    let positionFrames: Int64
    var written: Bool

    static func all(in log: String) -> [ResumeRecordLine] {
        var found: [ResumeRecordLine] = []
        for line in log.split(separator: "\n") {
            if let start = line.firstRange(of: "resume: writing record ") {
                let rest = line[start.upperBound...]
                guard let sequence = Int(rest.prefix { $0.isNumber }), let colon = rest.firstRange(of: "): "),
                    let at = rest.ranges(of: " at frame ").last, let frames = Int64(rest[at.upperBound...])
                else { continue }
                let path = String(rest[colon.upperBound..<at.lowerBound])
                found.append(
                    ResumeRecordLine(
                        sequence: sequence, relativePath: path == "-" ? nil : path, positionFrames: frames,
                        written: false))
            } else if let start = line.firstRange(of: "resume: record "), line.hasSuffix(" written"),
                let sequence = Int(line[start.upperBound...].prefix { $0.isNumber }),
                let index = found.lastIndex(where: { $0.sequence == sequence })
            {
                found[index].written = true
            }
        }
        return found
    }
}

/// A box for an end-to-end run: a media root with a stick mount point, a state directory, a
/// folder the screen's frames go to, and the config file.
final class EndToEndBox {
    let dir: TemporaryDirectory
    private(set) var mounted: [String] = []

    init() throws {
        _ = try PlayerFixtures.prepare()
        dir = try TemporaryDirectory("kiosk-e2e")
        try Syscalls.mkdirs(stick)
        try Syscalls.mkdirs(state)
        // The player closes the device when it stops and opens it again to play, and ALSA's file
        // plugin truncates its file at each open unless told not to; then each open writes the next
        // of FILE, FILE.0001, FILE.0002… (read back in order by `captured`).
        try dir.write(".asoundrc", "defaults.pcm.file_truncate false\n")
    }

    deinit {
        for point in mounted { unmount(point) }
        dir.remove()
    }

    var media: String { dir.file("media") }
    var stick: String { dir.file("media/STICK") }
    var state: String { dir.file("state") }
    var frames: String { dir.file("frames") }
    var configPath: String { dir.file("config.json") }

    /// Writes config.json: this box's directories, `device`, 320×240 PNG frames, volume 100, and
    /// a board without buttons (the event script is the only input).
    func writeConfig(device: String) throws {
        try dir.write(
            "boards/e2e.json", #"{"name": "e2e", "description": "end-to-end tests", "screen": {"type": "none"}}"#)
        let config = JSONValue.object([
            ("board", .string("e2e")),
            ("boardsDirectory", .string(dir.file("boards"))),
            ("mediaRoots", .array([.string(media)])),
            ("stateDirectory", .string(state)),
            ("volume", .number(100)),
            (
                "audio",
                .object([
                    ("device", .string(device)), ("fallbackDevices", .array([])), ("realtimePriority", .number(0)),
                    // The samples are compared bit for bit, edges included (DeclickTests check the ramps).
                    ("declickMs", .number(0)),
                ])
            ),
            ("screen", .object([("type", .string("png")), ("pngDirectory", .string(frames))])),
            ("inputs", .object([("keyboard", .bool(false))])),
        ])
        try AtomicFile.replace(configPath, with: config.serialized(pretty: true) + "\n")
    }

    /// Starts `kiosk-player --verbose run --config …` plus `extra` arguments, logging to `logName`.
    /// The player's HOME is the box, where libasound reads `.asoundrc`.
    func start(_ extra: [String] = [], logName: String = "player.log") throws -> ChildProcess {
        var environment = currentEnvironment()
        environment["HOME"] = dir.path
        environment["XDG_CONFIG_HOME"] = nil
        return try ChildProcess(
            TestPaths.playerBinary, ["--verbose", "run", "--config", configPath] + extra, log: dir.file(logName),
            environment: environment)
    }

    /// Writes `script` (JSON lines of key presses) and starts the player on it, to end `exitAfterMs`
    /// after its last event; once the first frame is drawn, mounts `source` as the stick. Nil, the
    /// test skipped, when mounting is not possible here.
    func startScripted(_ script: String, exitAfterMs: Int, stick source: String) throws -> ChildProcess? {
        try dir.write("script.jsonl", script)
        let player = try start(["--script", dir.file("script.jsonl"), "--exit-after-script", "\(exitAfterMs)"])
        #expect(waitFor(seconds: 10) { !frameFiles().isEmpty }, "no first frame: \(player.log)")
        if let problem = mount(source) {
            try skipTest(problem)
            return nil
        }
        return player
    }

    /// Everything the player wrote through ALSA's file plugin to `path`, in order: `path` from the
    /// first open, then `path.0001`, `path.0002`… from each open after it (see `init`).
    func captured(_ path: String) throws -> [UInt8] {
        var bytes = try Syscalls.readFile(path, limit: 1 << 30)
        for index in 1...9999 {  // libasound numbers at most 9999
            let segment = path + "." + String(repeating: "0", count: 4 - String(index).count) + String(index)
            guard Syscalls.exists(segment) else { break }
            bytes += try Syscalls.readFile(segment, limit: 1 << 30)
        }
        return bytes
    }

    /// Bind-mounts `source` at the stick's mount point (as udisks would mount a stick there).
    /// Nil when mounting is not possible here (not root, no mount): the reason.
    func mount(_ source: String) -> String? {
        let result = run("/usr/bin/mount", ["--bind", source, stick], timeoutSeconds: 20)
        guard result.status == 0 else { return "cannot bind-mount (\(result.errors)); needs root and mount(8)" }
        mounted.append(stick)
        return nil
    }

    /// Detaches the stick at once (lazily, like a stick pulled out while a file is open).
    func unmount(_ point: String? = nil) {
        let target = point ?? stick
        run("/usr/bin/umount", ["-l", target], timeoutSeconds: 20)
        mounted.removeAll { $0 == target }
    }

    /// Frame files written so far, in order.
    func frameFiles() -> [String] {
        listDirectory(frames).filter { $0.hasPrefix("frame-") && $0.hasSuffix(".png") }.map { frames + "/" + $0 }
    }

    func saved() -> ResumeState? { ResumeState.load(directory: state) }
}

/// Draws expected screens the way the player's display does, for comparison with its frames.
final class ExpectedScreens {
    let renderer: ScreenRenderer
    let canvas = Canvas(width: 320, height: 240)

    init() throws {
        renderer = ScreenRenderer(fonts: try FontSet.load(), theme: .dark)
    }

    /// The PNG bytes of `state` drawn with no artwork (the placeholder): what the player writes
    /// for a library without pictures.
    func png(_ state: ScreenState) throws -> [UInt8] {
        renderer.render(state, on: canvas)
        return try canvas.pngData()
    }

    /// The decoded frame, for reading pixels.
    static func decode(_ path: String) throws -> Image {
        try ImageDecoder.decode(try Syscalls.readFile(path, limit: 16 << 20))
    }
}

/// A now-playing screen as the player shows it for fixture tracks (no artwork).
func nowPlaying(
    _ album: PlayerFixtures.Album, _ number: Int, _ playback: PlaybackState, elapsed: Int, category: String,
    position: Int, count: Int
) -> ScreenState {
    .nowPlaying(
        NowPlayingState(
            title: album.tracks[number], artist: album.artist, album: album.title, elapsedSeconds: Double(elapsed),
            totalSeconds: album.seconds, playback: playback, categoryLabel: category, queuePosition: position,
            queueCount: count, artworkKey: "any"))
}

/// The raw samples of a FLAC file as `flac -d` writes them (signed, little-endian, interleaved).
func decodedWithFlacTool(_ path: String, scratch: TemporaryDirectory) throws -> [UInt8] {
    let out = scratch.file("ref-\(Syscalls.monotonicNanoseconds()).raw")
    let result = run(
        "/usr/bin/flac",
        ["-d", "-s", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "-o", out, path],
        timeoutSeconds: 60)
    guard result.status == 0 else { throw RigError("flac -d \(path): \(result.errors)") }
    defer { unlink(out) }
    return try Syscalls.readFile(out, limit: 1 << 30)
}

let canMount: Bool = getuid() == 0 && access("/usr/bin/mount", X_OK) == 0
let hasFlacTool: Bool = access("/usr/bin/flac", X_OK) == 0
