// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskCommandLine
import KioskLibrary
import KioskModel
import KioskSystem
import Synchronization

extension BenchCommand {
    /// `bench storm`: how close the output came to running dry while buttons and MPD clients
    /// stormed the player, against the same playback left alone, in alternating runs (quiet, storm,
    /// quiet, storm), each a fresh player on the same music: the underruns, the longest the output
    /// thread was away from the device between two writes (`AudioEngine.longestOutputAwayNanoseconds`,
    /// its lateness), and the process's CPU.
    static func storm(_ parsed: ParsedArguments) throws -> Int32 {
        let name = "bench storm"
        let seconds = parsed.int("--seconds") ?? 15
        let rounds = parsed.int("--rounds") ?? 2
        let pressesPerSecond = parsed.int("--presses") ?? 50
        let clients = parsed.int("--clients") ?? 4
        var audio = AudioSettings(device: parsed.value("--device") ?? "none")
        if parsed.has("--no-realtime") { audio.realtimePriority = nil }
        let music = try stormMusic()
        printLine(
            "\(name): \(seconds) s per run, \(rounds) rounds; storm: \(pressesPerSecond) presses a second, \(clients) MPD clients; device \(audio.device), buffer \(audio.bufferMs) ms, output thread \(audio.realtimePriority.map { "SCHED_FIFO \($0)" } ?? "normal priority")"
        )
        for round in 1...rounds {
            for storming in [false, true] {
                let run = try stormRun(
                    music: music, audio: audio, seconds: seconds,
                    storm: storming ? (pressesPerSecond, clients) : nil)
                printLine(
                    "\(name): round \(round), \(storming ? "storm" : "quiet"): \(run.presses) presses, \(run.commands) MPD commands, \(run.jumps) seeks and restarts; underruns \(run.underruns); output thread away from the device at most \(formatMilliseconds(run.longestAway)); CPU \(formatMilliseconds(run.cpuNanoseconds))"
                )
            }
        }
        return 0
    }

    private struct StormRun {
        var presses = 0
        var commands = 0
        var jumps: UInt64 = 0
        var underruns: UInt64 = 0
        var longestAway: UInt64 = 0
        var cpuNanoseconds: UInt64 = 0
    }

    /// Twelve 20 s FLAC tracks in three albums, generated once under /var/tmp.
    static func stormMusic() throws -> String {
        var layout = SyntheticLibrary.Layout()
        layout.albums = 3
        layout.tracksPerAlbum = 4
        layout.secondsPerTrack = 20
        layout.playlists = 0
        let root = "/var/tmp/kiosk-player-bench-storm"
        let marker = root + "/.kiosk-synthetic-library"
        let description = "v1 \(layout)"
        if (try? Syscalls.readFile(marker, limit: 4096)).map({ String(decoding: $0, as: UTF8.self) }) != description {
            guard !Syscalls.exists(root) || Syscalls.exists(marker) else {
                throw ToolError("\(root) exists and is not a generated library; remove it")
            }
            removeTree(root)
            try SyntheticLibrary.generate(at: root, layout: layout)
            try SyntheticLibrary.writeFile(path: marker, bytes: Array(description.utf8))
        }
        return root
    }

    /// One run: the whole collection plays on repeat for `seconds`; with `storm`, presses arrive on
    /// the loop at the given rate (mostly the knob and browsing, now and then a skip, a seek or a
    /// pause and its resume) while the clients ask for status, the queue and the song, and set the
    /// volume, as fast as the server answers.
    private static func stormRun(
        music: String, audio: AudioSettings, seconds: Int, storm: (pressesPerSecond: Int, clients: Int)?
    ) throws -> StormRun {
        var template = Array("/tmp/kiosk-bench-storm-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Errno.current.with("mkdtemp") }
        let state = String(cString: made)
        defer { removeTree(state) }
        let served = try BenchServedPlayer(state: state, music: music, audio: audio)
        try served.startServer()
        defer { served.stop() }
        try served.playAllOnRepeat(music)
        let engine = served.engine

        var run = StormRun()
        let stop = Atomic<Bool>(false)
        let commands = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        var presses: TimerID?
        var threads: [KioskThread] = []
        if let storm {
            var random = SystemRandomNumberGenerator()
            // Weighted like a child at the box: the knob and browsing most, skips and pauses now and then.
            let actions: [Action] = [
                .volumeUp, .volumeDown, .volumeUp, .volumeDown, .up, .down, .nextCategory, .previousCategory,
                .next, .previous, .seekForward, .playPause, .playPause,
            ]
            let interval = max(1, 1000 / max(1, storm.pressesPerSecond))
            presses = served.loop.schedule(afterMilliseconds: interval, repeatingMilliseconds: interval) {
                let action = actions.randomElement(using: &random)!
                served.player.handle(
                    ActionEvent(action: action, source: "bench", timestampNs: Syscalls.monotonicNanoseconds()))
                run.presses += 1
            }
            let path = served.socketPath
            for index in 0..<storm.clients {
                threads.append(
                    try KioskThread(name: "bench-storm-\(index)") {
                        defer { finished.add(1, ordering: .releasing) }
                        guard let client = BenchMPDClient(path: path) else { return }
                        let asks = ["status", "playlistinfo", "currentsong", "status", "volume +2", "volume -2"]
                        var turn = index
                        while !stop.load(ordering: .relaxed) {
                            client.command(asks[turn % asks.count])
                            turn += 1
                            commands.add(1, ordering: .relaxed)
                        }
                    })
            }
        }
        let jumpsBefore = served.player.positionJumps
        let underrunsBefore = engine.underruns
        let cpuBefore = Syscalls.processCPUNanoseconds()
        try served.loop.run(forNanoseconds: UInt64(seconds) * 1_000_000_000)
        run.cpuNanoseconds = Syscalls.processCPUNanoseconds() - cpuBefore
        if let presses { served.loop.cancel(presses) }
        stop.store(true, ordering: .relaxed)
        // The clients each wait for an answer: the loop serves them until they are gone.
        let clientCount = threads.count
        _ = try served.loop.run(
            until: { finished.load(ordering: .acquiring) == clientCount }, timeoutNanoseconds: 10_000_000_000)
        for thread in threads { thread.join() }
        run.commands = commands.load(ordering: .relaxed)
        run.jumps = served.player.positionJumps - jumpsBefore
        run.underruns = engine.underruns - underrunsBefore
        run.longestAway = engine.longestOutputAwayNanoseconds
        return run
    }
}
