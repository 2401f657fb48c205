// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskDisplay
import KioskSystem
import KioskTestSupport
import Synchronization
import Testing

/// The display object on a real event loop, drawing into a file-backed framebuffer.
@Suite(.tags(.integration), .serialized, .enabled(if: TestFonts.available, Comment(rawValue: TestFonts.missingReason)))
struct DisplayTests {
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
        func bump() { value.wrappingAdd(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    struct Fixture {
        let dir: TemporaryDirectory
        let loop: EventLoop
        let surface: FramebufferSurface
        let display: Display
        let layout: FramebufferLayout

        init(width: Int = 240, height: Int = 240) throws {
            dir = try TemporaryDirectory()
            loop = try EventLoop()
            layout = FramebufferLayout.xrgb8888(width: width, height: height)
            try dir.write("fb", [UInt8](repeating: 0, count: layout.memoryLength))
            surface = try FramebufferSurface(fd: try FileDescriptor.open(dir.file("fb"), O_RDWR), layout: layout)
            display = try Display(loop: loop, surface: surface, fonts: try TestFonts.load())
        }

        /// The colour on the "screen" (the backing file).
        func screen(x: Int, y: Int) throws -> Color {
            let bytes = try Syscalls.readFile(dir.file("fb"))
            let i = y * layout.lineLength + x * 4
            return Color(red: bytes[i + 2], green: bytes[i + 1], blue: bytes[i])
        }

        func finish() {
            display.shutdown()
            dir.remove()
        }
    }

    @Test func showingTheSameStateAgainDrawsNothing() throws {
        let f = try Fixture()
        defer { f.finish() }
        var state = SampleScreens.nowPlaying
        state.playback = .paused
        f.display.show(.nowPlaying(state))
        #expect(f.display.framesPresented == 1)
        f.display.show(.nowPlaying(state))
        #expect(f.display.framesPresented == 1)
        // A fraction of a second later: the same whole second is shown.
        state.elapsedSeconds += 0.4
        f.display.show(.nowPlaying(state))
        #expect(f.display.framesPresented == 1)
        state.elapsedSeconds += 1
        f.display.show(.nowPlaying(state))
        #expect(f.display.framesPresented == 2)
        f.display.show(.message(SampleScreens.insertStick))
        #expect(f.display.framesPresented == 3)
    }

    @Test func playingAdvancesTheClockOnItsOwnAndPausedDoesNot() throws {
        let f = try Fixture()
        defer { f.finish() }
        var state = SampleScreens.nowPlaying
        state.artworkKey = nil
        f.display.show(.nowPlaying(state))
        #expect(f.display.framesPresented == 1)
        let advanced = try f.loop.run(until: { f.display.framesPresented >= 3 }, timeoutNanoseconds: 5_000_000_000)
        #expect(advanced, "two more frames within a few seconds while playing")

        state.playback = .paused
        f.display.show(.nowPlaying(state))
        let frames = f.display.framesPresented
        try f.loop.run(forNanoseconds: 1_300_000_000)
        #expect(f.display.framesPresented == frames, "no redraws while paused")
    }

    @Test func volumeOverlayDisappearsByItself() throws {
        let f = try Fixture()
        defer { f.finish() }
        f.display.overlayNanoseconds = 50_000_000
        var state = SampleScreens.nowPlaying
        state.playback = .paused
        state.artworkKey = nil
        f.display.show(.nowPlaying(state))
        let panel = NowPlayingLayout(size: Size(width: 240, height: 240)).volumePanel
        let without = try f.screen(x: panel.x + 3, y: panel.centerY)
        state.volumeOverlay = 55
        f.display.show(.nowPlaying(state))
        #expect(try f.screen(x: panel.x + 3, y: panel.centerY) == f.display.renderer.theme.panel)
        // Still set in the state, but it times out.
        try f.loop.run(until: { f.display.framesPresented == 3 }, timeoutNanoseconds: 3_000_000_000)
        #expect(try f.screen(x: panel.x + 3, y: panel.centerY) == without)
        // Showing the same value again does not bring it back; a new value does.
        f.display.show(.nowPlaying(state))
        #expect(f.display.framesPresented == 3)
        state.volumeOverlay = 60
        f.display.show(.nowPlaying(state))
        #expect(f.display.framesPresented == 4)
    }

    @Test func artworkIsDecodedOnTheWorkerOnceAndDrawnWhenItArrives() throws {
        let f = try Fixture()
        defer { f.finish() }
        let loads = Counter()
        let jpeg = try ImageEncoder.jpeg(solidRGB(width: 600, height: 600, 0x20, 0xC0, 0x40), width: 600, height: 600)
        f.display.provideArtwork(key: "album-7") {
            loads.bump()
            return jpeg
        }
        var state = SampleScreens.nowPlaying
        state.playback = .paused
        state.artworkKey = "album-7"
        f.display.show(.nowPlaying(state))
        let art = NowPlayingLayout(size: Size(width: 240, height: 240)).artwork
        #expect(try f.screen(x: art.x + 2, y: art.centerY) == f.display.renderer.theme.panel, "placeholder first")
        let arrived = try f.loop.run(until: { f.display.framesPresented == 2 }, timeoutNanoseconds: 5_000_000_000)
        #expect(arrived)
        #expect(channelDistance(try f.screen(x: art.centerX, y: art.centerY), Color(rgb: 0x20C040)) <= 6)
        // Away and back: drawn from the cache, not loaded again.
        f.display.show(.message(SampleScreens.scanning))
        f.display.show(.nowPlaying(state))
        try f.loop.run(forNanoseconds: 100_000_000)
        #expect(loads.count == 1)
        #expect(f.display.cachedArtworkCount == 1)
        #expect(channelDistance(try f.screen(x: art.centerX, y: art.centerY), Color(rgb: 0x20C040)) <= 6)
    }

    @Test func undecodableArtworkKeepsThePlaceholderAndIsLogged() throws {
        let f = try Fixture()
        defer { f.finish() }
        let messages = Locked<[String]>([])
        let token = Log.addObserver { _, text in messages.withLock { $0.append(text) } }
        defer { Log.removeObserver(token) }
        let loads = Counter()
        f.display.provideArtwork(key: "broken") {
            loads.bump()
            return [0xFF, 0xD8, 0xFF, 0x00, 0x01, 0x02]
        }
        var state = SampleScreens.nowPlaying
        state.playback = .paused
        state.artworkKey = "broken"
        f.display.show(.nowPlaying(state))
        try f.loop.run(
            until: { messages.withLock { $0.contains { $0.hasPrefix("artwork broken:") } } },
            timeoutNanoseconds: 5_000_000_000)
        #expect(messages.withLock { $0.contains { $0.contains("artwork broken: corrupt JPEG image") } })
        f.display.show(.message(SampleScreens.scanning))
        f.display.show(.nowPlaying(state))
        try f.loop.run(forNanoseconds: 100_000_000)
        #expect(loads.count == 1, "a failure is remembered")
        let art = NowPlayingLayout(size: Size(width: 240, height: 240)).artwork
        #expect(try f.screen(x: art.x + 2, y: art.centerY) == f.display.renderer.theme.panel)
    }

    @Test func shutdownClearsTheScreen() throws {
        let f = try Fixture()
        defer { f.dir.remove() }
        f.display.show(.message(SampleScreens.insertStick))
        #expect(try f.screen(x: 5, y: 5) == f.display.renderer.theme.background)
        f.display.shutdown()
        #expect(try f.screen(x: 5, y: 5) == Color(rgb: 0))
        f.display.show(.message(SampleScreens.scanning))
        #expect(try f.screen(x: 5, y: 5) == Color(rgb: 0), "nothing is drawn after shutdown")
    }
}
