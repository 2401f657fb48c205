// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// One command of a panel controller: the command byte (sent with the data/command line low), its
/// parameters (line high), then a pause. Written in board profiles as a string of hex bytes,
/// `"B2 0C 0C 00 33 33"`, with `"delay 150"` after a command for its pause. Thread: a value.
public struct PanelCommand: Sendable, Equatable, CustomStringConvertible {
    public var command: UInt8
    public var parameters: [UInt8]
    public var delayMs: Int

    public init(_ command: UInt8, _ parameters: [UInt8] = [], delayMs: Int = 0) {
        self.command = command
        self.parameters = parameters
        self.delayMs = delayMs
    }

    public var description: String {
        let bytes = ([command] + parameters).map(hex2).joined(separator: " ")
        return delayMs > 0 ? "\(bytes), delay \(delayMs)" : bytes
    }

    /// Parses an init sequence: each string is a command with its parameters in hex ("36 70",
    /// "0x3A 0x05") or "delay N" (milliseconds, 0…1000) for the pause after the command before it.
    /// Errors name the element (`screen.panel.init[3]: …`).
    public static func parse(_ items: [(path: String, value: JSONValue)], file: String) throws(ConfigError)
        -> [PanelCommand]
    {
        var commands: [PanelCommand] = []
        for item in items {
            func fail(_ message: String) -> ConfigError { ConfigError(file: file, path: item.path, message: message) }
            guard let text = item.value.string else {
                throw fail(
                    "expected a string of hex bytes such as \"36 70\" or \"delay 120\", got \(JSONReader.show(item.value))"
                )
            }
            let words = text.split(separator: " ").map(String.init)
            guard let first = words.first else { throw fail("expected a command, got an empty string") }
            if first == "delay" {
                guard words.count == 2, let ms = Int(words[1]), (0...1000).contains(ms) else {
                    throw fail("expected \"delay N\" with N milliseconds 0…1000, got \"\(text)\"")
                }
                guard !commands.isEmpty else { throw fail("a delay must follow a command") }
                commands[commands.count - 1].delayMs += ms
                continue
            }
            var bytes: [UInt8] = []
            for word in words {
                let digits = word.hasPrefix("0x") || word.hasPrefix("0X") ? String(word.dropFirst(2)) : word
                guard (1...2).contains(digits.count), let byte = UInt8(digits, radix: 16) else {
                    throw fail("\"\(word)\" is not a hex byte (in \"\(text)\")")
                }
                bytes.append(byte)
            }
            guard bytes.count <= 64 else { throw fail("at most 63 parameters, got \(bytes.count - 1)") }
            commands.append(PanelCommand(bytes[0], Array(bytes.dropFirst())))
        }
        return commands
    }
}

private func hex2(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
}

/// MIPI DCS commands the surface itself sends (the same numbers on ST7789, ST7735S and ILI9341).
public enum DCS {
    public static let softwareReset: UInt8 = 0x01
    public static let sleepIn: UInt8 = 0x10
    public static let sleepOut: UInt8 = 0x11
    public static let inversionOff: UInt8 = 0x20
    public static let inversionOn: UInt8 = 0x21
    public static let displayOff: UInt8 = 0x28
    public static let displayOn: UInt8 = 0x29
    public static let columnAddressSet: UInt8 = 0x2A
    public static let rowAddressSet: UInt8 = 0x2B
    public static let memoryWrite: UInt8 = 0x2C
    public static let memoryAccessControl: UInt8 = 0x36
    public static let pixelFormat: UInt8 = 0x3A
    /// MADCTL bits.
    public static let rowColumnExchange: UInt8 = 0x20
    public static let bgrOrder: UInt8 = 0x08
}

