// SPDX-License-Identifier: GPL-3.0-or-later
import KioskDisplay

/// A panel controller rebuilt from what went over its wires: decodes the data/command line and the
/// bytes of a `RecordingSPITransport` (or a kernel-side recording) as an ST7789/ST7735S/ILI9341
/// would (MIPI DCS: a command byte with DC low, parameters with DC high, RAMWR streaming 16-bit
/// big-endian pixels through the CASET/RASET window) into frame memory, and says what the glass
/// shows. Written from the datasheets' command descriptions, independently of the surface.
struct PanelSimulator {
    /// Properties of the glass behind the controller (vendor facts, not the profile's settings).
    struct Glass {
        var memoryWidth: Int
        var memoryHeight: Int
        /// IPS panels on ST7789 show a negative unless INVON is sent.
        var nativelyInverted = false
        /// Sub-pixels in blue-green-red order: MADCTL's BGR bit must be set for true colours.
        var bgrSubpixels = false
    }

    let glass: Glass
    let maxTransferBytes: Int
    private(set) var madctl: UInt8 = 0
    private(set) var pixelFormat: UInt8 = 0x66
    private(set) var inversionOn = false
    private(set) var asleep = true
    private(set) var displayOn = false
    private(set) var backlight: Bool?
    private(set) var resets = 0
    /// Every command with its parameters, in order.
    private(set) var commands: [(command: UInt8, parameters: [UInt8])] = []
    /// What the decoder found wrong (a test expects this empty).
    private(set) var problems: [String] = []
    private(set) var pixelBytes = 0
    private(set) var transfers = 0
    /// Frame memory as addressed (columns × rows after MADCTL's exchange), RGB565 words.
    private(set) var memory: [UInt16]
    private(set) var columns: Int
    private(set) var rows: Int

    private var dataMode: Bool?
    private var command: UInt8?
    private var parameters: [UInt8] = []
    private var columnRange = 0...0
    private var rowRange = 0...0
    private var column = 0
    private var row = 0
    private var highByte: UInt8?
    private var wroteMemory = false

    init(glass: Glass, maxTransferBytes: Int = 4096) {
        self.glass = glass
        self.maxTransferBytes = maxTransferBytes
        columns = glass.memoryWidth
        rows = glass.memoryHeight
        memory = [UInt16](repeating: 0, count: glass.memoryWidth * glass.memoryHeight)
        columnRange = 0...(columns - 1)
        rowRange = 0...(rows - 1)
    }

    /// The glass of a built-in controller: memory size; inversion and colour order as given.
    init(
        controller: PanelController, nativelyInverted: Bool = false, bgrSubpixels: Bool = false,
        maxTransferBytes: Int = 4096
    ) {
        self.init(
            glass: Glass(
                memoryWidth: controller.memoryWidth, memoryHeight: controller.memoryHeight,
                nativelyInverted: nativelyInverted, bgrSubpixels: bgrSubpixels),
            maxTransferBytes: maxTransferBytes)
    }

    mutating func feed(_ events: [RecordingSPITransport.Event]) {
        for event in events {
            switch event {
            case .dataMode(let isData):
                dataMode = isData
            case .write(let bytes, _):
                transfers += 1
                if bytes.count > maxTransferBytes {
                    problems.append("a transfer of \(bytes.count) bytes exceeds \(maxTransferBytes)")
                }
                for byte in bytes { receive(byte) }
            case .reset(let asserted):
                if !asserted {
                    powerOnReset()
                    resets += 1
                }
            case .backlight(let on):
                backlight = on
            case .pause:
                break
            }
        }
    }

    private mutating func powerOnReset() {
        finishCommand()
        madctl = 0
        pixelFormat = 0x66
        inversionOn = false
        asleep = true
        displayOn = false
        command = nil
    }

