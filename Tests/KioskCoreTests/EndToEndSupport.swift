import Glibc
import KioskDisplay
import KioskLibrary
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// A `kiosk-player` child process, running while the test goes on: stdout and stderr go to files
/// in the box's directory. Killed (SIGKILL) and reaped by `finish` if still running.
final class PlayerProcess {
    let pid: pid_t
    let logPath: String
    /// CLOCK_MONOTONIC just before the spawn.
    let startedNs: UInt64
    private(set) var exitStatus: Int32?

    /// `home`: the child's HOME, where libasound reads `.asoundrc`.
    init(_ arguments: [String], logPath: String, home: String? = nil) throws {
        self.logPath = logPath
        var environment = currentEnvironment()
        environment["JOURNAL_STREAM"] = nil
        environment["NOTIFY_SOCKET"] = nil
        if let home {
            environment["HOME"] = home
            environment["XDG_CONFIG_HOME"] = nil
        }
        startedNs = Syscalls.monotonicNanoseconds()
        pid = try Syscalls.spawn(
            TestPaths.playerBinary, arguments: arguments, environment: environment, stdin: .null(writing: false),
            stdout: .file(logPath, flags: O_WRONLY | O_CREAT | O_APPEND), stderr: .duplicate(1))
    }

    deinit { finish() }

    /// Whether it still runs (reaps it when it ended).
    var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid {
            exitStatus = Self.decode(status)
            return false
        }
        return r == 0
    }

    func signal(_ signal: Int32) { if exitStatus == nil { kill(pid, signal) } }

    /// Waits for the exit (at most `seconds`); its status, 128 + signal for a signal, nil on timeout.
    @discardableResult
    func wait(seconds: Double) -> Int32? {
        let deadline = Syscalls.monotonicNanoseconds() + UInt64(seconds * 1e9)
        while isRunning {
            if Syscalls.monotonicNanoseconds() > deadline { return nil }
            Syscalls.sleep(nanoseconds: 5_000_000)
        }
        return exitStatus
    }

    /// Kills it (SIGKILL) and reaps it, unless it ended already.
    func finish() {
        guard isRunning else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        exitStatus = Self.decode(status)
    }

    var log: String { String(decoding: (try? Syscalls.readFile(logPath, limit: 16 << 20)) ?? [], as: UTF8.self) }

    private static func decode(_ status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}

/// The "track started" debug lines of a player's log: which track, at which frame, when.
struct TrackStartLine: Equatable {
    let relativePath: String
    let frame: Int64
    let sampleRate: Int
    let monotonicNs: UInt64

    var seconds: Double { Double(frame) / Double(sampleRate) }

    /// Parses lines like "track started: A/B/01 x.flac (1/3) at frame 0 of 44100 Hz; monotonic 123 ns".
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
            found.append(TrackStartLine(relativePath: path, frame: frame, sampleRate: rate, monotonicNs: t))
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
                ])
            ),
            ("screen", .object([("type", .string("png")), ("pngDirectory", .string(frames))])),
            ("inputs", .object([("keyboard", .bool(false))])),
        ])
        try AtomicFile.replace(configPath, with: config.serialized(pretty: true) + "\n")
    }

    /// Starts `kiosk-player --verbose run --config …` plus `extra` arguments, logging to `logName`.
    func start(_ extra: [String] = [], logName: String = "player.log") throws -> PlayerProcess {
        try PlayerProcess(
            ["--verbose", "run", "--config", configPath] + extra, logPath: dir.file(logName), home: dir.path)
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

    /// Waits (polling) until `condition` holds, at most `seconds`.
    @discardableResult
    func waitFor(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Syscalls.monotonicNanoseconds() + UInt64(seconds * 1e9)
        while !condition() {
            if Syscalls.monotonicNanoseconds() > deadline { return false }
            Syscalls.sleep(nanoseconds: 10_000_000)
        }
        return true
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
