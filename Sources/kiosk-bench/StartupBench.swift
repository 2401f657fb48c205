// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskCommandLine
import KioskCore
import KioskLibrary
import KioskSystem

/// `bench startup`: the appliance started as systemd starts it, on a 10 000-track library whose
/// index is cached, resuming a track that was playing.
///
/// Times are measured from outside, from just before `posix_spawn` of `kiosk-player run`:
/// - first PCM: the sound device is ALSA's file plugin writing into a FIFO this process reads; the
///   time is when the first bytes arrive (the plugin passes frames on as soon as more than a
///   device buffer was written, which the unpaced plugin does at once);
/// - first frame: the screen is the PNG frame-per-file surface; the time is when inotify reports
///   the first frame file renamed into place (complete).
/// RSS comes from /proc/PID/status (VmRSS, VmHWM) of a run on the real-time "none" device.
extension BenchCommand {
    static func startup(_ parsed: ParsedArguments) throws -> Int32 {
        let name = "bench startup"
        let runs = parsed.int("--runs") ?? 5
        let library = parsed.value("--library") ?? "/var/tmp/kiosk-player-bench-library-10000"
        if parsed.value("--library") == nil { try ensureStartupLibrary(library) }
        guard let track = firstTrack(in: library) else { throw ToolError("\(library): no FLAC file found") }
        let binary = try playerPath()
        var template = Array("/tmp/kiosk-bench-startup-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ToolError("mkdtemp: \(Errno.current)") }
        let scratch = String(cString: made)
        defer { removeTree(scratch) }
        let bench = StartupRig(binary: binary, scratch: scratch, library: library)

        // Warm-up: the first run scans the library into the state directory's index, and its
        // playability pass decodes every first frame (else each measured run would go on with it).
        let scanStart = Syscalls.monotonicNanoseconds()
        try bench.writeConfig(device: "none", screen: "none")
        let warm = try bench.spawn(verbose: false)
        guard bench.waitForLog(warm, "library: scanned", seconds: 600),
            bench.waitForLog(warm, "library: decoded the first frame", seconds: 600)
        else {
            warm.stop()
            throw ToolError("the warm-up run did not finish its scan: \(bench.log(warm))")
        }
        warm.stop()
        let tracks = bench.log(warm).split(separator: "\n").first { $0.contains("library: scanned") }.map(String.init)
        let indexBytes =
            (try? Syscalls.readDirectory(scratch + "/state/library").entries.reduce(0) {
                $0 + Int((try? Syscalls.fileStatus(scratch + "/state/library/" + $1.name).st_size) ?? 0)
            }) ?? 0
        printLine(
            "\(name): library \(library); warm-up scan \(formatSeconds(Double(Syscalls.monotonicNanoseconds() - scanStart) / 1e9)) s (\(tracks ?? "?")); index \(formatMegabytes(indexBytes))"
        )

        // Timed runs: resume `track`, playing, into a FIFO; PNG frames.
        let resume = resumeState(library: library, track: track)
        var pcmTimes: [Double] = []
        var frameTimes: [Double] = []
        for _ in 0..<runs {
            try resume.save(directory: scratch + "/state")
            let (pcm, frame) = try bench.timedRun()
            if let pcm { pcmTimes.append(pcm) }
            if let frame { frameTimes.append(frame) }
        }
        func summary(_ values: [Double]) -> String {
            guard !values.isEmpty else { return "none seen" }
            let sorted = values.sorted()
            let median = sorted[sorted.count / 2]
            return
                "median \(formatSeconds(median * 1000)) ms (min \(formatSeconds(sorted.first! * 1000)), max \(formatSeconds(sorted.last! * 1000)); \(values.count) runs)"
        }
        printLine("\(name): exec → first PCM frame written: \(summary(pcmTimes)) (goal ≤ 150 ms)")
        printLine("\(name): exec → first screen frame drawn: \(summary(frameTimes))")

        // Memory: with no stick, then real-time playback ("none"); with the PNG screen and without.
        let noStick = try ["png", "none"].map { try bench.noStickRun(screen: $0) }
        printLine("\(name): RSS with no stick: screen png \(noStick[0]) KiB, screen none \(noStick[1]) KiB")
        // Without a screen spoken prompts are on by default, and their libraries load at the start;
        // the run with speech off shows their share.
        for (screen, speech) in [("png", true), ("none", true), ("none", false)] {
            try resume.save(directory: scratch + "/state")
            let memory = try bench.memoryRun(screen: screen, speech: speech)
            let label = screen == "none" && !speech ? "none, speech off" : screen
            printLine(
                "\(name): RSS with screen \(label): playing \(memory.playingKiB) KiB, after the queue ended \(memory.idleKiB) KiB, peak \(memory.peakKiB) KiB"
            )
            if screen == "none" {
                for line in memory.whilePlaying.report(top: 12) { printLine("\(name):   \(line)") }
            }
        }
        return 0
    }

    /// Generates the synthetic 10 000-track library unless a generated one is there (any layout
    /// version of `bench scan`'s generator will do).
    static func ensureStartupLibrary(_ path: String) throws {
        if Syscalls.exists(path + "/.kiosk-synthetic-library") { return }
        if Syscalls.exists(path) { throw ToolError("\(path) exists and is not a generated library; pass --library") }
        let partial = path + ".partial"
        removeTree(partial)
        printLine("bench startup: generating 10 000 tracks in \(path) (once)…")
        let summary = try SyntheticLibrary.generate(at: partial, layout: SyntheticLibrary.Layout())
        try SyntheticLibrary.writeFile(
            path: partial + "/.kiosk-synthetic-library", bytes: Array("startup \(summary.tracks)".utf8))
        try Syscalls.rename(partial, path)
    }

    /// The first FLAC file of the middle artist folder (relative path).
    static func firstTrack(in library: String) -> String? {
        func sortedEntries(_ dir: String) -> [DirectoryEntry] {
            ((try? Syscalls.readDirectory(dir, limit: 100_000).entries) ?? []).filter { !$0.name.hasPrefix(".") }
                .sorted { $0.name < $1.name }
        }
        let artists = sortedEntries(library).filter { $0.kind == .directory && $0.name != "Playlists" }
        guard !artists.isEmpty else { return nil }
        let artist = artists[artists.count / 2].name
        for album in sortedEntries("\(library)/\(artist)") where album.kind == .directory {
            if let file = sortedEntries("\(library)/\(artist)/\(album.name)").first(where: {
                $0.name.hasSuffix(".flac")
            }) {
                return "\(artist)/\(album.name)/\(file.name)"
            }
        }
        return nil
    }

    static func resumeState(library: String, track: String) -> ResumeState {
        var state = ResumeState()
        state.volumeID = VolumeIdentity.identify(directory: library).rawValue
        state.relativePath = track
        state.sampleRate = 44_100
        state.positionFrames = 0
        state.playing = true
        state.volumePercent = 100
        return state
    }

    /// The `kiosk-player` built beside this program (the same build directory).
    static func playerPath() throws -> String {
        guard let path = Syscalls.ownExecutablePath(), let slash = path.lastIndex(of: "/") else {
            throw ToolError("cannot find this program (/proc/self/exe)")
        }
        let player = String(path[..<slash]) + "/kiosk-player"
        guard Syscalls.exists(player) else {
            throw ToolError("\(player) is not built (swift build --product kiosk-player)")
        }
        return player
    }
}

/// One `kiosk-player run` child of the startup benchmark.
private final class StartupChild {
    let pid: pid_t
    let logPath: String
    let spawnedNs: UInt64
    private var reaped = false