    private mutating func receive(_ byte: UInt8) {
        guard let isData = dataMode else {
            problems.append("a byte was sent before the data/command line was driven")
            return
        }
        if !isData {
            finishCommand()
            command = byte
            parameters = []
            highByte = nil
            if byte == DCS.memoryWrite {
                column = columnRange.lowerBound
                row = rowRange.lowerBound
            }
            if byte == DCS.softwareReset { powerOnReset() }
            return
        }
        guard let command else {
            problems.append("a data byte came before any command")
            return
        }
        if command == DCS.memoryWrite {
            if let high = highByte {
                storePixel(UInt16(high) << 8 | UInt16(byte))
                highByte = nil
            } else {
                highByte = byte
            }
            pixelBytes += 1
        } else {
            parameters.append(byte)
        }
    }

    private mutating func storePixel(_ word: UInt16) {
        if pixelFormat & 0x07 != 0x05 {
            problems.append("pixels written with COLMOD 0x\(String(pixelFormat, radix: 16)), not 16-bit")
        }
        if column < columns && row < rows {
            memory[row * columns + column] = word
        } else {
            problems.append("pixel at column \(column), row \(row) is outside the \(columns)×\(rows) memory")
        }
        wroteMemory = true
        if column < columnRange.upperBound {
            column += 1
        } else {
            column = columnRange.lowerBound
            row = row < rowRange.upperBound ? row + 1 : rowRange.lowerBound
        }
    }

    /// Acts on the command whose parameters are complete (a new command, or the end of input).
    private mutating func finishCommand() {
        guard let command else { return }
        commands.append((command, parameters))
        func word(_ i: Int) -> Int { Int(parameters[i]) << 8 | Int(parameters[i + 1]) }
        switch command {
        case DCS.columnAddressSet, DCS.rowAddressSet:
            guard parameters.count == 4 else {
                problems.append("CASET/RASET with \(parameters.count) parameters")
                break
            }
            let start = word(0)
            let end = word(2)
            let limit = command == DCS.columnAddressSet ? columns : rows
            if start > end || end >= limit {
                problems.append("window \(start)…\(end) outside 0…\(limit - 1)")
            } else if command == DCS.columnAddressSet {
                columnRange = start...end
            } else {
                rowRange = start...end
            }
        case DCS.memoryAccessControl:
            guard parameters.count == 1 else {
                problems.append("MADCTL with \(parameters.count) parameters")
                break
            }
            madctl = parameters[0]
            let exchanged = madctl & DCS.rowColumnExchange != 0
            let newColumns = exchanged ? glass.memoryHeight : glass.memoryWidth
            if newColumns != columns {
                if wroteMemory { problems.append("MADCTL exchanged rows and columns after pixels were written") }
                columns = newColumns
                rows = exchanged ? glass.memoryWidth : glass.memoryHeight
                columnRange = 0...(columns - 1)
                rowRange = 0...(rows - 1)
            }
        case DCS.pixelFormat:
            if let p = parameters.first { pixelFormat = p }
        case DCS.inversionOn: inversionOn = true
        case DCS.inversionOff: inversionOn = false
        case DCS.sleepIn: asleep = true
        case DCS.sleepOut: asleep = false
        case DCS.displayOn: displayOn = true
        case DCS.displayOff: displayOn = false
        default: break
        }
        self.command = nil
    }

    /// Ends the last command (call after feeding everything).
    mutating func finish() {
        finishCommand()
        if highByte != nil { problems.append("RAMWR ended in the middle of a pixel") }
    }

    /// The glass shows a picture: out of sleep, display on, backlight (if wired) on.
    var isShowing: Bool { !asleep && displayOn && backlight != false }

    /// The colour the glass shows at a memory position: sub-pixel order and inversion applied.
    func shown(column: Int, row: Int) -> UInt16 {
        var w = memory[row * columns + column]
        if (madctl & DCS.bgrOrder != 0) != glass.bgrSubpixels {
            w = (w & 0x1F) << 11 | (w & 0x07E0) | w >> 11
        }
        if inversionOn != glass.nativelyInverted { w = ~w }
        return w
    }

