// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskCommandLine
import KioskSystem

/// `kiosk-bench WHAT`: prints performance figures. Each benchmark is one entry of `benchmarks`. A
/// program apart from `kiosk-player`, so the appliance's binary carries none of this code; it is built
/// beside it (`swift build --product kiosk-bench`) and never packaged.
///
/// Thread: the main thread.
enum BenchCommand {
    static var tool: CommandLineTool {
        CommandLineTool(
            program: "kiosk-bench", headline: "performance figures of kiosk-player (docs/performance.md).",
            commands: benchmarks)
    }

    /// The benchmarks, each with its options (all of them optional: defaults give the figures
    /// docs/performance.md quotes).
    static var benchmarks: [Command] {
        let library = CommandOption.text(
            "--library", "DIR", "the synthetic library (default: generated once under /var/tmp)")
        let benchmarks: [Command] = [
            Command(
                name: "idle", summary: "CPU time of the event loop while nothing happens",
                description: "Runs an event loop set up like the player's and prints the CPU time it used.\n",
                options: [.integer("--seconds", "N", 1...600, "how long to idle (default 5)")], run: idle),
            Command(
                name: "scan", summary: "library scan of a synthetic 10 000-track library",
                description: """
                    Times a full scan of a synthetic library into a fresh index, the background playability
                    pass after it, a rescan with nothing changed and a rescan after 1 % of the files were
                    rewritten; prints the index size and RSS.

                    """,
                options: [
                    library, .integer("--tracks", "N", 20...200_000, "tracks in the library (default 10 000)"),
                    .integer("--threads", "N", 1...16, "reader threads (default: the scanner's)"),
                    .flag("--cold", "drop the page cache before each scan (needs root)"),
                    .flag(
                        "--decode-in-scan",
                        "decode each FLAC file's first frame in the scan (the way before the background playability pass)"
                    ),
                    .flag(
                        "--mixed",
                        "half FLAC, 30 % MP3, 10 % M4A, 10 % Ogg Vorbis/Opus (made with flac, lame, ffmpeg, oggenc, opusenc)"
                    ),
                ],
                run: scanLibrary),
            Command(
                name: "render", summary: "screen redraw, framebuffer copy and artwork decode times",
                description: "Draws the screens at 320x240 and prints the time per frame and per cover.\n",
                options: [.integer("--iterations", "N", 1...100_000, "frames per figure (default 300)")], run: render),
            Command(
                name: "gestures", summary: "CPU time per input edge (gestures, encoder, keymap)",
                description: "Feeds recorded-style edges through the gesture engine and the whole input path.\n",
                options: [.integer("--edges", "N", 1000...100_000_000, "edges to feed (default 1 000 000)")],
                run: gestures),
            Command(
                name: "spi", summary: "SPI panel bytes, transfers and bus time per frame and per update",
                description: "What the SPI panels of the board profiles cost per full frame and per update.\n",
                options: [
                    .integer("--iterations", "N", 1...10_000, "seconds of playing to average over (default 100)"),
                    .text("--board", "NAME", "only this board profile"),
                ],
                run: spi),
            Command(
                name: "mpd", summary: "MPD protocol server: command round trips, memory, idle CPU",
                description: """
                    The MPD server on a synthetic library: round trips of common commands, a full
                    listallinfo, the memory of 8 connected clients and the CPU they use in idle.

                    """,
                options: [library, .integer("--tracks", "N", 100...100_000, "tracks in the library (default 10 000)")],
                run: mpd),
            Command(
                name: "decode", summary: "decode CPU and RSS vs the format's reference decoder (FILE)",
                synopsis: ["FILE [OPTIONS]"],
                description:
                    "Decodes FILE (any format) in-process and with its reference decoder (flac -d, mpg123, oggdec, opusdec, ffmpeg, sox); prints CPU per minute of audio and RSS.\n",
                options: [.integer("--seconds", "N", 1...3600, "at least this much audio (default 60)")], run: decode),
            Command(
                name: "play", summary: "engine playback CPU, RSS, steady-state allocations (FILE...)",
                synopsis: ["FILE... [OPTIONS]"],
                description: """
                    Plays the files through the engine; prints CPU per minute of audio, RSS and the
                    steady-state allocation and lock counts, and the CPU of each file's reference
                    decoder (flac -d, mpg123, oggdec, opusdec, ffmpeg, sox) with the ratio.

                    """,
                options: [
                    .integer("--seconds", "N", 1...3600, "at least this much audio (default 60)"),
                    .text("--device", "PCM", "ALSA device (default \"null\": not paced)"),
                    .flag("--no-compare", "do not run the reference decoders"),
                ],
                run: play),
            Command(
                name: "realtime", summary: "CPU %, context switches and faults playing in real time, vs MPD (FILE)",
                synopsis: ["FILE [OPTIONS]"],
                description: """
                    Plays FILE (repeated, one track a time) through the engine to the paced "none"
                    device, then through MPD (/usr/bin/mpd, null output with sync) from play to the end
                    of the queue; prints each one's CPU %, context switches and minor faults.

                    """,
                options: [
                    .integer("--seconds", "N", 1...3600, "at least this much audio (default 30)"),
                    .flag("--no-compare", "do not run MPD"),
                ],
                run: realtime),
            Command(
                name: "storm", summary: "the output thread's lateness while buttons and MPD clients storm the player",
                description: """
                    Plays a generated collection on repeat through the player, its engine and its MPD
                    server, alternately left alone and stormed (presses on the loop, MPD clients asking as
                    fast as answered); prints each run's underruns, the longest the output thread was away
                    from the device between two writes, and the CPU used.

                    """,
                options: [
                    .integer("--seconds", "N", 1...3600, "length of each run (default 15)"),
                    .integer("--rounds", "N", 1...100, "quiet and storm runs, alternated (default 2 of each)"),
                    .integer("--presses", "N", 1...1000, "presses a second in a storm (default 50)"),
                    .integer("--clients", "N", 0...64, "MPD clients in a storm (default 4)"),
                    .text("--device", "NAME", "output device (default none: paced by the clock)"),
                    .flag("--no-realtime", "the output thread at normal priority (default SCHED_FIFO 70)"),
                ],
                run: storm),
            Command(
                name: "pause", summary: "press → screen for play/pause, storage as is and with slow syncs",
                description: """
                    Plays a generated collection through the player with a screen and presses play/pause
                    every 0.5 s, in alternating runs with the storage as it is and with every fsync and
                    fdatasync made slower (an SD card at its worst); prints min/median/max of press →
                    screen and the syncs made on the loop's thread (goal: none) and the writer's.

                    """,
                options: [
                    .integer("--presses", "N", 1...1000, "presses per run (default 20)"),
                    .integer("--rounds", "N", 1...100, "runs of each kind, alternated (default 2)"),
                    .integer("--sync-ms", "N", 1...10_000, "how much slower each sync is (default 200)"),
                ],
                run: pause),
            Command(
                name: "startup", summary: "exec → first PCM frame and first frame drawn; RSS",
                description: "Starts 'kiosk-player run' as systemd does and times the first sound and frame.\n",
                options: [
                    .text("--library", "DIR", "the library (default: a 10 000-track one under /var/tmp)"),
                    .integer("--runs", "N", 1...50, "starts to time (default 5)"),
                ],
                run: startup),
            Command(
                name: "memory", summary: "bytes the library holds: scan result and catalog",
                description: "What the library holds in memory for a 10 000-track stick after a start.\n",
                options: [.text("--library", "DIR", "the library (default: a 10 000-track one under /var/tmp)")],
                run: libraryMemory),
            Command(
                name: "speech", summary: "spoken prompt: request → first sample, cold and cached; RSS",
                description: "Speaks a prompt twice through the engine (espeak-ng loaded by the first).\n",
                options: [
                    .text("--text", "TEXT", "what to say (default: the card-linking prompt)"),
                    .text("--language", "VOICE", "espeak-ng voice (default en)"),
                    .text("--device", "PCM", "ALSA device (default \"null\": not paced)"),
                ],
                run: speech),
            Command(
                name: "exhibit", summary: "exhibit mode: press → first sample of the clip, median and worst",
                description: """
                    Plays an attract loop in exhibit mode (the real player, library and engine) and presses
                    a clip's button at random moments; prints the time from each press to the clip's first
                    sample at the device.

                    """,
                options: [
                    .integer("--presses", "N", 1...10_000, "presses to time (default 100)"),
                    .text("--device", "PCM", "ALSA device (default \"none\": paced like a card, silent)"),
                ],
                run: exhibit),
        ]
        return benchmarks
    }