    init(pid: pid_t, logPath: String, spawnedNs: UInt64) {
        self.pid = pid
        self.logPath = logPath
        self.spawnedNs = spawnedNs
    }

    var isRunning: Bool {
        if reaped { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { reaped = true }
        return !reaped
    }

    /// SIGTERM, then SIGKILL after 10 s; reaped.
    func stop() {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = Syscalls.monotonicNanoseconds() + 10_000_000_000
        while isRunning && Syscalls.monotonicNanoseconds() < deadline { Syscalls.sleep(nanoseconds: 5_000_000) }
        if isRunning {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            reaped = true
        }
    }

    /// VmRSS and VmHWM from /proc/PID/status, in KiB.
    var memory: (rss: Int, peak: Int) {
        guard let bytes = try? Syscalls.readFile("/proc/\(pid)/status", limit: 65536) else { return (0, 0) }
        var rss = 0
        var peak = 0
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2 else { continue }
            if words[0] == "VmRSS:" { rss = Int(words[1]) ?? 0 }
            if words[0] == "VmHWM:" { peak = Int(words[1]) ?? 0 }
        }
        return (rss, peak)
    }
}

private final class StartupRig {
    let binary: String
    let scratch: String
    let library: String
    var config: String { scratch + "/config.json" }
    var fifo: String { scratch + "/pcm.fifo" }
    var frames: String { scratch + "/frames" }
    private var runNumber = 0

