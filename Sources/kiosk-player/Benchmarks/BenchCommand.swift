import Glibc
import KioskSystem

/// `kiosk-player bench WHAT`: prints performance figures. Each benchmark is one entry of `benchmarks`.
enum BenchCommand {
    struct Benchmark {
        let name: String
        let summary: String
        let run: ([String]) throws -> Int32
    }

    static var benchmarks: [Benchmark] {
        [
            Benchmark(name: "idle", summary: "CPU time of the event loop while nothing happens", run: idle),
            Benchmark(name: "scan", summary: "library scan of a synthetic 10 000-track library", run: scanLibrary),
            Benchmark(name: "render", summary: "screen redraw, framebuffer copy and artwork decode times", run: render),
            Benchmark(name: "gestures", summary: "CPU time per input edge (gestures, encoder, keymap)", run: gestures),
            Benchmark(
                name: "spi", summary: "SPI panel bytes, transfers and bus time per frame and per update", run: spi),
            Benchmark(name: "mpd", summary: "MPD protocol server: command round trips, memory, idle CPU", run: mpd),
        ] + audioBenchmarks + startupBenchmarks + memoryBenchmarks
    }

    static var command: Command {
        let list = benchmarks.map { "  \($0.name.padding(to: 10))\($0.summary)" }.joined(separator: "\n")
        return Command(
            name: "bench",
            summary: "print performance figures",
            help: """
                Usage: kiosk-player bench WHAT [OPTIONS]

                Benchmarks (each prints its figures; run 'kiosk-player bench WHAT --help'):
                \(list)

                """,
            run: { args in
                guard let what = args.first else {
                    throw UsageError(
                        command: "bench",
                        message: "which benchmark? one of: \(benchmarks.map(\.name).joined(separator: ", "))")
                }
                guard let bench = benchmarks.first(where: { $0.name == what }) else {
                    throw UsageError(
                        command: "bench",
                        message:
                            "unknown benchmark '\(what)'; one of: \(benchmarks.map(\.name).joined(separator: ", "))")
                }
                return try bench.run(Array(args.dropFirst()))
            })
    }

    /// Runs an event loop set up like the player's (signals, a wake eventfd, a long timer) for
    /// `--seconds` and prints the CPU time the process used meanwhile.
    static func idle(_ args: [String]) throws -> Int32 {
        let parsed = try ParsedArguments(args, command: "bench idle", options: ["--seconds"])
        let seconds = try parsed.int("--seconds", command: "bench idle", range: 1...600) ?? 5
        let loop = try EventLoop()
        loop.onSignal(SIGINT) { _ in loop.stop() }
        loop.onSignal(SIGTERM) { _ in loop.stop() }
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
