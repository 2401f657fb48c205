// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskSystem

/// A framebuffer could not be opened or has a layout this surface cannot draw. Thread: a value.
public struct FramebufferError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The memory layout of a framebuffer as the kernel reports it (FBIOGET_VSCREENINFO and
/// FBIOGET_FSCREENINFO). Thread: a value.
public struct FramebufferLayout: Sendable, Equatable {
    /// Where one colour channel sits in a pixel value.
    public struct Bitfield: Sendable, Equatable {
        public var offset: Int
        public var length: Int
        public init(offset: Int, length: Int) {
            self.offset = offset
            self.length = length
        }
    }

    /// Visible size in pixels.
    public var width: Int
    public var height: Int
    public var virtualWidth: Int
    public var virtualHeight: Int
    /// Top-left of the visible area inside the virtual one (panning).
    public var xOffset: Int
    public var yOffset: Int
    public var bitsPerPixel: Int
    /// Bytes from one line to the next.
    public var lineLength: Int
    /// Length of the framebuffer memory (0 when the driver does not say).
    public var memoryLength: Int
    public var red: Bitfield
    public var green: Bitfield
    public var blue: Bitfield
    public var grayscale: Bool
    /// Packed pixels and a true-colour visual: the only kind drawn here.
    public var isPackedTrueColor: Bool
    /// The driver's name (fix.id), e.g. "vfb", "simple", "fb_st7789v".
    public var id: String

    public init(
        width: Int, height: Int, bitsPerPixel: Int, lineLength: Int? = nil, red: Bitfield, green: Bitfield,
        blue: Bitfield, id: String = "test"
    ) {
        self.width = width
        self.height = height
        virtualWidth = width
        virtualHeight = height
        xOffset = 0
        yOffset = 0
        self.bitsPerPixel = bitsPerPixel
        self.lineLength = lineLength ?? width * bitsPerPixel / 8
        memoryLength = self.lineLength * height
        self.red = red
        self.green = green
        self.blue = blue
        grayscale = false
        isPackedTrueColor = true
        self.id = id
    }

    /// From the C shim's copy of the kernel structs.
    public init(_ raw: kiosk_fb_layout) {
        width = Int(raw.xres)
        height = Int(raw.yres)
        virtualWidth = Int(raw.xres_virtual)
        virtualHeight = Int(raw.yres_virtual)
        xOffset = Int(raw.xoffset)
        yOffset = Int(raw.yoffset)
        bitsPerPixel = Int(raw.bits_per_pixel)
        lineLength = Int(raw.line_length)
        memoryLength = Int(raw.smem_len)
        red = Bitfield(offset: Int(raw.red_offset), length: Int(raw.red_length))
        green = Bitfield(offset: Int(raw.green_offset), length: Int(raw.green_length))
        blue = Bitfield(offset: Int(raw.blue_offset), length: Int(raw.blue_length))
        grayscale = raw.grayscale != 0
        isPackedTrueColor = raw.type == kiosk_fb_type_packed_pixels() && raw.visual == kiosk_fb_visual_truecolor()
        var idBytes = raw.id
        id = withUnsafeBytes(of: &idBytes) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }

    /// RGB565: 16 bits, red 11/5, green 5/6, blue 0/5.
    public static func rgb565(width: Int, height: Int, lineLength: Int? = nil) -> FramebufferLayout {
        FramebufferLayout(
            width: width, height: height, bitsPerPixel: 16, lineLength: lineLength,
            red: Bitfield(offset: 11, length: 5),
            green: Bitfield(offset: 5, length: 6), blue: Bitfield(offset: 0, length: 5))
    }

    /// XRGB8888: 32 bits, red 16/8, green 8/8, blue 0/8.
    public static func xrgb8888(width: Int, height: Int, lineLength: Int? = nil) -> FramebufferLayout {
        FramebufferLayout(
            width: width, height: height, bitsPerPixel: 32, lineLength: lineLength,
            red: Bitfield(offset: 16, length: 8), green: Bitfield(offset: 8, length: 8),
            blue: Bitfield(offset: 0, length: 8))
    }

    var bytesPerPixel: Int { bitsPerPixel / 8 }

    /// Bytes that must be mapped to reach the visible area.
    var neededBytes: Int { (yOffset + height) * lineLength }

    /// Throws when this surface cannot draw into such a framebuffer.
    public func validate(device: String) throws(FramebufferError) {
        guard isPackedTrueColor, !grayscale else {
            throw FramebufferError(
                "\(device) (\(id)) is not a packed-pixel true-colour framebuffer; only those are supported")
        }
        guard [16, 24, 32].contains(bitsPerPixel) else {
            throw FramebufferError("\(device) (\(id)) has \(bitsPerPixel) bits per pixel; 16, 24 or 32 are supported")
        }
        guard width > 0, height > 0, lineLength >= (xOffset + width) * bytesPerPixel else {
            throw FramebufferError(
                "\(device) (\(id)) reports \(width)×\(height) with \(lineLength) bytes per line, which does not fit")
        }
        for field in [red, green, blue]
        where field.length < 1 || field.length > 8 || field.offset + field.length > bitsPerPixel {
            throw FramebufferError("\(device) (\(id)) has a colour bitfield \(field) this surface cannot draw")
        }
        if memoryLength > 0 && memoryLength < neededBytes {
            throw FramebufferError("\(device) (\(id)) has \(memoryLength) bytes of memory, \(neededBytes) needed")
        }
    }
}

/// The Linux framebuffer (/dev/fbN): the canvas is converted to the framebuffer's pixel format
/// (RGB565 with ordered dithering, XRGB8888/XBGR8888, 24-bit, any bitfield order the driver
/// reports) and only the damaged rectangles are copied into the mmap'ed memory, rotated in
/// software by 0, 90, 180 or 270 degrees.
///
/// Opening it unblanks the screen and puts the virtual console into graphics mode (KD_GRAPHICS)
/// so its text and blinking cursor stop drawing over the picture; `restore()` (or deinit) puts
/// text mode back. Thread: the display's thread.
public final class FramebufferSurface: Surface {
    public let width: Int
    public let height: Int
    public let layout: FramebufferLayout
    public let rotation: Int
    public let device: String
    private let fd: FileDescriptor
    private let memory: UnsafeMutableRawPointer
    private let mappedLength: Int
    private var console: ConsoleGraphicsMode?
    private var presentedOnce = false
    private var blanked = false

    /// Opens `device` (e.g. /dev/fb0), reads its layout and maps it.
    /// - Parameter console: the virtual console to switch to graphics mode (nil: leave it).
    public static func open(device: String, rotation: Int = 0, console: String? = "/dev/tty0") throws(FramebufferError)
        -> FramebufferSurface
    {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(device, O_RDWR) } catch {
            throw FramebufferError("cannot open the framebuffer: \(error)")
        }
        var raw = kiosk_fb_layout()
        if kiosk_fb_read_layout(fd.rawValue, &raw) != 0 {
            let error = Errno.current.with("FBIOGET_VSCREENINFO/FSCREENINFO on \(device)")
            throw FramebufferError("\(error) (is it a framebuffer device?)")
        }
        let layout = FramebufferLayout(raw)
        if kiosk_fb_blank(fd.rawValue, 0) != 0 {
            Log.debug("\(device): FBIOBLANK unblank: \(Errno.current) (ignored)")
        }
        let mode = console.flatMap { ConsoleGraphicsMode.enter(tty: $0) }
        do {
            return try FramebufferSurface(fd: fd, layout: layout, rotation: rotation, device: device, console: mode)
        } catch {
            mode?.restore()
            throw error
        }
    }

    /// A surface over an mmap-able descriptor (a framebuffer, or a file in tests) whose layout is
    /// already known. Takes ownership of `fd` (closed on failure too).
    public init(
        fd: consuming FileDescriptor, layout: FramebufferLayout, rotation: Int = 0, device: String = "framebuffer",
        console: ConsoleGraphicsMode? = nil
    ) throws(FramebufferError) {
        guard [0, 90, 180, 270].contains(rotation) else {
            throw FramebufferError("rotation must be 0, 90, 180 or 270, not \(rotation)")
        }
        try layout.validate(device: device)
        let length = layout.memoryLength > 0 ? layout.memoryLength : layout.neededBytes
        do {
            memory = try Syscalls.mapShared(fd.rawValue, length: length, "mmap \(device) (\(length) bytes)")
        } catch {
            throw FramebufferError("\(error)")
        }
        self.fd = fd
        self.layout = layout
        self.rotation = rotation
        self.device = device
        self.console = console
        mappedLength = length
        let swap = rotation == 90 || rotation == 270
        width = swap ? layout.height : layout.width
        height = swap ? layout.width : layout.height
        Log.info(
            "\(device): \(layout.id) \(layout.width)×\(layout.height), \(layout.bitsPerPixel) bpp (r\(layout.red.offset)/\(layout.red.length) g\(layout.green.offset)/\(layout.green.length) b\(layout.blue.offset)/\(layout.blue.length)), line \(layout.lineLength) bytes, rotation \(rotation)"
        )
    }

    deinit {
        restore()
        Syscalls.unmap(memory, length: mappedLength)
    }

    public func restore() {
        if blanked { setAwake(true) }
        console?.restore()
        console = nil
    }

    /// Blanks the framebuffer (FBIOBLANK powerdown: the driver turns off the backlight or the
    /// HDMI signal) or unblanks it. `restore` unblanks, for the console.
    public func setAwake(_ awake: Bool) {
        blanked = !awake
        if kiosk_fb_blank(fd.rawValue, awake ? 0 : 1) != 0 {
            Log.debug("\(device): FBIOBLANK \(awake ? "unblank" : "powerdown"): \(Errno.current) (ignored)")
        }
    }

    /// Finds the framebuffer whose /sys/class/graphics/fbN/name is `name` (e.g. "vc4drmfb",
    /// "fb_st7789v"): its /dev/fbN path, or nil.
    public static func find(name: String, sysfs: String = "/sys/class/graphics", devices: String = "/dev") -> String? {
        guard let listing = try? Syscalls.readDirectory(sysfs) else { return nil }
        var matches: [String] = []
        for entry in listing.entries {
            let entryName = entry.name
            guard entryName.hasPrefix("fb"), Int(entryName.dropFirst(2)) != nil else { continue }
            guard let bytes = try? Syscalls.readFile("\(sysfs)/\(entryName)/name", limit: 4096) else { continue }
            if String(decoding: bytes, as: UTF8.self).trimmingSpaces == name { matches.append(entryName) }
        }
        return matches.sorted().first.map { "\(devices)/\($0)" }
    }

    /// The framebuffer device a screen profile names: `fbName` looked up under sysfs first, then
    /// `device`. nil when neither exists.
    public static func device(
        for profile: ScreenProfile, sysfs: String = "/sys/class/graphics", devices: String = "/dev"
    )
        -> String?
    {
        if let name = profile.fbName, let path = find(name: name, sysfs: sysfs, devices: devices) { return path }
        if let device = profile.device, Syscalls.exists(device) { return device }
        return nil
    }

    /// Opens the framebuffer a screen profile names (by sysfs name, else by device path) with the
    /// profile's rotation. The error says what was looked for.
    public static func open(
        profile: ScreenProfile, console: String? = "/dev/tty0", sysfs: String = "/sys/class/graphics",
        devices: String = "/dev"
    ) throws(FramebufferError) -> FramebufferSurface {
        guard let path = device(for: profile, sysfs: sysfs, devices: devices) else {
            var wanted: [String] = []
            if let name = profile.fbName { wanted.append("a framebuffer named \"\(name)\" under \(sysfs)") }
            if let device = profile.device { wanted.append(device) }
            throw FramebufferError(
                "no framebuffer found (looked for \(wanted.isEmpty ? "nothing" : wanted.joined(separator: " or ")))")
        }
        return try open(device: path, rotation: profile.rotation, console: console)
    }

    // MARK: - drawing

    public func present(_ canvas: Canvas, damage: [Rect]) throws {
        precondition(canvas.width == width && canvas.height == height, "canvas size differs from the surface")
        let rects = presentedOnce ? damage : [canvas.bounds]
        presentedOnce = true
        for rect in rects {
            let r = rect.intersection(canvas.bounds)
            if !r.isEmpty { copy(r, from: canvas) }
        }
    }

    /// 4×4 Bayer matrix, 0…15.
    static let bayer: [UInt32] = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5]

    /// `value` (0…255) reduced to `bits` bits with ordered dithering: floor(v·(2ⁿ−1)/255 + (d+½)/16),
    /// so a flat colour between two levels becomes a pattern whose average is the colour, and the
    /// extremes (0, 255) stay exact.
    @inline(__always)
    static func dithered(_ value: UInt32, bits: Int, _ d: UInt32) -> UInt32 {
        let levels = (UInt32(1) << UInt32(bits)) - 1
        return (value * levels * 32 + (2 * d + 1) * 255) / 8160
    }

    /// RGB565 parts by (Bayer position << 8 | channel value), already shifted into place.
    static let red565: [UInt16] = table(bits: 5, shift: 11)
    static let green565: [UInt16] = table(bits: 6, shift: 5)
    static let blue565: [UInt16] = table(bits: 5, shift: 0)

    private static func table(bits: Int, shift: Int) -> [UInt16] {
        (0..<(16 * 256)).map { UInt16(dithered(UInt32($0 & 0xFF), bits: bits, UInt32($0 >> 8)) << UInt32(shift)) }
    }

    /// Physical position of canvas pixel (x, y) as px = ax·x + bx·y + cx, py = ay·x + by·y + cy.
    private var transform: (ax: Int, bx: Int, cx: Int, ay: Int, by: Int, cy: Int) {
        switch rotation {
        case 90: (0, -1, height - 1, 1, 0, 0)
        case 180: (-1, 0, width - 1, 0, -1, height - 1)
        case 270: (0, 1, 0, -1, 0, width - 1)
        default: (1, 0, 0, 0, 1, 0)
        }
    }

    private func copy(_ r: Rect, from canvas: Canvas) {
        let t = transform
        let bpp = layout.bytesPerPixel
        let line = layout.lineLength
        let origin = memory + layout.yOffset * line + layout.xOffset * bpp
        let stepX = t.ax * bpp + t.ay * line  // bytes per canvas x step
        let red = layout.red
        let green = layout.green
        let blue = layout.blue
        let isRGB565 =
            bpp == 2 && red == .init(offset: 11, length: 5) && green == .init(offset: 5, length: 6)
            && blue == .init(offset: 0, length: 5)
        let isXRGB =
            bpp == 4 && red == .init(offset: 16, length: 8) && green == .init(offset: 8, length: 8)
            && blue == .init(offset: 0, length: 8)
        let reds = Self.red565
        let greens = Self.green565
        let blues = Self.blue565
        Self.bayer.withUnsafeBufferPointer { bayer in
            for y in r.y..<r.maxY {
                let source = canvas.pixels.baseAddress! + y * canvas.width
                let px0 = t.ax * r.x + t.bx * y + t.cx
                let py0 = t.ay * r.x + t.by * y + t.cy
                var dst = origin + py0 * line + px0 * bpp
                if isXRGB && rotation == 0 {
                    (dst.assumingMemoryBound(to: UInt32.self)).update(from: source + r.x, count: r.width)
                    continue
                }
                var px = px0
                var py = py0
                for x in r.x..<r.maxX {
                    let c = source[x]
                    let d = bayer[(py & 3) << 2 | (px & 3)]
                    if isRGB565 {
                        let row = Int(d) << 8
                        let value =
                            reds[row | Int(c >> 16 & 0xFF)] | greens[row | Int(c >> 8 & 0xFF)]
                            | blues[row | Int(c & 0xFF)]
                        dst.storeBytes(of: value, as: UInt16.self)
                    } else {
                        let value =
                            Self.channel(c >> 16 & 0xFF, red, d) | Self.channel(c >> 8 & 0xFF, green, d)
                            | Self.channel(c & 0xFF, blue, d)
                        switch bpp {
                        case 4: dst.storeBytes(of: value, as: UInt32.self)
                        case 3:
                            dst.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
                            (dst + 1).storeBytes(of: UInt8(truncatingIfNeeded: value >> 8), as: UInt8.self)
                            (dst + 2).storeBytes(of: UInt8(truncatingIfNeeded: value >> 16), as: UInt8.self)
                        default: dst.storeBytes(of: UInt16(truncatingIfNeeded: value), as: UInt16.self)
                        }
                    }
                    dst += stepX
                    px += t.ax
                    py += t.ay
                }
            }
        }
    }

    /// One 8-bit channel reduced to `field.length` bits (dithered below 8) and moved into place.
    @inline(__always)
    private static func channel(_ value: UInt32, _ field: FramebufferLayout.Bitfield, _ dither: UInt32) -> UInt32 {
        let v = field.length == 8 ? value : dithered(value, bits: field.length, dither)
        return v << UInt32(field.offset)
    }
}

