import Glibc
import KioskAudio
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
        /// Per thread name (this process only, to say where the time went).
        var byThread: [(name: String, cpuNanoseconds: UInt64, switches: Int, faults: Int)] = []

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
                usage.byThread.append((name, cpu, voluntary + involuntary, faults))
            }
            return usage
        }

        private static func text(_ path: String) -> String {
            guard let bytes = try? Syscalls.readFile(path, limit: 8192) else { return "" }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// What was used between `earlier` and `self`, per thread by name where both have it.
        func since(_ earlier: ThreadUsage) -> ThreadUsage {
            var delta = ThreadUsage(
                cpuNanoseconds: cpuNanoseconds &- earlier.cpuNanoseconds,
                voluntarySwitches: voluntarySwitches - earlier.voluntarySwitches,
                involuntarySwitches: involuntarySwitches - earlier.involuntarySwitches,
                minorFaults: minorFaults - earlier.minorFaults)
            for thread in byThread {
                guard let before = earlier.byThread.first(where: { $0.name == thread.name }) else { continue }
                delta.byThread.append(
                    (
                        thread.name, thread.cpuNanoseconds &- before.cpuNanoseconds, thread.switches - before.switches,
                        thread.faults - before.faults
                    ))
            }
            return delta
        }
    }

    /// Plays FILE through the engine to the paced `none` device, then MPD to its paced null output
    /// on the same file, each for `--seconds` after `--warm-up`, and prints CPU %, context switches
    /// and minor faults of each.
    static func realtime(_ parsed: ParsedArguments) throws -> Int32 {
        guard parsed.positionals.count == 1 else {
            throw UsageError(
                command: "bench realtime", message: "give one music file: bench realtime FILE [--seconds N]")
        }
        let file = parsed.positionals[0]
        guard let absolute = realpath(file, nil) else { throw ToolError("\(file): \(Errno.current)") }
        let path = String(cString: absolute)
        free(absolute)
        let seconds = parsed.int("--seconds") ?? 30
        let warmUp = parsed.int("--warm-up") ?? 3
        printLine("bench realtime: \(file), \(seconds) s measured after \(warmUp) s of warm-up, paced null output")
        let ours = try playOurs(path, seconds: seconds, warmUp: warmUp)
        printUsage("kiosk-player (device none)", ours, seconds: seconds)
        for thread in ours.byThread.sorted(by: { $0.cpuNanoseconds > $1.cpuNanoseconds }).prefix(4) {
            printLine(
                "    \(thread.name): \(formatMilliseconds(thread.cpuNanoseconds)) CPU, \(thread.switches) switches, \(thread.faults) minor faults"
            )
        }
        if parsed.has("--no-compare") { return 0 }
        guard access("/usr/bin/mpd", X_OK) == 0 else {
            printLine("  mpd: not installed (apt-get install mpd) — no comparison")
            return 0
        }
        let theirs = try playMPD(path, seconds: seconds, warmUp: warmUp)
        printUsage("MPD (null output, sync yes)", theirs, seconds: seconds)
        let ratio = Double(ours.cpuNanoseconds) / Double(max(1, theirs.cpuNanoseconds))
        printLine("  ratio kiosk-player / MPD: \(formatSeconds(ratio, digits: 2))× CPU (goal ≤ 1×)")
        return 0
    }

    private static func printUsage(_ label: String, _ usage: ThreadUsage, seconds: Int) {
        let percent = Double(usage.cpuNanoseconds) / Double(seconds) / 1e7
        printLine(
            "  \(label): \(formatSeconds(percent, digits: 3)) % CPU (\(formatMilliseconds(usage.cpuNanoseconds)) in \(seconds) s), context switches \(usage.voluntarySwitches) voluntary + \(usage.involuntarySwitches) involuntary, \(usage.minorFaults) minor faults"
        )
    }

    private static func playOurs(_ path: String, seconds: Int, warmUp: Int) throws -> ThreadUsage {
        var settings = AudioSettings()
        settings.device = ClockOutput.deviceName
        settings.realtimePriority = nil
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
        let repeats = Int((Double(seconds + warmUp + 5) / length).rounded(.up))
        let tracks = (0..<repeats).map { TrackRequest(id: UInt64($0 + 1), path: path) }
        let loop = try EventLoop()
        var failure: String?
        let engine = try AudioEngine(loop: loop, settings: settings) { [unowned loop] event in
            switch event {
            case .error(_, let path, let message):
                failure = "\(path): \(message)"
                loop.stop()
            case .deviceLost(_, let message):
                failure = message
                loop.stop()
            default:
                break
            }
        }
        engine.setQueue(tracks, startAt: 0, startFrame: 0)
        engine.play()
        try loop.run(forNanoseconds: UInt64(warmUp) * 1_000_000_000)
        let before = ThreadUsage.sample(pid: getpid())
        try loop.run(forNanoseconds: UInt64(seconds) * 1_000_000_000)
        let after = ThreadUsage.sample(pid: getpid())
        engine.shutdown()
        if let failure { throw ToolError(failure) }
        return after.since(before)
    }

    /// MPD with a private configuration in a temporary directory (its music directory is the
    /// file's), on a Unix socket; the file plays on repeat; MPD is stopped at the end.
    private static func playMPD(_ path: String, seconds: Int, warmUp: Int) throws -> ThreadUsage {
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
        for command in ["clear", "add \"\(name)\"", "repeat 1", "play"] {
            let reply = try client.command(command)
            if reply.hasPrefix("ACK") { throw ToolError("mpd: \(command): \(reply)") }
        }
        Syscalls.sleep(nanoseconds: UInt64(warmUp) * 1_000_000_000)
        let before = ThreadUsage.sample(pid: pid)
        Syscalls.sleep(nanoseconds: UInt64(seconds) * 1_000_000_000)
        let after = ThreadUsage.sample(pid: pid)
        guard (try client.command("status")).contains("state: play") else { throw ToolError("mpd stopped playing") }
        return after.since(before)
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
