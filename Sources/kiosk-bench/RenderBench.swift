// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskCommandLine
import KioskDisplay
import KioskSystem

/// `kiosk-bench render`: the display's costs per frame and per cover.
extension BenchCommand {
    static func render(_ parsed: ParsedArguments) throws -> Int32 {
        let iterations = parsed.int("--iterations") ?? 300
        let fonts = try FontSet.load()
        let size = Size(width: 320, height: 240)
        let renderer = ScreenRenderer(fonts: fonts)
        let artSize = ScreenLayout.nowPlayingArtworkSize(size)
        let cover = SampleScreens.artwork(size: 600).resized(.fill(artSize))
        let lookup: ScreenRenderer.ArtworkLookup = { _, _ in cover }
        let canvas = Canvas(width: size.width, height: size.height)
        let previous = Canvas(width: size.width, height: size.height)
        var state = SampleScreens.nowPlaying

        /// Average and best time of `body` over `count` runs, after a warm-up run.
        func measure(_ count: Int, _ body: (Int) throws -> Void) rethrows -> (average: UInt64, best: UInt64) {
            try body(-1)
            var total: UInt64 = 0
            var best = UInt64.max
            for i in 0..<count {
                let start = Syscalls.monotonicNanoseconds()
                try body(i)
                let elapsed = Syscalls.monotonicNanoseconds() - start
                total += elapsed
                best = min(best, elapsed)
            }
            return (total / UInt64(count), best)
        }
        func line(_ what: String, _ t: (average: UInt64, best: UInt64), _ extra: String = "") {
            printLine(
                "bench render: \(what): \(formatMilliseconds(t.average)) average, \(formatMilliseconds(t.best)) best\(extra)"
            )
        }

        // 1. The whole now-playing screen drawn from its state.
        let redraw = measure(iterations) { i in
            state.elapsedSeconds = 83 + Double(max(0, i) % 100)
            renderer.render(.nowPlaying(state), on: canvas, artwork: lookup)
        }
        line("full now-playing redraw 320x240", redraw, " (goal ≤ 5 ms per frame)")

        // 2. Conversion + copy into framebuffer memory (a file mapped like /dev/fbN).
        let dir = "/tmp/kiosk-bench-\(getpid())"
        try Syscalls.mkdirs(dir)
        defer {
            _ = unlink("\(dir)/fb565")
            _ = unlink("\(dir)/fb8888")
            _ = rmdir(dir)
        }
        func surface(_ name: String, _ layout: FramebufferLayout) throws -> FramebufferSurface {
            let path = "\(dir)/\(name)"
            try AtomicFile.replace(path, with: [UInt8](repeating: 0, count: layout.memoryLength))
            return try FramebufferSurface(fd: try FileDescriptor.open(path, O_RDWR), layout: layout, device: path)
        }
        let quiet = Log.quiet
        Log.quiet = true
        let fb565 = try surface("fb565", .rgb565(width: 320, height: 240))
        let fb8888 = try surface("fb8888", .xrgb8888(width: 320, height: 240))
        Log.quiet = quiet
        let full = [canvas.bounds]
        line(
            "RGB565 dithered conversion + copy, full frame",
            try measure(iterations) { _ in try fb565.present(canvas, damage: full) })
        line("XRGB8888 copy, full frame", try measure(iterations) { _ in try fb8888.present(canvas, damage: full) })

        // 3. What the display does once a second while playing: redraw, diff, copy the damage.
        var damagePixels = 0
        let tick = try measure(iterations) { i in
            previous.copy(from: canvas)
            state.elapsedSeconds = 83 + Double(max(0, i + 1) % 150)
            renderer.render(.nowPlaying(state), on: canvas, artwork: lookup)
            let damage = canvas.changedRects(comparedTo: previous)
            damagePixels = damage.reduce(0) { $0 + $1.area }
            try fb565.present(canvas, damage: damage)
        }
        line("one-second update (redraw + diff + RGB565 damage copy)", tick, ", \(damagePixels) of 76800 pixels copied")

        // 4. Artwork: a 1500×1500 cover decoded and scaled to the screen's size.
        // Gradients, a pattern and grain, so the file is about as large as a photographed cover.
        var rgb = [UInt8](repeating: 0, count: 1500 * 1500 * 3)
        var seed: UInt32 = 1
        for y in 0..<1500 {
            for x in 0..<1500 {
                let i = 3 * (y * 1500 + x)
                seed = seed &* 1_664_525 &+ 1_013_904_223
                let grain = Int(seed >> 27) - 16
                rgb[i] = UInt8(clamping: x / 6 + grain)
                rgb[i + 1] = UInt8(clamping: y / 6 - grain)
                rgb[i + 2] = UInt8(clamping: Int((x ^ y) & 0xFF) / 2 + grain)
            }
        }
        let jpeg = try ImageEncoder.jpeg(rgb, width: 1500, height: 1500, quality: 90)
        let progressive = try ImageEncoder.jpeg(rgb, width: 1500, height: 1500, quality: 90, progressive: true)
        let png = try ImageEncoder.png(rows: rgb, width: 1500, height: 1500, format: PNGFormat(colorType: .rgb))
        let covers = max(3, iterations / 30)
        for target in [artSize, Size(width: 240, height: 240)] {
            line(
                "decode + scale 1500x1500 JPEG (\(jpeg.count / 1024) KB) to \(target)",
                try measure(covers) { _ in _ = try ImageDecoder.decode(jpeg, target: .fill(target)) })
        }
        line(
            "decode + scale 1500x1500 progressive JPEG to \(artSize)",
            try measure(covers) { _ in _ = try ImageDecoder.decode(progressive, target: .fill(artSize)) })
        line(
            "decode + scale 1500x1500 PNG (\(png.count / 1024) KB) to \(artSize)",
            try measure(covers) { _ in _ = try ImageDecoder.decode(png, target: .fill(artSize)) })
        return 0
    }
}