    /// What the glass shows in the window of `width` × `height` at (`x`, `y`), row by row.
    func shownWindow(x: Int, y: Int, width: Int, height: Int) -> [UInt16] {
        var out: [UInt16] = []
        out.reserveCapacity(width * height)
        for r in y..<(y + height) {
            for c in x..<(x + width) { out.append(shown(column: c, row: r)) }
        }
        return out
    }
}

/// Reference pictures computed the plain way, to compare the surface with.
enum Reference {
    /// Turns an image (`width` × `height`, row by row) clockwise by 90° once.
    static func turnedClockwise<T>(_ pixels: [T], width: Int, height: Int) -> [T] {
        // The turned image is `height` wide; its (x, y) comes from the original (y, height - 1 - x).
        var out: [T] = []
        out.reserveCapacity(pixels.count)
        for y in 0..<width {
            for x in 0..<height { out.append(pixels[(height - 1 - x) * width + y]) }
        }
        return out
    }

    /// The canvas turned clockwise by `degrees`.
    static func turned(_ canvas: Canvas, degrees: Int) -> (pixels: [UInt32], width: Int, height: Int) {
        var pixels = Array(canvas.pixels)
        var w = canvas.width
        var h = canvas.height
        for _ in 0..<(degrees / 90) {
            pixels = turnedClockwise(pixels, width: w, height: h)
            swap(&w, &h)
        }
        return (pixels, w, h)
    }

    /// RGB565 by dropping the low bits (what pimoroni and Waveshare send).
    static func truncated(_ xrgb: UInt32) -> UInt16 {
        let r = UInt16(xrgb >> 16 & 0xFF)
        let g = UInt16(xrgb >> 8 & 0xFF)
        let b = UInt16(xrgb & 0xFF)
        return (r & 0xF8) << 8 | (g & 0xFC) << 3 | b >> 3
    }

    /// RGB565 with 4×4 ordered dithering at panel position (x, y): each channel becomes
    /// floor(v·(2ⁿ−1)/255 + (d+½)/16) for the Bayer threshold d.
    static func dithered(_ xrgb: UInt32, x: Int, y: Int) -> UInt16 {
        let bayer: [[UInt32]] = [[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]]
        let d = bayer[y & 3][x & 3]
        func reduce(_ v: UInt32, bits: UInt32) -> UInt16 {
            let levels = (UInt32(1) << bits) - 1
            return UInt16((v * levels * 32 + (2 * d + 1) * 255) / 8160)
        }
        return reduce(xrgb >> 16 & 0xFF, bits: 5) << 11 | reduce(xrgb >> 8 & 0xFF, bits: 6) << 5
            | reduce(xrgb & 0xFF, bits: 5)
    }

    /// The panel's window as it should look: the canvas turned, reduced to RGB565.
    static func panelImage(_ canvas: Canvas, rotation: Int, dither: Bool) -> [UInt16] {
        let turned = turned(canvas, degrees: rotation)
        var out: [UInt16] = []
        out.reserveCapacity(turned.pixels.count)
        for y in 0..<turned.height {
            for x in 0..<turned.width {
                let c = turned.pixels[y * turned.width + x]
                out.append(dither ? dithered(c, x: x, y: y) : truncated(c))
            }
        }
        return out
    }
}

/// Where two pictures differ: nil when equal, else the count and the first differing index, so a
/// failure message stays short.
func difference<T: Equatable>(_ a: [T], _ b: [T]) -> String? {
    if a == b { return nil }
    if a.count != b.count { return "sizes differ: \(a.count) vs \(b.count)" }
    let differing = zip(a, b).enumerated().filter { $0.element.0 != $0.element.1 }
    let first = differing[0]
    return
        "\(differing.count) of \(a.count) pixels differ; first at \(first.offset): \(first.element.0) vs \(first.element.1)"
}
