// SPDX-License-Identifier: GPL-3.0-or-later
import KioskDisplay
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// The display's frame pacing and screen sleep, on an SPI panel surface over a recording
/// transport (so sleep and wake are seen as the panel would see them).
@Suite(.tags(.integration), .serialized, .enabled(if: TestFonts.available, Comment(rawValue: TestFonts.missingReason)))
struct DisplayPowerAndPacingTests {
    struct Fixture {
        let loop: EventLoop
        let rig: PanelRig
        let display: Display

        init() throws {
            loop = try EventLoop()
            rig = try PanelRig(try boardPanel("pirate-audio"), nativelyInverted: true, maxFramesPerSecond: 60)
            display = try Display(loop: loop, surface: rig.surface, fonts: try TestFonts.load())
        }

        func finish() { display.shutdown() }
    }

    func paused(_ elapsed: Double) -> ScreenState {
        var state = SampleScreens.nowPlaying
        state.playback = .paused
        state.artworkKey = nil
        state.elapsedSeconds = elapsed
        return .nowPlaying(state)
    }

    @Test func changesFasterThanTheFrameIntervalAreDrawnTogether() throws {
        let f = try Fixture()
        defer { f.finish() }
        // Well above one frame's drawing time, also under qemu-user (a debug build draws a frame in
        // ~0.3 s there): the interval counts from the start of presenting a frame, not its end.
        f.display.minimumFrameNanoseconds = 1_500_000_000
        f.display.show(paused(10))
        #expect(f.display.framesPresented == 1)
        f.display.show(paused(11))
        f.display.show(paused(12))
        #expect(f.display.framesPresented == 1, "too soon: waits for the interval")
        try f.loop.run(until: { f.display.framesPresented == 2 }, timeoutNanoseconds: 5_000_000_000)
        try f.loop.run(forNanoseconds: 300_000_000)
        #expect(f.display.framesPresented == 2, "the two changes became one frame")
        let expected = Canvas(width: 240, height: 240)
        f.display.renderer.render(paused(12), on: expected)
        #expect(difference(Array(f.display.currentFrame.pixels), Array(expected.pixels)) == nil)
        let simulator = try f.rig.decode()
        #expect(difference(f.rig.shown(simulator), Reference.panelImage(expected, rotation: 270, dither: true)) == nil)
    }

    @Test func screenSleepsWhenIdleAndInputWakesIt() throws {
        let f = try Fixture()
        defer { f.finish() }
        f.display.show(paused(10))
        f.display.idleOffNanoseconds = 100_000_000
        try f.loop.run(until: { f.display.isAsleep }, timeoutNanoseconds: 5_000_000_000)
        #expect(f.display.isAsleep)
        var simulator = try f.rig.decode()
        #expect(simulator.asleep && !simulator.displayOn && simulator.backlight == false)

        // Nothing is drawn while asleep.
        let frames = f.display.framesPresented
        f.display.show(paused(20))
        #expect(f.display.framesPresented == frames)

        // Input wakes it and draws what changed meanwhile.
        f.display.noteActivity()
        #expect(!f.display.isAsleep)
        #expect(f.display.framesPresented == frames + 1)
        simulator = try f.rig.decode()
        #expect(simulator.isShowing && simulator.backlight == true)
        let expected = Canvas(width: 240, height: 240)
        f.display.renderer.render(paused(20), on: expected)
        #expect(difference(f.rig.shown(simulator), Reference.panelImage(expected, rotation: 270, dither: true)) == nil)

        // Activity keeps it awake; idleness puts it to sleep again.
        try f.loop.run(until: { f.display.isAsleep }, timeoutNanoseconds: 5_000_000_000)
        #expect(f.display.isAsleep)
    }

    /// Exhibit mode outside its opening hours: `.off` turns the panel and its backlight off, the
    /// next screen turns them on, drawn.
    @Test func anOffScreenTurnsThePanelOffAndTheNextScreenOn() throws {
        let f = try Fixture()
        defer { f.finish() }
        f.display.show(.exhibit(SampleScreens.exhibitAttract))
        var simulator = try f.rig.decode()
        #expect(simulator.isShowing && simulator.backlight == true)
        f.display.show(.off)
        try f.loop.run(forNanoseconds: 100_000_000)
        simulator = try f.rig.decode()
        #expect(simulator.asleep && !simulator.displayOn && simulator.backlight == false)
        #expect(!f.display.isAsleep, "dark by its state, not idle sleep")

        f.display.noteActivity()
        try f.loop.run(forNanoseconds: 100_000_000)
        simulator = try f.rig.decode()
        #expect(simulator.backlight == false, "a press while closed leaves it dark")

        f.display.show(.exhibit(SampleScreens.exhibitAttract))
        try f.loop.run(forNanoseconds: 100_000_000)
        simulator = try f.rig.decode()
        #expect(simulator.isShowing && simulator.backlight == true)
        let expected = Canvas(width: 240, height: 240)
        f.display.renderer.render(.exhibit(SampleScreens.exhibitAttract), on: expected)
        #expect(difference(f.rig.shown(simulator), Reference.panelImage(expected, rotation: 270, dither: true)) == nil)
    }

    @Test func shutdownWhileAsleepLeavesThePanelOff() throws {
        let f = try Fixture()
        f.display.show(paused(10))
        f.display.idleOffNanoseconds = 50_000_000
        try f.loop.run(until: { f.display.isAsleep }, timeoutNanoseconds: 5_000_000_000)
        f.display.shutdown()
        var simulator = PanelSimulator(glass: f.rig.glass)
        simulator.feed(f.rig.transport.events)
        simulator.finish()
        #expect(simulator.problems.isEmpty)
        #expect(simulator.asleep && simulator.backlight == false)
    }
}
