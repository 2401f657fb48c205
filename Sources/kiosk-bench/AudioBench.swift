// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskCommandLine
import KioskModel
import KioskSystem

/// `bench decode` and `bench play`: decoding and playback cost, side by side with each format's
/// reference decoder (`flac -d`, mpg123, oggdec, opusdec, ffmpeg, sox).
extension BenchCommand {
    /// What one measured run cost.
    struct Cost {
        var cpuNanoseconds: UInt64
        var peakRSSBytes: Int
    }

    /// The reference command-line decoder of each format, writing PCM to stdout.
    static func referenceDecoder(_ format: AudioFileFormat, file: String) -> (program: String, arguments: [String])? {
        switch format {
        case .flac: ("flac", ["-d", "-c", file])
        case .mp3: ("mpg123", ["-q", "-e", "s32", "-s", file])
        case .oggVorbis: ("oggdec", ["-Q", "-R", "-o", "-", file])
        case .opus: ("opusdec", ["--quiet", file, "-"])
        case .mp4: ("ffmpeg", ["-v", "error", "-i", file, "-f", "s32le", "-"])
        case .wav, .aiff: ("sox", ["-D", file, "-t", "raw", "-"])
        case .oggFLAC: nil
        }
    }

    /// Decodes `FILE` in-process repeatedly (at least `--seconds` of audio) and runs the format's
    /// reference decoder as often, then prints CPU per minute of audio, RSS and the ratio.
    static func decode(_ parsed: ParsedArguments) throws -> Int32 {
        guard parsed.positionals.count == 1 else {
            throw UsageError(command: "bench decode", message: "give one music file: bench decode FILE [--seconds N]")
        }
        let file = parsed.positionals[0]
        let minimumSeconds = parsed.int("--seconds") ?? 60
        let decoders = DecoderSet()
        let decoder: any AudioDecoder
        let kind: AudioFileFormat
        do throws(DecodeError) {
            kind = try decoders.identify(path: file)
            decoder = try decoders.open(path: file)
        } catch {
            throw ToolError("\(file): \(error)")
        }
        guard let format = decoder.format else { throw ToolError("\(file): no format") }
        // Count the frames once (the header may not say).
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 65536 * 32, alignment: 16)
        defer { buffer.deallocate() }
        let frames = try decodeAll(decoder, file: file, buffer: buffer)
        let seconds = Double(frames) / Double(format.sampleRate)
        guard frames > 0 else { throw ToolError("\(file): no audio") }
        let repeats = max(1, Int((Double(minimumSeconds) / seconds).rounded(.up)))

