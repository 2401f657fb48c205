// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskCommandLine
import KioskConfig
import KioskCore
import KioskDisplay
import KioskHardware
import KioskSystem

/// `kiosk-bench spi`: what the SPI panels of the board profiles cost per frame: bytes,
/// transfers and bus time (bytes × 8 at the panel's clock) for a full frame and for the
/// now-playing screen's once-a-second update (averages over `--iterations` seconds of playing),
/// plus the CPU time of converting (event-loop thread) and sending (worker thread, here into a
/// recording transport, so the real bus and driver time is not in it).
extension BenchCommand {
    static func spi(_ parsed: ParsedArguments) throws -> Int32 {
        let iterations = parsed.int("--iterations") ?? 100
        let boards = parsed.value("--board").map { [$0] } ?? ["pirate-audio", "waveshare-144", "pitft28"]
        let fonts = try FontSet.load()
        let renderer = ScreenRenderer(fonts: fonts)
        for board in boards {
            let profile = try BoardProfile.load(name: board, extraDirectory: nil)
            guard let panel = profile.screen.spiPanel else {
                printLine("bench spi: \(board): the profile has no SPI panel")
                continue
            }
            try spiPanel(board: board, panel: panel, renderer: renderer, iterations: iterations)
        }
        return 0
    }

    private static func spiPanel(
        board: String, panel: SPIPanelDescription, renderer: ScreenRenderer, iterations: Int
    ) throws {
        let transport = RecordingSPITransport(
            maxTransferBytes: SpidevDevice.bufferSize(), hasReset: panel.reset != nil, keepEvents: false)
        let surface = try SPIPanelSurface(panel: panel, transport: transport, maxFramesPerSecond: 1000)
        defer { surface.restore() }
        let size = Size(width: surface.width, height: surface.height)
        let cover = SampleScreens.artwork(size: 600).resized(.fill(ScreenLayout.nowPlayingArtworkSize(size)))
        let lookup: ScreenRenderer.ArtworkLookup = { _, _ in cover }
        let canvas = Canvas(width: size.width, height: size.height)
        let previous = Canvas(width: size.width, height: size.height)
        var state = SampleScreens.nowPlaying
        renderer.render(.nowPlaying(state), on: canvas, artwork: lookup)
        surface.flush()
        let name = "\(board) \(panel.controller.name) \(panel.width)x\(panel.height)"
        printLine(
            "bench spi: \(name) at \(mhz(panel.speedHz)), transfers ≤ \(transport.maxTransferBytes) bytes, commands at \(mhz(min(panel.speedHz, 10_000_000)))"
        )

        /// Averages per frame since the last reset of the statistics.
        func report(_ what: String, presentNs: UInt64, frames: Int) {
            let stats = surface.statistics
            let n = max(1, stats.frames)
            let t = stats.total
            func avg(_ v: Int) -> String {
                v % n == 0 ? "\(v / n)" : String(Double(v * 10 / n) / 10)
            }
            printLine(
                "bench spi:   \(what): \(avg(t.bytes)) bytes (\(avg(t.pixelBytes)) pixel + \(avg(t.commandBytes)) command) in \(avg(t.windows)) window(s), \(avg(t.transfers)) transfers, \(avg(t.lineChanges)) DC changes, bus \(formatMilliseconds(t.busNanoseconds / UInt64(n))); CPU: convert \(formatMilliseconds(presentNs / UInt64(frames))) (loop), send \(formatMilliseconds(stats.sendNanoseconds / UInt64(n))) (worker)"
            )
        }

        // A full frame, as after start or a screen change.
        var presentNs: UInt64 = 0
        surface.resetStatistics()
        for _ in 0..<iterations {
            let start = Syscalls.monotonicNanoseconds()
            try surface.present(canvas, damage: [canvas.bounds])
            presentNs += Syscalls.monotonicNanoseconds() - start
            surface.flush()
        }
        report("full frame", presentNs: presentNs, frames: iterations)

        // The once-a-second update while playing: elapsed and remaining time, progress bar.
        presentNs = 0
        surface.resetStatistics()
        var damagePixels = 0
        for i in 0..<iterations {
            previous.copy(from: canvas)
            state.elapsedSeconds = 83 + Double((i + 1) % 150)
            renderer.render(.nowPlaying(state), on: canvas, artwork: lookup)
            let damage = canvas.changedRects(comparedTo: previous)
            damagePixels += damage.reduce(0) { $0 + $1.area }
            let start = Syscalls.monotonicNanoseconds()
            try surface.present(canvas, damage: damage)
            presentNs += Syscalls.monotonicNanoseconds() - start
            surface.flush()
        }
        report(
            "now-playing tick (time + progress bar, \(damagePixels / iterations) px changed on average)",
            presentNs: presentNs,
            frames: iterations)

        // The progress bar alone (its fill one pixel longer), the smallest regular update.
        let layout = NowPlayingLayout(size: size)
        let bar = layout.progress
        func drawBar(_ filled: Int) {
            // From the background up, as a full redraw does (anti-aliased ends blend only once).
            canvas.fill(bar, renderer.theme.background)
            canvas.drawProgressBar(
                bar, fraction: Double(filled) / Double(bar.width), track: renderer.theme.track,
                fill: renderer.theme.accent)
        }
        drawBar(0)
        try surface.present(canvas, damage: [bar])
        surface.flush()
        presentNs = 0
        surface.resetStatistics()
        let steps = min(iterations, bar.width - 1)
        for i in 0..<steps {
            previous.copy(from: canvas)
            drawBar(i + 1)
            let damage = canvas.changedRects(comparedTo: previous)
            let start = Syscalls.monotonicNanoseconds()
            try surface.present(canvas, damage: damage)
            presentNs += Syscalls.monotonicNanoseconds() - start
            surface.flush()
        }
        report("progress bar only (one pixel longer)", presentNs: presentNs, frames: steps)
    }

    private static func mhz(_ hz: Int) -> String {
        hz % 1_000_000 == 0 ? "\(hz / 1_000_000) MHz" : "\(Double(hz / 100_000) / 10) MHz"
    }
}
