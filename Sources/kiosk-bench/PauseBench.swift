// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskCommandLine
import KioskModel
import KioskSystem

extension BenchCommand {
    /// `bench pause`: press → screen for play/pause, with the storage as it is and with every fsync
    /// and fdatasync made `--sync-ms` slower (an SD card at its worst), in alternating runs. The
    /// loop hands durable writes to the state writer (issue 48), so a slow card must not show here;
    /// the syncs made on the loop's own thread are counted too (goal: none).
    static func pause(_ parsed: ParsedArguments) throws -> Int32 {
        let name = "bench pause"
        let presses = parsed.int("--presses") ?? 20
        let rounds = parsed.int("--rounds") ?? 2
        let syncMilliseconds = parsed.int("--sync-ms") ?? 200
        let music = try stormMusic()
        printLine(
            "\(name): \(presses) presses of play/pause per run, \(rounds) rounds; slow storage: every fsync and fdatasync \(syncMilliseconds) ms longer"
        )
        var slowest: UInt64 = 0
        for round in 1...rounds {
            for slow in [false, true] {
                let run = try pauseRun(music: music, presses: presses, syncMilliseconds: slow ? syncMilliseconds : 0)
                let sorted = run.latencies.sorted()
                if slow { slowest = max(slowest, sorted.last ?? 0) }
                printLine(
                    "\(name): round \(round), \(slow ? "slow storage" : "storage as is"): press → screen min \(formatMilliseconds(sorted.first ?? 0)), median \(formatMilliseconds(sorted.isEmpty ? 0 : sorted[sorted.count / 2])), max \(formatMilliseconds(sorted.last ?? 0)) of \(sorted.count) (\(presses - sorted.count) not shown); syncs on the loop's thread \(run.loopSyncs), on the writer's \(run.writerSyncs)"
                )
            }
        }
        printLine("\(name): slowest press → screen with slow storage \(formatMilliseconds(slowest)) (goal < 20 ms)")
        return 0
    }

    private struct PauseRun {
        var latencies: [UInt64] = []
        var loopSyncs = 0
        var writerSyncs = 0
    }

    /// The time a press's playback state reaches the screen (on the loop's thread).
    private final class PlaybackScreen: ScreenOutput {
        private(set) var shownAt: (PlaybackState, UInt64)?

        func show(_ state: ScreenState) {
            guard case .nowPlaying(let shown) = state else { return }
            if shownAt?.0 != shown.playback { shownAt = (shown.playback, Syscalls.monotonicNanoseconds()) }
        }

        func provideArtwork(key: String, loadArtwork: @escaping @Sendable () -> Artwork?) {}
        func helpPageCount(entries: Int) -> Int { 1 }
    }

    /// One run: the collection plays, and every 0.5 s a play/pause press arrives on the loop; the
    /// state writer saves after each (its syncs slowed by `syncMilliseconds`).
    private static func pauseRun(music: String, presses: Int, syncMilliseconds: Int) throws -> PauseRun {
        var template = Array("/tmp/kiosk-bench-pause-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Errno.current.with("mkdtemp") }
        let state = String(cString: made)
        defer { removeTree(state) }
        let screen = PlaybackScreen()
        let served = try BenchServedPlayer(state: state, music: music, screen: screen)
        try served.startServer()
        defer { served.stop() }
        try served.playAllOnRepeat(music)

        let loopThread = pthread_self()
        let syncs = Locked((loop: 0, writer: 0))
        Syscalls.watchDurableSyncs {
            let onLoop = pthread_equal(pthread_self(), loopThread) != 0
            syncs.withLock {
                if onLoop { $0.loop += 1 } else { $0.writer += 1 }
            }
            if syncMilliseconds > 0 { usleep(UInt32(syncMilliseconds) * 1_000) }
        }
        defer { Syscalls.watchDurableSyncs(nil) }
        var run = PauseRun()
        for _ in 0..<presses {
            let before = screen.shownAt?.0
            let pressed = Syscalls.monotonicNanoseconds()
            served.player.handle(ActionEvent(action: .playPause, source: "bench", timestampNs: pressed))
            if let (playback, at) = screen.shownAt, playback != before { run.latencies.append(at - pressed) }
            try served.loop.run(forNanoseconds: 500_000_000)
        }
        (run.loopSyncs, run.writerSyncs) = syncs.withLock { ($0.loop, $0.writer) }
        return run
    }
}
