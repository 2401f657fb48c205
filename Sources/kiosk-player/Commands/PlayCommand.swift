// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskCommandLine
import KioskLibrary
import KioskModel
import KioskSystem

/// `kiosk-player play FILE… [--device PCM]`: plays files back to back through the audio engine.
enum PlayCommand {
    static var command: Command {
        Command(
            name: "play",
            summary:
                "play music files (FLAC, MP3, AAC and ALAC in M4A, Ogg Vorbis, Opus, WAV, AIFF) through the audio engine",
            synopsis: [
                "FILE... [--device PCM] [--volume PERCENT] [--buffer-ms N]",
                "                  [--realtime PRIORITY|off] [--replay-gain track|album] [--progress] [--loop-stall]",
            ],
            description: """
                Plays the files back to back (gapless when their formats match) and prints a line
                when each starts. Files that cannot be played are reported and skipped; the exit
                status is then 1. The device is any ALSA PCM name (default: "default"), or "none"
                for silent playback in real time.

                """,
            options: [
                .text("--device", "PCM", "ALSA PCM, e.g. hw:1,0, plughw:CARD=DAC, file:'out.raw',raw, none"),
                .integer("--volume", "PERCENT", 0...100, "0…100 (software volume; 100 = bit-perfect), default 100"),
                .integer("--buffer-ms", "N", 40...100, "device buffer, 40…100 ms, default 60"),
                .integer(
                    "--realtime", "P|off", 1...99, or: ["off"], "SCHED_FIFO priority of the output thread, default 70"),
                .choice(
                    "--replay-gain", "MODE", ["track", "album"],
                    "play each file at its ReplayGain (track or album gain, clipping prevented by its peak)"),
                .flag("--progress", "also print the position about every second"),
                .flag(
                    "--loop-stall",
                    "at the end, print the event loop's longest stall (a 10 ms timer's lateness), a check on the audio threads"
                ),
            ],
            run: run)
    }

    /// The scale `path` plays at with `settings` (1 when off, or when the file cannot be read: the
    /// engine then reports it).
    static func gain(of path: String, _ settings: ReplayGainSettings) -> Float {
        guard settings.mode != .off else { return 1 }
        guard case .playable(let info, _) = MusicFileReader().read(path: path) else { return 1 }
        return settings.scale(for: info.replayGain, queueIsAlbum: false)
    }

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        guard !parsed.positionals.isEmpty else {
            throw parsed.usageError("which files? give one or more music files")
        }
        var settings = AudioSettings()
        settings.device = parsed.value("--device") ?? "default"
        settings.bufferMs = parsed.int("--buffer-ms") ?? 60
        let volume = parsed.int("--volume") ?? 100
        if parsed.value("--realtime") == "off" {
            settings.realtimePriority = nil
        } else if let priority = parsed.int("--realtime") {
            settings.realtimePriority = Int32(priority)
        }
        let files = parsed.positionals
        let replayGain = ReplayGainSettings(
            mode: parsed.value("--replay-gain").flatMap(ReplayGainMode.init(rawValue:)) ?? .off)
        let tracks = files.enumerated().map {
            TrackRequest(id: UInt64($0.offset + 1), path: $0.element, gain: gain(of: $0.element, replayGain))
        }
        let progress = parsed.has("--progress")

        let loop = try EventLoop()
        var failed: [String] = []
        var deviceFailure: String?
        var finished = false
        var lastProgress: Int64 = -1
        var interrupted = false
        // [unowned loop]: the engine and the loop keep these closures, which must not keep the loop.
        let engine = try AudioEngine(loop: loop, settings: settings) { [unowned loop] event in
            switch event {
            case .trackStarted(let id, let format, let total, _):
                let index = Int(id) - 1
                let length = total.map { " " + formatDuration(frames: $0, rate: format.sampleRate) } ?? ""
                printLine(TerminalText.escaped("[\(index + 1)/\(files.count)] \(files[index]) (\(format)\(length))"))
            case .error(_, let path, let message):
                failed.append(path)
                CommandLineTool.writeErr("kiosk-player play: cannot play '\(path)': \(message)\n")
            case .deviceLost(let device, let message):
                deviceFailure = message.hasPrefix(device) ? message : "\(device): \(message)"
                loop.stop()
            case .queueFinished:
                finished = true
                loop.stop()
            case .formatChanged(_, let deviceFormat):
                printLine("  device \(settings.device): \(deviceFormat)")
            case .position(_, let frames, let rate):
                let second = frames / Int64(max(1, rate))
                if progress && second != lastProgress {
                    lastProgress = second
                    printLine("  \(formatDuration(frames: frames, rate: rate))")
                }
            case .trackFinished, .deviceBack:
                break
            }
        }
        defer { engine.shutdown() }
        loop.onSignal(SIGINT) { [unowned loop] _ in
            interrupted = true
            loop.stop()
        }
        loop.onSignal(SIGTERM) { [unowned loop] _ in
            interrupted = true
            loop.stop()
        }
        // The loop's responsiveness while the audio threads work: how late a 10 ms timer fires.
        var longestStall: UInt64 = 0
        if parsed.has("--loop-stall") {
            var due = loop.nowNanoseconds &+ 10_000_000
            loop.schedule(afterNanoseconds: 10_000_000, repeating: 10_000_000) { [unowned loop] in
                let now = loop.nowNanoseconds
                longestStall = max(longestStall, now &- min(now, due))
                due = now &+ 10_000_000
            }
        }
        engine.setVolume(volume)
        engine.setQueue(tracks, startAt: 0, startFrame: 0)
        engine.play()
        try loop.run()
        engine.shutdown()
        if parsed.has("--loop-stall") {
            printLine("loop: longest stall \(longestStall / 1_000_000) ms (a 10 ms timer's lateness)")
        }

        if let deviceFailure {
            throw ToolError("audio device failed: \(deviceFailure)")
        }
        if interrupted { return 130 }
        if !failed.isEmpty {
            CommandLineTool.writeErr(
                "kiosk-player play: \(failed.count) of \(files.count) files could not be played: "
                    + failed.map { "'\($0)'" }.joined(separator: ", ") + "\n")
            return 1
        }
        return finished ? 0 : 1
    }
}

/// "3:25" (or "1:02:03") from frames at `rate`.
func formatDuration(frames: Int64, rate: Int) -> String {
    let seconds = frames / Int64(max(1, rate))
    let h = seconds / 3600
    let m = (seconds / 60) % 60
    let s = seconds % 60
    let ss = s < 10 ? "0\(s)" : "\(s)"
    if h > 0 { return "\(h):\(m < 10 ? "0" : "")\(m):\(ss)" }
    return "\(m):\(ss)"
}
