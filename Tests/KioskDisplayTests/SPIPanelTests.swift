// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskDisplay
import KioskSystem
import KioskTestSupport
import Testing

/// The panel of a board profile in boards/, parsed as the player parses it.
func boardPanel(_ board: String) throws -> SPIPanelDescription {
    let file = "\(TestPaths.repository)/boards/\(board).json"
    let profile = try JSONReader.parse(try Syscalls.readFile(file), file: file)
    let screen = try #require(try profile.object("screen"))
    let panel = try #require(try screen.object("panel"))
    return try SPIPanelDescription(panel)
}

/// A canvas where neighbouring pixels differ (a misplaced pixel shows), deterministic.
func noiseCanvas(width: Int, height: Int, seed: UInt32 = 1) -> Canvas {
    let canvas = Canvas(width: width, height: height)
    var state = seed
    for i in 0..<(width * height) {
        state = state &* 1_664_525 &+ 1_013_904_223
        canvas.pixels[i] = 0xFF00_0000 | (state >> 8)
    }
    return canvas
}

/// A surface on a recording transport, and the panel rebuilt from what it sent.
struct PanelRig {
    let panel: SPIPanelDescription
    let transport: RecordingSPITransport
    let surface: SPIPanelSurface
    let glass: PanelSimulator.Glass

    init(
        _ panel: SPIPanelDescription, nativelyInverted: Bool = false, bgrSubpixels: Bool = false,
        maxTransferBytes: Int = 4096, maxFramesPerSecond: Int = 60, extraRotation: Int = 0
    ) throws {
        self.panel = panel
        transport = RecordingSPITransport(
            maxTransferBytes: maxTransferBytes, hasReset: panel.reset != nil, hasBacklight: panel.backlight != nil)
        surface = try SPIPanelSurface(
            panel: panel, transport: transport, extraRotation: extraRotation, maxFramesPerSecond: maxFramesPerSecond)
        glass = PanelSimulator.Glass(
            memoryWidth: panel.controller.memoryWidth, memoryHeight: panel.controller.memoryHeight,
            nativelyInverted: nativelyInverted, bgrSubpixels: bgrSubpixels)
    }

    /// Waits for the worker and decodes everything sent so far.
    func decode() throws -> PanelSimulator {
        #expect(surface.flush(), "the worker finished sending")
        var simulator = PanelSimulator(glass: glass, maxTransferBytes: transport.maxTransferBytes)
        simulator.feed(transport.events)
        simulator.finish()
        #expect(simulator.problems.isEmpty, "\(simulator.problems.prefix(5))")
        return simulator
    }

    /// What the glass shows in the panel's window.
    func shown(_ simulator: PanelSimulator) -> [UInt16] {
        simulator.shownWindow(x: panel.xOffset, y: panel.yOffset, width: panel.width, height: panel.height)
    }
}

@Suite struct SPIPanelDescriptionTests {
    @Test func boardProfilesDescribeTheirPanels() throws {
        let pirate = try boardPanel("pirate-audio")
        #expect(pirate.controller.name == "st7789")
        #expect(pirate.devicePath == "/dev/spidev0.1")
        #expect(pirate.dc == 9 && pirate.backlight == 13 && pirate.reset == nil)
        #expect(pirate.invert && pirate.speedHz == 80_000_000)
        #expect(pirate.madctlValue == 0x70)
        #expect(pirate.canvasSize() == Size(width: 240, height: 240))

        let waveshare = try boardPanel("waveshare-144")
        #expect(waveshare.controller.name == "st7735s")
        #expect(waveshare.devicePath == "/dev/spidev0.0")
        #expect(waveshare.dc == 25 && waveshare.reset == 27 && waveshare.backlight == 24)
        #expect(waveshare.madctlValue == 0x68)
        #expect(waveshare.xOffset == 1 && waveshare.yOffset == 2)

        let pitft = try boardPanel("pitft28")
        #expect(pitft.controller.name == "ili9341")
        #expect(pitft.madctlValue == 0x48)
        #expect(pitft.canvasSize() == Size(width: 320, height: 240))
        #expect(pitft.canvasSize(extraRotation: 90) == Size(width: 240, height: 320))
    }

    func parse(_ json: String) throws(ConfigError) -> SPIPanelDescription {
        let reader = try JSONReader.parse(Array(json.utf8), file: "board.json")
        return try SPIPanelDescription(reader)
    }