        let cpuBefore = kiosk_thread_cpu_ns_value()
        for _ in 0..<repeats {
            do throws(DecodeError) {
                try decoder.open(path: file)
            } catch {
                throw ToolError("\(file): \(error)")
            }
            _ = try decodeAll(decoder, file: file, buffer: buffer)
        }
        let ours = Cost(
            cpuNanoseconds: kiosk_thread_cpu_ns_value() - cpuBefore, peakRSSBytes: Syscalls.peakResidentBytes())
        let audioSeconds = seconds * Double(repeats)
        printLine(
            "bench decode: \(file) (\(format), \(formatSeconds(seconds)) s) × \(repeats) = \(formatSeconds(audioSeconds)) s of audio"
        )
        printCost("kiosk-player \(type(of: decoder))", ours, audioSeconds: audioSeconds)
        guard let reference = referenceDecoder(kind, file: file) else { return 0 }
        try compare(with: reference, label: kind.name, repeats: repeats, ours: ours, audioSeconds: audioSeconds)
        return 0
    }

    private static func decodeAll(_ decoder: any AudioDecoder, file: String, buffer: UnsafeMutableRawPointer) throws
        -> Int
    {
        guard let format = decoder.format else { return 0 }
        var frameBytes = format.channels * format.ringEncoding.bytes
        var total = 0
        while true {
            switch decoder.decode(into: RingBuffer.Regions(buffer, frames: 65536 * 32 / frameBytes)) {
            case .frames(let n): total += n
            case .formatChange(let next): frameBytes = next.channels * next.ringEncoding.bytes
            case .endOfStream:
                decoder.close()
                return total
            case .failed(let error):
                decoder.close()
                throw ToolError("\(file): \(error)")
            }
        }
    }

    /// Plays FILE... through the engine (default device "null": ALSA, not paced) at least
    /// `--seconds` of audio, and prints CPU per minute of audio, peak RSS, RSS while playing and the
    /// steady-state allocation/lock counts (when Benchmarks/kiosk_alloc_counter.c is preloaded).
    static func play(_ parsed: ParsedArguments) throws -> Int32 {
        guard !parsed.positionals.isEmpty else {
            throw UsageError(
                command: "bench play", message: "give music files: bench play FILE... [--device PCM] [--seconds N]")
        }
        let files = parsed.positionals
        let minimumSeconds = parsed.int("--seconds") ?? 60
        var settings = AudioSettings()
        settings.device = parsed.value("--device") ?? "null"
        settings.realtimePriority = nil

        // Length of one pass over the files.
        var passSeconds = 0.0
        let decoders = DecoderSet()
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 65536 * 32, alignment: 16)
        defer { buffer.deallocate() }
        for file in files {
            let decoder: any AudioDecoder
            do throws(DecodeError) {
                decoder = try decoders.open(path: file)
            } catch {
                throw ToolError("\(file): \(error)")
            }
            let rate = decoder.format?.sampleRate ?? 1
            passSeconds += Double(try decodeAll(decoder, file: file, buffer: buffer)) / Double(rate)
        }
        guard passSeconds > 0 else { throw ToolError("no audio in \(files.joined(separator: ", "))") }
        let repeats = max(1, Int((Double(minimumSeconds) / passSeconds).rounded(.up)))
        var tracks: [TrackRequest] = []
        for pass in 0..<repeats {
            for (i, file) in files.enumerated() {
                tracks.append(TrackRequest(id: UInt64(pass * files.count + i + 1), path: file))
            }
        }

        let playback = try BenchPlayback(settings: settings)
        var playingRSS = 0
        playback.onPosition = { playingRSS = max(playingRSS, Syscalls.residentBytes()) }
        let cpuBefore = Syscalls.processCPUNanoseconds()
        let wallBefore = Syscalls.monotonicNanoseconds()
        try playback.playToTheEnd(tracks)
        playback.engine.shutdown()
        let cpu = Syscalls.processCPUNanoseconds() - cpuBefore
        let wall = Syscalls.monotonicNanoseconds() - wallBefore

        let audioSeconds = passSeconds * Double(repeats)
        let ours = Cost(cpuNanoseconds: cpu, peakRSSBytes: Syscalls.peakResidentBytes())
        printLine(
            "bench play: \(files.count) file(s) × \(repeats) = \(formatSeconds(audioSeconds)) s of audio to '\(settings.device)' in \(formatSeconds(Double(wall) / 1e9)) s"
        )
        printCost("kiosk-player engine (all threads)", ours, audioSeconds: audioSeconds)
        printLine("  RSS while playing: \(formatMegabytes(playingRSS))")
        let counts = playback.engine.steadyStateCounts
        if counts.counting {
            printLine(
                "  steady state: decoder \(counts.decoderIterations) iterations, \(counts.decoderAllocations) allocations, \(counts.decoderLocks) locks, \(counts.decoderFaults) page faults; output \(counts.outputIterations) iterations, \(counts.outputAllocations) allocations, \(counts.outputLocks) locks, \(counts.outputFaults) page faults; decoder thread allocations in all \(counts.decoderAllocationsTotal)"
            )
        } else {
            printLine(
                "  steady state: not measured (preload the counter built from Benchmarks/kiosk_alloc_counter.c)")
        }
        if !parsed.has("--no-compare") {
            try compareWithReferences(
                files: files, decoders: decoders, repeats: repeats, ours: ours, audioSeconds: audioSeconds)
        }
        return 0
    }

    private static func printCost(_ label: String, _ cost: Cost, audioSeconds: Double) {
        let cpu = Double(cost.cpuNanoseconds) / 1e9
        let padded = label.count < 36 ? label + String(repeating: " ", count: 36 - label.count) : label
        printLine(
            "  \(padded) \(formatSeconds(cpu, digits: 3)) s CPU = \(formatSeconds(cpu * 60 / audioSeconds, digits: 4)) s per minute of audio, peak RSS \(formatMegabytes(cost.peakRSSBytes))"
        )
    }

    /// Runs `flac -d -c FILE > /dev/null` `repeats` times for each file and prints its cost and the
    /// ratio of `ours` to it.
    /// Runs the reference decoder `repeats` times and prints its cost and the ratio to ours.
    private static func compare(
        with reference: (program: String, arguments: [String]), label: String, repeats: Int, ours: Cost,
        audioSeconds: Double
    ) throws {
        guard let program = findProgram(reference.program) else {
            printLine("  \(reference.program): not installed — no comparison")
            return
        }
        var total = Cost(cpuNanoseconds: 0, peakRSSBytes: 0)
        for pass in 0..<repeats {
            let cost = try measureChild(program, reference.arguments, measureRSS: pass == 0)
            total.cpuNanoseconds += cost.cpuNanoseconds
            total.peakRSSBytes = max(total.peakRSSBytes, cost.peakRSSBytes)
        }
        printCost(
            "\(reference.program) \(reference.arguments.dropLast().joined(separator: " ")) > /dev/null", total,
            audioSeconds: audioSeconds)
        let ratio = Double(ours.cpuNanoseconds) / Double(max(1, total.cpuNanoseconds))
        printLine("  ratio kiosk-player / \(reference.program) (\(label)): \(formatSeconds(ratio, digits: 2))× CPU")
    }

    /// Runs each file's reference decoder (`flac -d` for FLAC, …) `repeats` times and prints their
    /// cost and the ratio of `ours` to it.
    private static func compareWithReferences(
        files: [String], decoders: DecoderSet, repeats: Int, ours: Cost, audioSeconds: Double
    ) throws {
        var runs: [(program: String, arguments: [String])] = []
        var names: [String] = []
        for file in files {
            let kind: AudioFileFormat
            do throws(DecodeError) {
                kind = try decoders.identify(path: file)
            } catch {
                throw ToolError("\(file): \(error)")
            }
            guard let reference = referenceDecoder(kind, file: file), let program = findProgram(reference.program)
            else {
                printLine("  \(file): no reference decoder installed for \(kind.name) — no comparison")
                return
            }
            runs.append((program, reference.arguments))
            if !names.contains(reference.program) { names.append(reference.program) }
        }
        var total = Cost(cpuNanoseconds: 0, peakRSSBytes: 0)
        for pass in 0..<repeats {
            for run in runs {
                let cost = try measureChild(run.program, run.arguments, measureRSS: pass == 0)
                total.cpuNanoseconds += cost.cpuNanoseconds
                total.peakRSSBytes = max(total.peakRSSBytes, cost.peakRSSBytes)
            }
        }
        let label = names.joined(separator: " + ")
        printCost("\(label) FILE > /dev/null", total, audioSeconds: audioSeconds)
        let ratio = Double(ours.cpuNanoseconds) / Double(max(1, total.cpuNanoseconds))
        let goal = names == ["flac"] ? " (goal ≤ 1.1×)" : ""
        printLine("  ratio kiosk-player / \(label): \(formatSeconds(ratio, digits: 2))× CPU\(goal)")
    }

    /// Runs a program with stdout and stderr to /dev/null; returns its CPU time and peak RSS.
    ///
    /// CPU comes from wait4 (microseconds). The peak RSS comes from a second run under GNU time
    /// (/usr/bin/time, Debian package "time"), because a child started straight from this process
    /// inherits this process's RSS high-water mark at exec, so wait4's ru_maxrss would show ours.
    /// Without GNU time the figure is wait4's (an upper bound).
    private static func measureChild(_ program: String, _ arguments: [String], measureRSS: Bool) throws -> Cost {
        var cost = try spawnAndWait(program, arguments).cost
        if !measureRSS { cost.peakRSSBytes = 0 }
        let timeTool = "/usr/bin/time"
        guard measureRSS, access(timeTool, X_OK) == 0 else { return cost }
        var template = Array("/tmp/kiosk-bench-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        if fd < 0 { throw ToolError("mkstemp: \(Errno.current)") }
        Syscalls.closeIgnoringErrors(fd)
        let report = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(report) }
        _ = try spawnAndWait(timeTool, ["-f", "%M", "-o", report, program] + arguments)
        let text = String(decoding: try Syscalls.readFile(report, limit: 4096), as: UTF8.self)
        guard let kilobytes = text.split(whereSeparator: { $0 == "\n" }).compactMap({ Int($0) }).last else {
            throw ToolError("unexpected output of \(timeTool): \(text)")
        }
        cost.peakRSSBytes = kilobytes * 1024
        return cost
    }

    private static func spawnAndWait(_ program: String, _ arguments: [String]) throws -> (status: Int32, cost: Cost) {
        let pid: pid_t
        do throws(Errno) {
            pid = try Syscalls.spawn(
                program, arguments: arguments, stdout: .null(writing: true), stderr: .null(writing: true))
        } catch {
            throw ToolError("cannot run \(program): \(Errno(rawValue: error.rawValue))")
        }
        var status: Int32 = 0
        var usage = rusage()
        do throws(Errno) {
            _ = try Syscalls.retrying("wait for \(program)") { wait4(pid, &status, 0, &usage) }
        } catch {
            throw ToolError("\(error)")
        }
        if status != 0 { throw ToolError("\(program) \(arguments.joined(separator: " ")) failed (status \(status))") }
        let cpu =
            UInt64(usage.ru_utime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_utime.tv_usec) * 1000
            + UInt64(usage.ru_stime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_stime.tv_usec) * 1000
        return (status, Cost(cpuNanoseconds: cpu, peakRSSBytes: usage.ru_maxrss * 1024))
    }
}

private func findProgram(_ name: String) -> String? {
    let path = Syscalls.environment("PATH") ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") where access("\(directory)/\(name)", X_OK) == 0 {
        return "\(directory)/\(name)"
    }
    return nil
}

/// CPU time of the calling thread in nanoseconds.
private func kiosk_thread_cpu_ns_value() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// "12.3" with `digits` decimals.
func formatSeconds(_ value: Double, digits: Int = 1) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int((value * scale).rounded())
    let whole = scaled / Int(scale)
    let fraction = String(abs(scaled) % Int(scale))
    let padded = String(repeating: "0", count: max(0, digits - fraction.count)) + fraction
    return digits == 0 ? "\(whole)" : "\(scaled < 0 && whole == 0 ? "-" : "")\(whole).\(padded)"
}

/// "9.8 MB".
func formatMegabytes(_ bytes: Int) -> String {
    "\(formatSeconds(Double(bytes) / 1_048_576, digits: 1)) MB"
}