/// A panel controller as data: its frame memory and the vendor init sequence (power, gamma, frame
/// rate). The surface sends, after a hardware reset when there is a reset line: this sequence,
/// then MADCTL, COLMOD, INVON/INVOFF, SLPOUT (120 ms), DISPON (20 ms). Thread: a value.
public struct PanelController: Sendable, Equatable {
    public var name: String
    /// Columns × rows of frame memory with MADCTL's row/column exchange (MV) off.
    public var memoryWidth: Int
    public var memoryHeight: Int
    public var initSequence: [PanelCommand]
    /// MADCTL (scan direction) when the panel does not give one; the BGR bit comes from `bgr`.
    public var madctl: UInt8
    /// COLMOD value for 16-bit RGB565.
    public var pixelFormat: UInt8

    public init(
        name: String, memoryWidth: Int, memoryHeight: Int, initSequence: [PanelCommand], madctl: UInt8,
        pixelFormat: UInt8
    ) {
        self.name = name
        self.memoryWidth = memoryWidth
        self.memoryHeight = memoryHeight
        self.initSequence = initSequence
        self.madctl = madctl
        self.pixelFormat = pixelFormat
    }

    /// Sitronix ST7789 (240×320 memory): pimoroni/st7789-python's `_init()` (Pirate Audio), without
    /// its MADCTL/INVON/SLPOUT/DISPON, which the surface sends from the panel's settings.
    public static let st7789 = PanelController(
        name: "st7789", memoryWidth: 240, memoryHeight: 320,
        initSequence: [
            PanelCommand(0x01, delayMs: 150),  // SWRESET
            PanelCommand(0xB2, [0x0C, 0x0C, 0x00, 0x33, 0x33]),  // PORCTRL
            PanelCommand(0x3A, [0x05]),  // COLMOD 16 bit
            PanelCommand(0xB7, [0x14]),  // GCTRL
            PanelCommand(0xBB, [0x37]),  // VCOMS
            PanelCommand(0xC0, [0x2C]),  // LCMCTRL
            PanelCommand(0xC2, [0x01]),  // VDVVRHEN
            PanelCommand(0xC3, [0x12]),  // VRHS
            PanelCommand(0xC4, [0x20]),  // VDVS
            PanelCommand(0xD0, [0xA4, 0xA1]),  // PWCTRL1
            PanelCommand(0xC6, [0x0F]),  // FRCTRL2
            PanelCommand(0xE0, [0xD0, 0x04, 0x0D, 0x11, 0x13, 0x2B, 0x3F, 0x54, 0x4C, 0x18, 0x0D, 0x0B, 0x1F, 0x23]),
            PanelCommand(0xE1, [0xD0, 0x04, 0x0C, 0x11, 0x13, 0x2C, 0x3F, 0x44, 0x51, 0x2F, 0x1F, 0x1F, 0x20, 0x23]),
        ],
        madctl: 0x00, pixelFormat: 0x05)

    /// Sitronix ST7735S (132×162 memory): Waveshare's LCD_1in44 `LCD_InitReg` (1.44" LCD HAT).
    public static let st7735s = PanelController(
        name: "st7735s", memoryWidth: 132, memoryHeight: 162,
        initSequence: [
            PanelCommand(0xB1, [0x01, 0x2C, 0x2D]),  // FRMCTR1
            PanelCommand(0xB2, [0x01, 0x2C, 0x2D]),  // FRMCTR2
            PanelCommand(0xB3, [0x01, 0x2C, 0x2D, 0x01, 0x2C, 0x2D]),  // FRMCTR3
            PanelCommand(0xB4, [0x07]),  // INVCTR: column inversion
            PanelCommand(0xC0, [0xA2, 0x02, 0x84]),  // PWCTR1
            PanelCommand(0xC1, [0xC5]),
            PanelCommand(0xC2, [0x0A, 0x00]),
            PanelCommand(0xC3, [0x8A, 0x2A]),
            PanelCommand(0xC4, [0x8A, 0xEE]),
            PanelCommand(0xC5, [0x0E]),  // VMCTR1
            PanelCommand(
                0xE0, [0x0F, 0x1A, 0x0F, 0x18, 0x2F, 0x28, 0x20, 0x22, 0x1F, 0x1B, 0x23, 0x37, 0x00, 0x07, 0x02, 0x10]),
            PanelCommand(
                0xE1, [0x0F, 0x1B, 0x0F, 0x17, 0x33, 0x2C, 0x29, 0x2E, 0x30, 0x30, 0x39, 0x3F, 0x00, 0x07, 0x03, 0x10]),
            PanelCommand(0xF0, [0x01]),  // enable test command
            PanelCommand(0xF6, [0x00]),  // RAM power save off
            PanelCommand(0x3A, [0x05]),  // COLMOD 16 bit
        ],
        madctl: 0x60, pixelFormat: 0x05)