    @Test func initSequenceFromTheProfileReplacesTheControllers() throws {
        let panel = try parse(
            #"{"controller": "st7789", "width": 240, "height": 240, "dc": 9, "init": ["01", "delay 150", "0xB2 0C 0c 00 33 33", "3A 05"], "madctl": "0x70"}"#
        )
        #expect(
            panel.controller.initSequence == [
                PanelCommand(0x01, delayMs: 150), PanelCommand(0xB2, [0x0C, 0x0C, 0x00, 0x33, 0x33]),
                PanelCommand(0x3A, [0x05]),
            ])
        #expect(panel.madctlValue == 0x70)
    }

    @Test(arguments: [
        (
            #"{"controller": "st7789", "width": 240, "height": 240, "dc": 9, "colour": 1}"#,
            "board.json: colour: unknown key"
        ),
        (#"{"controller": "st7790", "width": 240, "height": 240, "dc": 9}"#, "board.json: controller: expected one of"),
        (#"{"controller": "st7789", "width": 240, "height": 240}"#, "board.json: dc: required"),
        (
            #"{"controller": "st7735s", "width": 128, "height": 128, "dc": 25, "xOffset": 40}"#,
            "does not fit the st7735s's 162×132 frame memory (MADCTL exchanges rows and columns)"
        ),
        (
            #"{"controller": "st7789", "width": 240, "height": 240, "dc": 9, "init": ["36 7G"]}"#,
            "board.json: init[0]: \"7G\" is not a hex byte"
        ),
        (
            #"{"controller": "st7789", "width": 240, "height": 240, "dc": 9, "init": ["delay 5"]}"#,
            "board.json: init[0]: a delay must follow a command"
        ),
        (
            #"{"controller": "st7789", "width": 240, "height": 240, "dc": 9, "rotation": 45}"#,
            "board.json: rotation: expected 0, 90, 180 or 270"
        ),
        (
            #"{"controller": "st7789", "width": 240, "height": 240, "dc": 9, "madctl": "0x170"}"#,
            "board.json: madctl: expected a byte"
        ),
    ])
    func badPanelsAreClearErrors(json: String, message: String) {
        do {
            _ = try parse(json)
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test func screenProfileParsesItsPanel() throws {
        let reader = try JSONReader.parse(
            Array(#"{"type": "spi", "panel": {"controller": "ili9341", "width": 240, "height": 320, "dc": 25}}"#.utf8),
            file: "b.json")
        let profile = try ScreenProfile(reader)
        #expect(profile.spiPanel?.controller.name == "ili9341")
        let bad = try JSONReader.parse(
            Array(#"{"type": "spi", "panel": {"controller": "ili9341", "width": 240, "height": 320}}"#.utf8),
            file: "b.json")
        #expect(throws: ConfigError.self) { try ScreenProfile(bad) }
    }
}

@Suite struct SPIPanelSurfaceTests {
    /// Every profile's panel, on a glass with the vendor's properties: what the glass shows is the
    /// canvas, turned and reduced to RGB565.
    @Test(arguments: [
        ("pirate-audio", true, false),  // IPS ST7789: needs INVON
        ("waveshare-144", false, true),  // ST7735S glass with BGR sub-pixels
        ("pitft28", false, true),  // ILI9341 module with BGR sub-pixels
    ])
    func panelShowsTheCanvas(board: String, nativelyInverted: Bool, bgrSubpixels: Bool) throws {
        let rig = try PanelRig(try boardPanel(board), nativelyInverted: nativelyInverted, bgrSubpixels: bgrSubpixels)
        defer { rig.surface.restore() }
        let canvas = noiseCanvas(width: rig.surface.width, height: rig.surface.height)
        try rig.surface.present(canvas, damage: [canvas.bounds])
        let simulator = try rig.decode()
        #expect(simulator.isShowing)
        #expect(simulator.backlight == (rig.panel.backlight != nil ? true : nil), "no backlight line: never driven")
        #expect(simulator.resets == (rig.panel.reset != nil ? 1 : 0))
        let expected = Reference.panelImage(canvas, rotation: rig.panel.rotation, dither: true)
        #expect(difference(rig.shown(simulator), expected) == nil)
    }

    @Test(arguments: [0, 90, 180, 270])
    func everyRotationAndTheScreensOwnRotationOnTop(extra: Int) throws {
        var panel = try boardPanel("pitft28")  // 240×320, itself turned by 90
        panel.dither = false
        let rig = try PanelRig(panel, bgrSubpixels: true, extraRotation: extra)
        defer { rig.surface.restore() }
        let canvas = noiseCanvas(width: rig.surface.width, height: rig.surface.height, seed: UInt32(extra + 7))
        try rig.surface.present(canvas, damage: [canvas.bounds])
        let simulator = try rig.decode()
        #expect(rig.surface.rotation == (90 + extra) % 360)
        #expect(
            difference(rig.shown(simulator), Reference.panelImage(canvas, rotation: (90 + extra) % 360, dither: false))
                == nil)
    }

    /// The same bytes pimoroni/st7789-python sends for the same picture on a Pirate Audio:
    /// `numpy.rot90(image, 1)` (counter-clockwise, our 270), RGB565 by dropping low bits, big-endian,
    /// one full window at offset 0 after MADCTL 0x70 and INVON.
    @Test func pirateAudioFrameMatchesPimoronisDriver() throws {
        var panel = try boardPanel("pirate-audio")
        panel.dither = false
        let rig = try PanelRig(panel, nativelyInverted: true)
        defer { rig.surface.restore() }
        let canvas = noiseCanvas(width: 240, height: 240, seed: 42)
        try rig.surface.present(canvas, damage: [canvas.bounds])
        let simulator = try rig.decode()
        #expect(simulator.commands.contains { $0.command == 0x36 && $0.parameters == [0x70] })
        #expect(simulator.commands.contains { $0.command == 0x21 })
        #expect(simulator.commands.contains { $0.command == 0x2A && $0.parameters == [0, 0, 0, 239] })
        #expect(simulator.commands.contains { $0.command == 0x2B && $0.parameters == [0, 0, 0, 239] })
        // pimoroni: rot90(image, 1)[i][j] = image[j][W-1-i]
        var expected: [UInt8] = []
        for i in 0..<240 {
            for j in 0..<240 {
                let v = Reference.truncated(canvas.pixels[j * 240 + (239 - i)])
                expected += [UInt8(v >> 8), UInt8(v & 0xFF)]
            }
        }
        #expect(difference(pixelStream(rig.transport.events), expected) == nil)
    }

    /// The same bytes Waveshare's LCD_1in44.py sends on the 1.44" HAT with its default scan
    /// (U2D_R2L: MADCTL 0x60 | BGR 0x08), window +1+2.
    @Test func waveshareFrameMatchesWavesharesDriver() throws {
        var panel = try boardPanel("waveshare-144")
        panel.dither = false
        let rig = try PanelRig(panel, bgrSubpixels: true)
        defer { rig.surface.restore() }
        let canvas = noiseCanvas(width: 128, height: 128, seed: 9)
        try rig.surface.present(canvas, damage: [canvas.bounds])
        let simulator = try rig.decode()
        #expect(simulator.commands.contains { $0.command == 0x36 && $0.parameters == [0x68] })
        #expect(simulator.commands.contains { $0.command == 0x2A && $0.parameters == [0, 1, 0, 128] })
        #expect(simulator.commands.contains { $0.command == 0x2B && $0.parameters == [0, 2, 0, 129] })
        let expected = (0..<(128 * 128)).flatMap { i -> [UInt8] in
            let v = Reference.truncated(canvas.pixels[i])
            return [UInt8(v >> 8), UInt8(v & 0xFF)]
        }
        #expect(difference(pixelStream(rig.transport.events), expected) == nil)
    }

    /// The bytes sent with the data line high after the last RAMWR.
    func pixelStream(_ events: [RecordingSPITransport.Event]) -> [UInt8] {
        var bytes: [UInt8] = []
        var isData = false
        for event in events {
            switch event {
            case .dataMode(let d): isData = d
            case .write(let b, _):
                if !isData && b.last == DCS.memoryWrite {
                    bytes = []
                } else if isData {
                    bytes += b
                }
            default: break
            }
        }
        return bytes
    }

    @Test func aSmallChangeSendsOnlyItsRectangle() throws {
        let rig = try PanelRig(try boardPanel("pirate-audio"), nativelyInverted: true)
        defer { rig.surface.restore() }
        let first = Canvas(width: 240, height: 240, color: Color(rgb: 0x101216))
        first.drawProgressBar(
            Rect(x: 20, y: 200, width: 200, height: 6), fraction: 0.30, track: Color(rgb: 0x333333),
            fill: Color(rgb: 0x4FC3F7))
        try rig.surface.present(first, damage: [first.bounds])
        #expect(rig.surface.flush())
        let full = rig.surface.statistics.lastFrame
        #expect(full.pixelBytes == 240 * 240 * 2)
        let second = Canvas(width: 240, height: 240, color: Color(rgb: 0x101216))
        second.drawProgressBar(
            Rect(x: 20, y: 200, width: 200, height: 6), fraction: 0.31, track: Color(rgb: 0x333333),
            fill: Color(rgb: 0x4FC3F7))
        let damage = second.changedRects(comparedTo: first)
        let changed = damage.reduce(0) { $0 + $1.area }
        #expect(changed > 0 && changed < 200, "\(damage)")
        rig.surface.resetStatistics()
        try rig.surface.present(second, damage: damage)
        let simulator = try rig.decode()
        let stats = rig.surface.statistics
        #expect(stats.frames == 1)
        #expect(stats.lastFrame.pixelBytes >= changed * 2)
        #expect(stats.lastFrame.pixelBytes <= changed * 2 + 2 * 512)
        #expect(stats.lastFrame.commandBytes == stats.lastFrame.windows * 11)
        #expect(stats.lastFrame.bytes < full.bytes / 50, "\(stats.lastFrame)")
        #expect(difference(rig.shown(simulator), Reference.panelImage(second, rotation: 270, dither: true)) == nil)
    }

    @Test func transfersStayWithinTheSpidevBuffer() throws {
        var panel = try boardPanel("pitft28")
        panel.speedHz = 40_000_000
        let rig = try PanelRig(panel, bgrSubpixels: true, maxTransferBytes: 1000)
        defer { rig.surface.restore() }
        let canvas = noiseCanvas(width: 320, height: 240)
        try rig.surface.present(canvas, damage: [canvas.bounds])
        let simulator = try rig.decode()
        var sizes: [Int] = []
        var speeds: Set<Int> = []
        for case .write(let bytes, let speed) in rig.transport.events {
            sizes.append(bytes.count)
            speeds.insert(speed)
        }
        #expect(sizes.max() == 1000)
        #expect(speeds == [10_000_000, 40_000_000], "commands at 10 MHz, pixels at the panel's clock")
        #expect(simulator.pixelBytes == 320 * 240 * 2)
        #expect(difference(rig.shown(simulator), Reference.panelImage(canvas, rotation: 90, dither: true)) == nil)
        // Pixel data in 1000-byte transfers: 153 600 bytes → 154 transfers.
        let stats = rig.surface.statistics
        #expect(stats.lastFrame.transfers == 154 + 5)
        #expect(stats.lastFrame.busNanoseconds == 153_600 * 8 * 25 + 11 * 8 * 100)
    }

    @Test func backlightComesOnOnlyAfterTheFirstFrame() throws {
        let rig = try PanelRig(try boardPanel("waveshare-144"), bgrSubpixels: true)
        defer { rig.surface.restore() }
        #expect(rig.surface.flush())
        #expect(!rig.transport.events.contains(.backlight(true)), "dark while memory holds garbage")
        let canvas = noiseCanvas(width: 128, height: 128)
        try rig.surface.present(canvas, damage: [canvas.bounds])
        #expect(rig.surface.flush())
        let events = rig.transport.events
        let on = try #require(events.firstIndex(of: .backlight(true)))
        let lastPixels = try #require(events.lastIndex { if case .write = $0 { true } else { false } })
        #expect(on > lastPixels)
    }

    @Test func sleepAndWake() throws {
        let rig = try PanelRig(try boardPanel("pirate-audio"), nativelyInverted: true)
        defer { rig.surface.restore() }
        let canvas = noiseCanvas(width: 240, height: 240)
        try rig.surface.present(canvas, damage: [canvas.bounds])
        #expect(try rig.decode().isShowing)
        rig.surface.setAwake(false)
        var simulator = try rig.decode()
        #expect(simulator.asleep && !simulator.displayOn && simulator.backlight == false)
        rig.surface.setAwake(true)
        simulator = try rig.decode()
        #expect(!simulator.asleep && simulator.displayOn)
        // Memory was kept; the next frame brings the backlight back.
        canvas.fill(Rect(x: 0, y: 0, width: 10, height: 10), Color(rgb: 0xFF0000))
        try rig.surface.present(canvas, damage: [Rect(x: 0, y: 0, width: 10, height: 10)])
        simulator = try rig.decode()
        #expect(simulator.isShowing)
        #expect(difference(rig.shown(simulator), Reference.panelImage(canvas, rotation: 270, dither: true)) == nil)
    }

    @Test func framesArePacedAndChangesMerged() throws {
        let rig = try PanelRig(try boardPanel("pirate-audio"), nativelyInverted: true, maxFramesPerSecond: 1)
        defer { rig.surface.restore() }
        let canvas = Canvas(width: 240, height: 240)
        try rig.surface.present(canvas, damage: [canvas.bounds])
        for i in 0..<5 {
            let r = Rect(x: 10 * i, y: 10 * i, width: 8, height: 8)
            canvas.fill(r, Color(rgb: 0x00FF00))
            try rig.surface.present(canvas, damage: [r])
        }
        let simulator = try rig.decode()
        #expect(rig.surface.statistics.frames < 6, "six presents within a second are not six frames")
        #expect(difference(rig.shown(simulator), Reference.panelImage(canvas, rotation: 270, dither: true)) == nil)
    }

    @Test func aFailingBusIsReportedAndRecoveredByReinitialising() throws {
        let rig = try PanelRig(try boardPanel("waveshare-144"), bgrSubpixels: true)
        defer { rig.surface.restore() }
        let canvas = noiseCanvas(width: 128, height: 128)
        try rig.surface.present(canvas, damage: [canvas.bounds])
        #expect(rig.surface.flush())
        rig.transport.fail(with: SPIPanelError("/dev/spidev0.0: SPI transfer failed: No such device"))
        canvas.fill(Rect(x: 0, y: 0, width: 64, height: 64), Color(rgb: 0x0000FF))
        try rig.surface.present(canvas, damage: [Rect(x: 0, y: 0, width: 64, height: 64)])
        #expect(rig.surface.flush())
        #expect(rig.surface.lastError?.message.contains("No such device") == true)
        #expect(throws: SPIPanelError.self) { try rig.surface.present(canvas, damage: []) }
        // The worker's try on the failing bus, woken by that present, is over before the bus comes
        // back (on a loaded machine it ran after, recovered, and the next present had nothing to report).
        #expect(rig.surface.flush())
        rig.transport.fail(with: nil)
        rig.transport.clear()
        // The first present after the failure still reports it; the worker re-initialises.
        #expect(throws: SPIPanelError.self) { try rig.surface.present(canvas, damage: []) }
        let simulator = try rig.decode()
        #expect(rig.surface.lastError == nil)
        #expect(rig.surface.statistics.initializations == 2)
        // Only the recording after the failure: the re-init (the reset may have cleared the
        // panel's memory) and then the whole picture, not just the window that failed.
        #expect(simulator.resets == 1)
        #expect(simulator.isShowing)
        #expect(difference(rig.shown(simulator), Reference.panelImage(canvas, rotation: 0, dither: true)) == nil)
    }

    @Test func restoreSendsThePendingFrameThenTurnsThePanelOff() throws {
        let rig = try PanelRig(try boardPanel("waveshare-144"), bgrSubpixels: true, maxFramesPerSecond: 1)
        let canvas = noiseCanvas(width: 128, height: 128)
        try rig.surface.present(canvas, damage: [canvas.bounds])
        canvas.fill(Color(rgb: 0))
        try rig.surface.present(canvas, damage: [canvas.bounds])
        rig.surface.restore()
        var simulator = PanelSimulator(glass: rig.glass)
        simulator.feed(rig.transport.events)
        simulator.finish()
        #expect(simulator.problems.isEmpty)
        #expect(simulator.asleep && !simulator.displayOn && simulator.backlight == false)
        #expect(rig.shown(simulator).allSatisfy { $0 == 0 })
        // Presenting after restore does nothing.
        try rig.surface.present(canvas, damage: [canvas.bounds])
    }
}

/// The panel's wires over spidev and libgpiod (the bus itself: KioskHardwareTests' `SpidevTests`).
@Suite struct SpidevTransportTests {
    @Test func aMissingDeviceOrANonSPIDeviceIsAClearError() throws {
        var panel = try boardPanel("pirate-audio")
        panel.device = "/dev/spidev-not-here"
        #expect {
            _ = try SpidevTransport.open(panel, gpioChips: ["gpiochip0"])
        } throws: { error in
            "\(error)".contains("/dev/spidev-not-here does not exist: enable SPI (dtparam=spi=on")
        }
        // /dev/null exists but has no SPI ioctls (the lines come after the bus, so none are taken).
        panel.device = "/dev/null"
        #expect {
            _ = try SpidevTransport.open(panel, gpioChips: ["/dev/no-gpiochip"])
        } throws: { error in
            "\(error)".contains("screen panel lines: no GPIO chip found")
        }
    }
}