    /// Runs an event loop set up like the player's (signals, a wake eventfd, a long timer) for
    /// `--seconds` and prints the CPU time the process used meanwhile.
    static func idle(_ parsed: ParsedArguments) throws -> Int32 {
        let seconds = parsed.int("--seconds") ?? 5
        let loop = try EventLoop()
        // [unowned loop]: the loop keeps these closures, which must not keep it (a cycle at exit).
        loop.onSignal(SIGINT) { [unowned loop] _ in loop.stop() }
        loop.onSignal(SIGTERM) { [unowned loop] _ in loop.stop() }
        // A far-off timer, as the player has (resume-state save, watchdog): it must not cause wake-ups.
        loop.schedule(afterMilliseconds: 3_600_000) {}
        let cpuBefore = Syscalls.processCPUNanoseconds()
        let wallBefore = Syscalls.monotonicNanoseconds()
        try loop.run(forNanoseconds: UInt64(seconds) * 1_000_000_000)
        let cpu = Syscalls.processCPUNanoseconds() - cpuBefore
        let wall = Syscalls.monotonicNanoseconds() - wallBefore
        printLine(
            "bench idle: event loop idle for \(formatMilliseconds(wall)) wall, \(formatMilliseconds(cpu)) CPU (goal < 10 ms per 5 s)"
        )
        return 0
    }
}

/// "12.345 ms" from nanoseconds.
func formatMilliseconds(_ nanoseconds: UInt64) -> String {
    let micro = nanoseconds / 1000
    let ms = micro / 1000
    let frac = micro % 1000
    return "\(ms).\(String(repeating: "0", count: 3 - String(frac).count))\(frac) ms"
}
