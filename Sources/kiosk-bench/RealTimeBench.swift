// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskCommandLine
import KioskModel
import KioskSystem

/// `bench realtime`: what playing in real time costs, ours beside MPD's on the same file.
extension BenchCommand {
    /// What the threads of a process have used so far, summed over `/proc/PID/task/*`: the same
    /// reading for this process and for MPD (getrusage cannot look at another process while it
    /// runs). Threads that end between two samples drop out; neither player starts or ends threads
    /// while it plays one queue.
    struct ThreadUsage {
        var cpuNanoseconds: UInt64 = 0
        var voluntarySwitches = 0
        var involuntarySwitches = 0
        var minorFaults = 0
        /// Per thread (to say where the time went).
        var byThread: [(id: String, name: String, cpuNanoseconds: UInt64, switches: Int, faults: Int)] = []

        static func sample(pid: pid_t) -> ThreadUsage {
            var usage = ThreadUsage()
            let base = "/proc/\(pid)/task"
            guard let tasks = try? Syscalls.readDirectory(base).entries else { return usage }
            for task in tasks {
                let dir = "\(base)/\(task.name)"
                // schedstat: run time (ns), wait time (ns), timeslices.
                let schedstat = text(dir + "/schedstat").split(separator: " ")
                let cpu = schedstat.first.flatMap { UInt64($0) } ?? 0
                var voluntary = 0
                var involuntary = 0
                var name = ""
                for line in text(dir + "/status").split(separator: "\n") {
                    if line.hasPrefix("Name:") { name = String(line.dropFirst(5).drop(while: \.isWhitespace)) }
                    if line.hasPrefix("voluntary_ctxt_switches:") {
                        voluntary = Int(line.split(separator: "\t").last ?? "") ?? 0
                    }
                    if line.hasPrefix("nonvoluntary_ctxt_switches:") {
                        involuntary = Int(line.split(separator: "\t").last ?? "") ?? 0
                    }
                }
                // stat: the fields after the name in parentheses; minflt is the 10th field overall.
                let stat = text(dir + "/stat")
                var faults = 0
                if let close = stat.lastIndex(of: ")") {
                    let fields = stat[stat.index(after: close)...].split(separator: " ")
                    faults = fields.count > 7 ? Int(fields[7]) ?? 0 : 0
                }
                usage.cpuNanoseconds += cpu
                usage.voluntarySwitches += voluntary
                usage.involuntarySwitches += involuntary
                usage.minorFaults += faults
                usage.byThread.append((task.name, name, cpu, voluntary + involuntary, faults))
            }
            return usage
        }

        private static func text(_ path: String) -> String {
            guard let bytes = try? Syscalls.readFile(path, limit: 8192) else { return "" }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// What was used between `earlier` and `self`, per thread where both have it (by thread id: a
        /// thread names itself after it starts).
        func since(_ earlier: ThreadUsage) -> ThreadUsage {
            var delta = ThreadUsage(
                cpuNanoseconds: cpuNanoseconds &- earlier.cpuNanoseconds,
                voluntarySwitches: voluntarySwitches - earlier.voluntarySwitches,
                involuntarySwitches: involuntarySwitches - earlier.involuntarySwitches,
                minorFaults: minorFaults - earlier.minorFaults)
            for thread in byThread {
                guard let before = earlier.byThread.first(where: { $0.id == thread.id }) else { continue }
                delta.byThread.append(
                    (
                        thread.id, thread.name, thread.cpuNanoseconds &- before.cpuNanoseconds,
                        thread.switches - before.switches, thread.faults - before.faults
                    ))
            }
            return delta
        }
    }

    /// Plays FILE (repeated to at least `--seconds` of audio, one track per repeat) through the
    /// engine to the paced `none` device, then through MPD to its paced null output, each from
    /// `play` to the end of the queue (so each decodes and plays the same audio once), and prints
    /// each one's CPU %, context switches and minor faults.
    static func realtime(_ parsed: ParsedArguments) throws -> Int32 {
        guard parsed.positionals.count == 1 else {
            throw UsageError(
                command: "bench realtime", message: "give one music file: bench realtime FILE [--seconds N]")
        }
        let file = parsed.positionals[0]
        guard let absolute = realpath(file, nil) else { throw ToolError("\(file): \(Errno.current)") }
        let path = String(cString: absolute)
        free(absolute)
        let decoders = DecoderSet()
        let decoder: any AudioDecoder
        do throws(DecodeError) {
            decoder = try decoders.open(path: path)
        } catch {
            throw ToolError("\(path): \(error)")
        }
        let length = Double(decoder.totalFrames ?? 0) / Double(decoder.format?.sampleRate ?? 1)
        decoder.close()
        guard length > 0 else { throw ToolError("\(path): no length") }
        let repeats = max(1, Int((Double(parsed.int("--seconds") ?? 30) / length).rounded(.up)))
        printLine(
            "bench realtime: \(file) × \(repeats) = \(formatSeconds(length * Double(repeats))) s, from play to the end of the queue, paced null output"
        )
        let ours = try playOurs(path, repeats: repeats)
        printUsage("kiosk-player (device none)", ours)
        for thread in ours.usage.byThread.sorted(by: { $0.cpuNanoseconds > $1.cpuNanoseconds }).prefix(3) {
            printLine(
                "    \(thread.name): \(formatMilliseconds(thread.cpuNanoseconds)) CPU, \(thread.switches) switches, \(thread.faults) minor faults"
            )
        }
        if parsed.has("--no-compare") { return 0 }
        guard access("/usr/bin/mpd", X_OK) == 0 else {
            printLine("  mpd: not installed (apt-get install mpd) — no comparison")
            return 0
        }
        let theirs = try playMPD(path, repeats: repeats)
        printUsage("MPD (null output, sync yes)", theirs)
        let ratio = Double(ours.usage.cpuNanoseconds) / Double(max(1, theirs.usage.cpuNanoseconds))
        printLine("  ratio kiosk-player / MPD: \(formatSeconds(ratio, digits: 2))× CPU (goal ≤ 1×)")
        return 0
    }