    /// Ilitek ILI9341 (240×320 memory): Adafruit_ILI9341's `initcmd` (PiTFT 2.8"), preceded by a
    /// software reset as Adafruit does without a reset line.
    public static let ili9341 = PanelController(
        name: "ili9341", memoryWidth: 240, memoryHeight: 320,
        initSequence: [
            PanelCommand(0x01, delayMs: 150),  // SWRESET
            PanelCommand(0xEF, [0x03, 0x80, 0x02]),
            PanelCommand(0xCF, [0x00, 0xC1, 0x30]),
            PanelCommand(0xED, [0x64, 0x03, 0x12, 0x81]),
            PanelCommand(0xE8, [0x85, 0x00, 0x78]),
            PanelCommand(0xCB, [0x39, 0x2C, 0x00, 0x34, 0x02]),
            PanelCommand(0xF7, [0x20]),
            PanelCommand(0xEA, [0x00, 0x00]),
            PanelCommand(0xC0, [0x23]),  // PWCTR1
            PanelCommand(0xC1, [0x10]),  // PWCTR2
            PanelCommand(0xC5, [0x3E, 0x28]),  // VMCTR1
            PanelCommand(0xC7, [0x86]),  // VMCTR2
            PanelCommand(0x37, [0x00]),  // VSCRSADD
            PanelCommand(0x3A, [0x55]),  // PIXFMT 16 bit
            PanelCommand(0xB1, [0x00, 0x18]),  // FRMCTR1
            PanelCommand(0xB6, [0x08, 0x82, 0x27]),  // DFUNCTR
            PanelCommand(0xF2, [0x00]),  // 3-gamma off
            PanelCommand(0x26, [0x01]),  // GAMMASET
            PanelCommand(
                0xE0, [0x0F, 0x31, 0x2B, 0x0C, 0x0E, 0x08, 0x4E, 0xF1, 0x37, 0x07, 0x10, 0x03, 0x0E, 0x09, 0x00]),
            PanelCommand(
                0xE1, [0x00, 0x0E, 0x14, 0x03, 0x11, 0x07, 0x31, 0xC1, 0x48, 0x08, 0x0F, 0x0C, 0x31, 0x36, 0x0F]),
        ],
        madctl: 0x40, pixelFormat: 0x55)

    /// Every built-in controller.
    public static let all: [PanelController] = [.st7789, .st7735s, .ili9341]

    public static func named(_ name: String) -> PanelController? { all.first { $0.name == name } }
}