    init(binary: String, scratch: String, library: String) {
        self.binary = binary
        self.scratch = scratch
        self.library = library
    }

    /// A board without inputs; `device`; the PNG frame-per-file screen or none.
    func writeConfig(device: String, screen: String, speech: Bool = true) throws {
        try Syscalls.mkdirs(scratch + "/boards")
        try AtomicFile.replace(
            scratch + "/boards/bench.json",
            with: #"{"name": "bench", "description": "startup benchmark", "screen": {"type": "none"}}"# + "\n")
        let json = JSONValue.object(
            [
                ("board", .string("bench")),
                ("boardsDirectory", .string(scratch + "/boards")),
                ("mediaRoots", .array([])),
                ("stateDirectory", .string(scratch + "/state")),
                ("audio", .object([("device", .string(device)), ("realtimePriority", .number(0))])),
                ("screen", .object([("type", .string(screen)), ("pngDirectory", .string(frames))])),
                ("inputs", .object([("keyboard", .bool(false))])),
            ] + (speech ? [] : [("speech", .object([("mode", .string("off"))]))]))
        try AtomicFile.replace(config, with: json.serialized(pretty: true) + "\n")
    }

    /// Starts `run` on the library, or (`withLibrary` false) with no stick at all.
    func spawn(verbose: Bool, withLibrary: Bool = true) throws -> StartupChild {
        runNumber += 1
        let logPath = "\(scratch)/run\(runNumber).log"
        let arguments =
            (verbose ? ["--verbose"] : []) + ["run", "--config", config] + (withLibrary ? ["--library", library] : [])
        let pid: pid_t
        let spawned = Syscalls.monotonicNanoseconds()
        do throws(Errno) {
            pid = try Syscalls.spawn(
                binary, arguments: arguments, stdin: .null(writing: false),
                stdout: .file(logPath, flags: O_WRONLY | O_CREAT | O_TRUNC), stderr: .duplicate(1))
        } catch {
            throw ToolError("cannot run \(binary): \(Errno(rawValue: error.rawValue))")
        }
        return StartupChild(pid: pid, logPath: logPath, spawnedNs: spawned)
    }

    func log(_ child: StartupChild) -> String {
        String(decoding: (try? Syscalls.readFile(child.logPath, limit: 16 << 20)) ?? [], as: UTF8.self)
    }

    func waitForLog(_ child: StartupChild, _ text: String, seconds: Double) -> Bool {
        let deadline = Syscalls.monotonicNanoseconds() + UInt64(seconds * 1e9)
        while Syscalls.monotonicNanoseconds() < deadline && child.isRunning {
            if log(child).contains(text) { return true }
            Syscalls.sleep(nanoseconds: 20_000_000)
        }
        return log(child).contains(text)
    }

    /// One run into the FIFO: seconds from spawn to the first PCM bytes and to the first frame file.
    func timedRun() throws -> (pcm: Double?, frame: Double?) {
        try writeConfig(device: "file:'\(fifo)',raw", screen: "png")
        removeFrames()
        try Syscalls.mkdirs(frames)
        unlink(fifo)
        guard mkfifo(fifo, 0o600) == 0 else { throw ToolError("mkfifo \(fifo): \(Errno.current)") }
        let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard reader >= 0 else { throw ToolError("open \(fifo): \(Errno.current)") }
        defer { close(reader) }
        let watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard watch >= 0 else { throw ToolError("inotify_init1: \(Errno.current)") }
        defer { close(watch) }
        guard inotify_add_watch(watch, frames, UInt32(IN_MOVED_TO)) >= 0 else {
            throw ToolError("inotify_add_watch \(frames): \(Errno.current)")
        }
        let child = try spawn(verbose: false)
        var pcmNs: UInt64?
        var frameNs: UInt64?
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let deadline = child.spawnedNs + 20_000_000_000
        var stopping = false
        // Drain the FIFO until the child is gone (it would block writing into a full FIFO).
        while child.isRunning {
            if !stopping && ((pcmNs != nil && frameNs != nil) || Syscalls.monotonicNanoseconds() > deadline) {
                kill(child.pid, SIGTERM)
                stopping = true
            }
            var fds = [
                pollfd(fd: reader, events: Int16(POLLIN), revents: 0),
                pollfd(fd: watch, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&fds, 2, 20)
            let now = Syscalls.monotonicNanoseconds()
            if fds[0].revents & Int16(POLLIN) != 0 {
                if read(reader, &buffer, buffer.count) > 0, pcmNs == nil { pcmNs = now }
            }
            if fds[1].revents & Int16(POLLIN) != 0 {
                if read(watch, &buffer, buffer.count) > 0, frameNs == nil { frameNs = now }
            }
        }
        func seconds(_ t: UInt64?) -> Double? { t.map { Double($0 - child.spawnedNs) / 1e9 } }
        return (seconds(pcmNs), seconds(frameNs))
    }

    /// RSS of a run on the real-time "none" device: while playing (1 s after the first track
    /// started), after the queue ended (the resumed folder plays to its end), and the peak.
    func memoryRun(screen: String, speech: Bool) throws -> (
        playingKiB: Int, idleKiB: Int, peakKiB: Int, whilePlaying: ResidentMemory
    ) {
        try writeConfig(device: "none", screen: screen, speech: speech)
        removeFrames()
        let child = try spawn(verbose: true)
        defer { child.stop() }
        guard waitForLog(child, "track started: ", seconds: 30) else {
            throw ToolError("the memory run did not start playing: \(log(child))")
        }
        Syscalls.sleep(nanoseconds: 1_000_000_000)
        let playing = child.memory.rss
        let whilePlaying = ResidentMemory(pid: child.pid)
        // The resumed folder (20 short tracks) plays out; then the player idles with its catalog.
        let deadline = Syscalls.monotonicNanoseconds() + 60_000_000_000
        while Syscalls.monotonicNanoseconds() < deadline {
            if let state = ResumeState.load(directory: scratch + "/state"), !state.playing { break }
            Syscalls.sleep(nanoseconds: 100_000_000)
        }
        Syscalls.sleep(nanoseconds: 500_000_000)
        let after = child.memory
        return (playing, after.rss, after.peak, whilePlaying)
    }

    /// RSS of a run with no stick (the "none" device), 1.5 s after the start.
    func noStickRun(screen: String) throws -> Int {
        try writeConfig(device: "none", screen: screen)
        removeFrames()
        let child = try spawn(verbose: false, withLibrary: false)
        defer { child.stop() }
        Syscalls.sleep(nanoseconds: 1_500_000_000)
        guard child.isRunning else { throw ToolError("the run with no stick ended early: \(log(child))") }
        return child.memory.rss
    }

    func removeFrames() {
        for entry in (try? Syscalls.readDirectory(frames).entries) ?? [] { unlink(frames + "/" + entry.name) }
    }
}