    private static func printUsage(_ label: String, _ run: (usage: ThreadUsage, wall: UInt64)) {
        let percent = Double(run.usage.cpuNanoseconds) / Double(max(1, run.wall)) * 100
        printLine(
            "  \(label): \(formatSeconds(percent, digits: 3)) % CPU (\(formatMilliseconds(run.usage.cpuNanoseconds)) in \(formatSeconds(Double(run.wall) / 1e9)) s), context switches \(run.usage.voluntarySwitches) voluntary + \(run.usage.involuntarySwitches) involuntary, \(run.usage.minorFaults) minor faults"
        )
    }

    private static func playOurs(_ path: String, repeats: Int) throws -> (usage: ThreadUsage, wall: UInt64) {
        var settings = AudioSettings()
        settings.device = ClockOutput.deviceName
        settings.realtimePriority = nil
        let tracks = (0..<repeats).map { TrackRequest(id: UInt64($0 + 1), path: path) }
        let playback = try BenchPlayback(settings: settings)
        let before = ThreadUsage.sample(pid: getpid())
        let start = Syscalls.monotonicNanoseconds()
        try playback.playToTheEnd(tracks)
        let wall = Syscalls.monotonicNanoseconds() - start
        let after = ThreadUsage.sample(pid: getpid())
        return (after.since(before), wall)
    }

    /// MPD with a private configuration in a temporary directory (its music directory is the
    /// file's), on a Unix socket; stopped at the end.
    private static func playMPD(_ path: String, repeats: Int) throws -> (usage: ThreadUsage, wall: UInt64) {
        var template = Array("/tmp/kiosk-bench-realtime-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw ToolError("mkdtemp: \(Errno.current)") }
        let scratch = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer {
            for name in ["mpd.conf", "database", "state", "pid", "log", "socket"] { unlink(scratch + "/" + name) }
            rmdir(scratch)
        }
        let slash = path.lastIndex(of: "/")!
        let directory = String(path[..<slash])
        let name = String(path[path.index(after: slash)...])
        let config = """
            music_directory "\(directory)"
            db_file "\(scratch)/database"
            state_file "\(scratch)/state"
            pid_file "\(scratch)/pid"
            log_file "\(scratch)/log"
            bind_to_address "\(scratch)/socket"
            auto_update "no"
            audio_output {
                type "null"
                name "null"
                sync "yes"
                mixer_type "none"
            }

            """
        try AtomicFile.replace(scratch + "/mpd.conf", with: config)
        let pid: pid_t
        do throws(Errno) {
            pid = try Syscalls.spawn(
                "/usr/bin/mpd", arguments: ["--no-daemon", scratch + "/mpd.conf"], stdout: .null(writing: true),
                stderr: .null(writing: true))
        } catch {
            throw ToolError("cannot run mpd: \(Errno(rawValue: error.rawValue))")
        }
        defer {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        var client: MPDClient?
        for _ in 0..<100 where client == nil {
            client = try? MPDClient(path: scratch + "/socket")
            if client == nil { Syscalls.sleep(nanoseconds: 100_000_000) }
        }
        guard let client else { throw ToolError("mpd did not start (see its log)") }
        defer { Syscalls.closeIgnoringErrors(client.fd) }
        _ = try client.command("update")
        for _ in 0..<600 {
            if !(try client.command("status")).contains("updating_db") { break }
            Syscalls.sleep(nanoseconds: 100_000_000)
        }
        for command in ["clear"] + Array(repeating: "add \"\(name)\"", count: repeats) {
            let reply = try client.command(command)
            if reply.hasPrefix("ACK") { throw ToolError("mpd: \(command): \(reply)") }
        }
        let before = ThreadUsage.sample(pid: pid)
        let start = Syscalls.monotonicNanoseconds()
        _ = try client.command("play")
        // `idle player` answers at each change of the player's state: no polling while it plays.
        while !(try client.command("status")).contains("state: stop") {
            _ = try client.command("idle player")
        }
        let wall = Syscalls.monotonicNanoseconds() - start
        let after = ThreadUsage.sample(pid: pid)
        return (after.since(before), wall)
    }

    /// A blocking MPD protocol client: one command at a time, the reply's text.
    private struct MPDClient {
        let fd: Int32

        init(path: String) throws {
            fd = try Syscalls.connectUnix(path: path)
            _ = try reply()  // the greeting
        }

        func command(_ text: String) throws -> String {
            try Syscalls.writeAll(fd, Array((text + "\n").utf8))
            return try reply()
        }

        /// Reads up to "OK\n" or an "ACK" line.
        private func reply() throws -> String {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let text = String(decoding: bytes, as: UTF8.self)
                if text.hasPrefix("OK") && text.hasSuffix("\n") { return text }
                if text.hasSuffix("\nOK\n") || text.contains("ACK ") && text.hasSuffix("\n") { return text }
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { throw ToolError("mpd closed the connection") }
                bytes += chunk[0..<n]
            }
        }
    }
}