/// An SPI panel as a board profile describes it (`screen.panel`, boards/README.md): controller,
/// size, SPI bus and chip select, control lines, clock, orientation and colour order.
/// Thread: a value.
public struct SPIPanelDescription: Sendable, Equatable {
    /// The controller, with the profile's `init` in place of its own sequence when given.
    public var controller: PanelController
    /// Size of the panel's window in frame memory as addressed after MADCTL (e.g. 240×320 for a
    /// portrait ILI9341); the canvas is this size turned by `rotation`.
    public var width: Int
    public var height: Int
    public var spiBus: Int
    public var spiCS: Int
    /// Overrides /dev/spidev<bus>.<cs> (tests, unusual buses).
    public var device: String?
    /// Overrides the board's `gpioChip` list for the control lines.
    public var gpioChips: [String]?
    /// Data/command line (GPIO offset).
    public var dc: Int
    /// Reset line, active low (nil: none; a software reset is in the init sequence).
    public var reset: Int?
    /// Backlight line, on = high unless `backlightActiveLow` (nil: always lit).
    public var backlight: Int?
    public var backlightActiveLow: Bool
    /// Clockwise degrees the picture is turned before it is sent (the panel's mounting): 0…270.
    public var rotation: Int
    /// Send INVON (IPS panels that show a negative otherwise) instead of INVOFF.
    public var invert: Bool
    /// Set MADCTL's BGR bit (glass with blue-green-red sub-pixels).
    public var bgr: Bool
    /// Where the window starts in frame memory (e.g. the 128×128 glass inside 132×162 memory).
    public var xOffset: Int
    public var yOffset: Int
    /// SPI clock for pixel data; commands go at most at 10 MHz (as the kernel's mipi-dbi does).
    public var speedHz: Int
    /// MADCTL without the BGR bit (nil: the controller's).
    public var madctl: UInt8?
    /// Ordered dithering when reducing to RGB565 (smooth gradients in artwork).
    public var dither: Bool

    public init(
        controller: PanelController, width: Int, height: Int, spiBus: Int = 0, spiCS: Int = 0, device: String? = nil,
        gpioChips: [String]? = nil, dc: Int, reset: Int? = nil, backlight: Int? = nil,
        backlightActiveLow: Bool = false, rotation: Int = 0, invert: Bool = false, bgr: Bool = false,
        xOffset: Int = 0, yOffset: Int = 0, speedHz: Int = 32_000_000, madctl: UInt8? = nil, dither: Bool = true
    ) {
        self.controller = controller
        self.width = width
        self.height = height
        self.spiBus = spiBus
        self.spiCS = spiCS
        self.device = device
        self.gpioChips = gpioChips
        self.dc = dc
        self.reset = reset
        self.backlight = backlight
        self.backlightActiveLow = backlightActiveLow
        self.rotation = rotation
        self.invert = invert
        self.bgr = bgr
        self.xOffset = xOffset
        self.yOffset = yOffset
        self.speedHz = speedHz
        self.madctl = madctl
        self.dither = dither
    }

    /// The keys of a panel object.
    public static let keys = [
        "controller", "width", "height", "spiBus", "spiCS", "device", "gpioChip", "dc", "reset", "backlight",
        "backlightActiveLow", "rotation", "invert", "bgr", "xOffset", "yOffset", "speedHz", "madctl", "init", "dither",
    ]