/// The virtual console switched to graphics mode (KDSETMODE KD_GRAPHICS), so its text and
/// cursor stop drawing into the framebuffer; `restore()` switches back to text mode.
/// Thread: the display's thread.
public final class ConsoleGraphicsMode {
    private let fd: FileDescriptor
    private let wasGraphics: Bool
    private var restored = false

    /// Switches `tty` to graphics mode; nil (with a logged reason) when that is not possible.
    public static func enter(tty: String) -> ConsoleGraphicsMode? {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(tty, O_RDWR | O_NOCTTY) } catch {
            Log.info("console \(tty) not switched to graphics mode: \(error)")
            return nil
        }
        var graphics: Int32 = 0
        if kiosk_console_get_graphics(fd.rawValue, &graphics) != 0 {
            Log.info("console \(tty) not switched to graphics mode: KDGETMODE: \(Errno.current)")
            return nil
        }
        // Hide the text cursor too, in case a console driver keeps drawing in graphics mode.
        _ = try? fd.writeAll(Array("\u{1B}[?25l".utf8))
        if kiosk_console_set_graphics(fd.rawValue, 1) != 0 {
            Log.info("console \(tty) not switched to graphics mode: KDSETMODE: \(Errno.current)")
            _ = try? fd.writeAll(Array("\u{1B}[?25h".utf8))
            return nil
        }
        return ConsoleGraphicsMode(fd: fd, wasGraphics: graphics != 0)
    }

    private init(fd: consuming FileDescriptor, wasGraphics: Bool) {
        self.fd = fd
        self.wasGraphics = wasGraphics
    }

    /// Back to the mode the console had before.
    public func restore() {
        guard !restored else { return }
        restored = true
        if !wasGraphics { _ = kiosk_console_set_graphics(fd.rawValue, 0) }
        _ = try? fd.writeAll(Array("\u{1B}[?25h".utf8))
    }

    deinit { restore() }
}