    /// Reads a `panel` object; unknown keys and bad values are errors naming their key path.
    public init(_ r: JSONReader) throws(ConfigError) {
        let names = PanelController.all.map(\.name)
        guard let name = try r.choice("controller", names) else {
            throw r.error("controller", "required (one of \(names.joined(separator: ", ")))")
        }
        var controller = PanelController.named(name)!
        guard let width = try r.int("width", range: 1...1024) else { throw r.error("width", "required") }
        guard let height = try r.int("height", range: 1...1024) else { throw r.error("height", "required") }
        guard let dc = try r.int("dc", range: 0...1023) else {
            throw r.error("dc", "required: the GPIO line of the panel's data/command pin")
        }
        if let items = try r.array("init", maxCount: 256) {
            controller.initSequence = try PanelCommand.parse(items, file: r.file)
        }
        var madctl: UInt8?
        if let value = r.raw("madctl") {
            let parsed: Int? =
                if let s = value.string {
                    s.hasPrefix("0x") || s.hasPrefix("0X") ? Int(s.dropFirst(2), radix: 16) : Int(s, radix: 16)
                } else {
                    value.int
                }
            guard let parsed, (0...255).contains(parsed) else {
                throw r.error("madctl", "expected a byte such as \"0x70\" or 112, got \(JSONReader.show(value))")
            }
            madctl = UInt8(parsed)
        }
        let rotation = try r.int("rotation", range: 0...270) ?? 0
        guard rotation % 90 == 0 else { throw r.error("rotation", "expected 0, 90, 180 or 270, got \(rotation)") }
        let device = try r.string("device")
        if let device, !device.hasPrefix("/") {
            throw r.error("device", "expected an absolute path such as /dev/spidev0.0, got \"\(device)\"")
        }
        var chips: [String]?
        if let value = r.raw("gpioChip") {
            if let one = value.string {
                chips = [one]
            } else {
                chips = try r.strings("gpioChip", maxCount: 16)
            }
        }
        self.init(
            controller: controller, width: width, height: height, spiBus: try r.int("spiBus", range: 0...31) ?? 0,
            spiCS: try r.int("spiCS", range: 0...15) ?? 0, device: device, gpioChips: chips, dc: dc,
            reset: try r.int("reset", range: 0...1023), backlight: try r.int("backlight", range: 0...1023),
            backlightActiveLow: try r.bool("backlightActiveLow") ?? false, rotation: rotation,
            invert: try r.bool("invert") ?? false, bgr: try r.bool("bgr") ?? false,
            xOffset: try r.int("xOffset", range: 0...1023) ?? 0, yOffset: try r.int("yOffset", range: 0...1023) ?? 0,
            speedHz: try r.int("speedHz", range: 100_000...125_000_000) ?? 32_000_000, madctl: madctl,
            dither: try r.bool("dither") ?? true)
        try r.finish(known: Self.keys)
        let (columns, rows) = memoryColumnsAndRows
        if xOffset + width > columns || yOffset + height > rows {
            let exchanged = madctlValue & DCS.rowColumnExchange != 0 ? " (MADCTL exchanges rows and columns)" : ""
            throw ConfigError(
                file: r.file, path: r.path,
                message:
                    "a \(width)×\(height) window at +\(xOffset)+\(yOffset) does not fit the \(name)'s \(columns)×\(rows) frame memory\(exchanged)"
            )
        }
    }

    /// The MADCTL byte sent: scan direction plus the BGR bit.
    public var madctlValue: UInt8 { (madctl ?? controller.madctl) | (bgr ? DCS.bgrOrder : 0) }

    /// Addressable columns and rows of frame memory under `madctlValue`.
    public var memoryColumnsAndRows: (columns: Int, rows: Int) {
        madctlValue & DCS.rowColumnExchange != 0
            ? (controller.memoryHeight, controller.memoryWidth) : (controller.memoryWidth, controller.memoryHeight)
    }

    /// /dev/spidev<bus>.<cs>, or `device`.
    public var devicePath: String { device ?? "/dev/spidev\(spiBus).\(spiCS)" }

    /// The canvas size after `rotation` plus `extraRotation` (the screen's own rotation).
    public func canvasSize(extraRotation: Int = 0) -> Size {
        let total = (rotation + extraRotation) % 360
        return total == 90 || total == 270 ? Size(width: height, height: width) : Size(width: width, height: height)
    }

    /// One line for the log.
    public var summary: String {
        var parts = [
            "\(controller.name) \(width)×\(height)", devicePath, "\(speedHz / 1_000_000) MHz", "DC \(dc)",
        ]
        if let reset { parts.append("reset \(reset)") }
        if let backlight { parts.append("backlight \(backlight)") }
        parts.append("rotation \(rotation)")
        if xOffset != 0 || yOffset != 0 { parts.append("offset +\(xOffset)+\(yOffset)") }
        parts.append("MADCTL 0x\(hex2(madctlValue))")
        if invert { parts.append("inverted") }
        return parts.joined(separator: ", ")
    }
}
