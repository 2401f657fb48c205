// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskDisplay
import KioskSystem
import KioskTestSupport
import Testing

/// FramebufferSurface against a file with the memory layout an fbdev driver reports (the same
/// mmap and conversion code as on /dev/fbN; only the ioctls are not involved).
struct FramebufferSurfaceTests {
    /// A file of `layout.memoryLength` bytes filled with 0xAB, opened read-write.
    func backingFile(_ dir: TemporaryDirectory, _ layout: FramebufferLayout) throws -> (path: String, fd: Int32) {
        let path = dir.file("fb")
        try dir.write("fb", [UInt8](repeating: 0xAB, count: layout.memoryLength))
        return (path, try Syscalls.open(path, O_RDWR))
    }

    func pixel16(_ bytes: [UInt8], _ layout: FramebufferLayout, x: Int, y: Int) -> UInt16 {
        let i = (layout.yOffset + y) * layout.lineLength + (layout.xOffset + x) * 2
        return UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8
    }

    func pixel32(_ bytes: [UInt8], _ layout: FramebufferLayout, x: Int, y: Int) -> UInt32 {
        let i = (layout.yOffset + y) * layout.lineLength + (layout.xOffset + x) * 4
        return UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
    }

    @Test func rgb565ConvertsWithOrderedDitheringAndKeepsLinePadding() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        // 240×240 with 512-byte lines (padding after 480 bytes), as some drivers report.
        let layout = FramebufferLayout.rgb565(width: 240, height: 240, lineLength: 512)
        let (path, fd) = try backingFile(dir, layout)
        let surface = try FramebufferSurface(fd: FileDescriptor(owning: fd), layout: layout)
        #expect(surface.width == 240 && surface.height == 240)
        let canvas = Canvas(width: 240, height: 240)
        canvas.fill(Rect(x: 0, y: 0, width: 120, height: 120), Color(rgb: 0xFF0000))  // full levels stay exact
        canvas.fill(Rect(x: 120, y: 0, width: 120, height: 120), Color(rgb: 0x00FF00))
        canvas.fill(Rect(x: 0, y: 120, width: 120, height: 120), Color(rgb: 0xFFFFFF))
        canvas.fill(Rect(x: 120, y: 120, width: 120, height: 120), Color(rgb: 0x7B7B7B))  // between levels
        try surface.present(canvas, damage: [canvas.bounds])
        let bytes = try Syscalls.readFile(path)
        #expect(pixel16(bytes, layout, x: 10, y: 10) == 0xF800)
        #expect(pixel16(bytes, layout, x: 130, y: 10) == 0x07E0)
        #expect(pixel16(bytes, layout, x: 10, y: 130) == 0xFFFF)
        // Dithered gray: a 4×4 block mixes neighbouring levels and averages to the source value.
        var sum = 0.0
        var levels = Set<UInt16>()
        for y in 200..<204 {
            for x in 200..<204 {
                let p = pixel16(bytes, layout, x: x, y: y)
                levels.insert(p >> 11)
                sum += Double(p >> 11) * 255 / 31
            }
        }
        #expect(levels.count == 2, "ordered dithering mixes two red levels")
        #expect(abs(sum / 16 - 123) < 1.5, "block average \(sum / 16) ≈ 123")
        // Padding bytes of each line are untouched.
        #expect(bytes[480..<512].allSatisfy { $0 == 0xAB })
        #expect(bytes[512 * 239 + 480..<512 * 240].allSatisfy { $0 == 0xAB })
    }

    @Test func onlyDamagedRectanglesAreCopied() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let layout = FramebufferLayout.xrgb8888(width: 64, height: 48)
        let (path, fd) = try backingFile(dir, layout)
        let surface = try FramebufferSurface(fd: FileDescriptor(owning: fd), layout: layout)
        let canvas = Canvas(width: 64, height: 48)
        try surface.present(canvas, damage: [])  // the first frame is always copied whole
        #expect(pixel32(try Syscalls.readFile(path), layout, x: 63, y: 47) & 0xFF_FFFF == 0)
        canvas.fill(Rect(x: 0, y: 0, width: 4, height: 4), Color(rgb: 0x123456))
        canvas.fill(Rect(x: 40, y: 40, width: 4, height: 4), Color(rgb: 0x654321))
        try surface.present(canvas, damage: [Rect(x: 0, y: 0, width: 4, height: 4)])
        let bytes = try Syscalls.readFile(path)
        #expect(pixel32(bytes, layout, x: 1, y: 1) & 0xFF_FFFF == 0x123456)
        #expect(pixel32(bytes, layout, x: 41, y: 41) & 0xFF_FFFF == 0, "outside the damage: not copied")
    }

    @Test func xbgrAnd24BitLayoutsFollowTheReportedBitfields() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let canvas = Canvas(width: 8, height: 8, color: Color(rgb: 0x112233))
        let xbgr = FramebufferLayout(
            width: 8, height: 8, bitsPerPixel: 32, red: .init(offset: 0, length: 8), green: .init(offset: 8, length: 8),
            blue: .init(offset: 16, length: 8))
        let (path, fd) = try backingFile(dir, xbgr)
        let surface = try FramebufferSurface(fd: FileDescriptor(owning: fd), layout: xbgr)
        try surface.present(canvas, damage: [canvas.bounds])
        #expect(pixel32(try Syscalls.readFile(path), xbgr, x: 3, y: 3) & 0xFF_FFFF == 0x332211)

        let rgb24 = FramebufferLayout(
            width: 8, height: 8, bitsPerPixel: 24, red: .init(offset: 16, length: 8),
            green: .init(offset: 8, length: 8), blue: .init(offset: 0, length: 8))
        let dir2 = try TemporaryDirectory()
        defer { dir2.remove() }
        let (path2, fd2) = try backingFile(dir2, rgb24)
        let surface24 = try FramebufferSurface(fd: FileDescriptor(owning: fd2), layout: rgb24)
        try surface24.present(canvas, damage: [canvas.bounds])
        let bytes = try Syscalls.readFile(path2)
        let i = 3 * rgb24.lineLength + 3 * 3
        #expect(Array(bytes[i..<i + 3]) == [0x33, 0x22, 0x11])
    }

    @Test(arguments: [0, 90, 180, 270])
    func rotationPutsTheCanvasCornerWhereThePanelExpectsIt(rotation: Int) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let layout = FramebufferLayout.xrgb8888(width: 32, height: 24)
        let (path, fd) = try backingFile(dir, layout)
        let surface = try FramebufferSurface(fd: FileDescriptor(owning: fd), layout: layout, rotation: rotation)
        let swapped = rotation == 90 || rotation == 270
        #expect(surface.width == (swapped ? 24 : 32) && surface.height == (swapped ? 32 : 24))
        let canvas = Canvas(width: surface.width, height: surface.height)
        canvas.fill(Rect(x: 0, y: 0, width: 1, height: 1), Color(rgb: 0xFF0000))  // canvas top-left
        canvas.fill(Rect(x: 1, y: 0, width: 1, height: 1), Color(rgb: 0x00FF00))  // its right neighbour
        try surface.present(canvas, damage: [canvas.bounds])
        let bytes = try Syscalls.readFile(path)
        // Where the top-left corner and the "rightwards" direction end up on the panel (clockwise).
        let (corner, next): ((Int, Int), (Int, Int)) =
            switch rotation {
            case 90: ((31, 0), (31, 1))
            case 180: ((31, 23), (30, 23))
            case 270: ((0, 23), (0, 22))
            default: ((0, 0), (1, 0))
            }
        #expect(pixel32(bytes, layout, x: corner.0, y: corner.1) & 0xFF_FFFF == 0xFF0000)
        #expect(pixel32(bytes, layout, x: next.0, y: next.1) & 0xFF_FFFF == 0x00FF00)
    }

    @Test func panningOffsetIsHonoured() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var layout = FramebufferLayout.rgb565(width: 16, height: 16)
        layout.virtualHeight = 32
        layout.yOffset = 16
        layout.memoryLength = layout.lineLength * 32
        let (path, fd) = try backingFile(dir, layout)
        let surface = try FramebufferSurface(fd: FileDescriptor(owning: fd), layout: layout)
        try surface.present(Canvas(width: 16, height: 16, color: Color(rgb: 0xFFFFFF)), damage: [])
        let bytes = try Syscalls.readFile(path)
        #expect(bytes[0..<(16 * 32)].allSatisfy { $0 == 0xAB }, "the hidden first page is untouched")
        #expect(pixel16(bytes, layout, x: 0, y: 0) == 0xFFFF)
    }

    @Test func layoutComesFromTheKernelStructs() {
        var v = fb_var_screeninfo()
        var f = fb_fix_screeninfo()
        v.xres = 320
        v.yres = 240
        v.xres_virtual = 320
        v.yres_virtual = 480
        v.yoffset = 240
        v.bits_per_pixel = 16
        v.red = fb_bitfield(offset: 11, length: 5, msb_right: 0)
        v.green = fb_bitfield(offset: 5, length: 6, msb_right: 0)
        v.blue = fb_bitfield(offset: 0, length: 5, msb_right: 0)
        f.line_length = 640
        f.smem_len = 640 * 480
        f.type = kiosk_fb_type_packed_pixels()
        f.visual = kiosk_fb_visual_truecolor()
        withUnsafeMutableBytes(of: &f.id) { raw in
            for (i, byte) in "fb_ili9341".utf8.enumerated() { raw[i] = byte }
        }
        var raw = kiosk_fb_layout()
        kiosk_fb_layout_from_kernel(&v, &f, &raw)
        let layout = FramebufferLayout(raw)
        #expect(layout.width == 320 && layout.height == 240 && layout.yOffset == 240 && layout.virtualHeight == 480)
        #expect(layout.bitsPerPixel == 16 && layout.lineLength == 640 && layout.memoryLength == 640 * 480)
        #expect(layout.red == .init(offset: 11, length: 5) && layout.green == .init(offset: 5, length: 6))
        #expect(layout.isPackedTrueColor && layout.id == "fb_ili9341")
        #expect(throws: Never.self) { try layout.validate(device: "/dev/fb1") }
    }

    @Test func unsupportedLayoutsAreRefusedWithAReason() {
        var palette = FramebufferLayout.rgb565(width: 10, height: 10)
        palette.bitsPerPixel = 8
        #expect(throws: FramebufferError.self) { try palette.validate(device: "/dev/fb0") }
        var mono = FramebufferLayout.rgb565(width: 10, height: 10)
        mono.isPackedTrueColor = false
        #expect(throws: FramebufferError.self) { try mono.validate(device: "/dev/fb0") }
        var short = FramebufferLayout.rgb565(width: 10, height: 10)
        short.lineLength = 10
        do {
            try short.validate(device: "/dev/fb0")
            Issue.record("a line too short for its pixels must be refused")
        } catch {
            #expect(error.description.contains("/dev/fb0"))
        }
    }

    @Test func openingSomethingThatIsNotAFramebufferSaysSo() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("plain", "not a framebuffer")
        do {
            _ = try FramebufferSurface.open(device: dir.file("plain"), console: nil)
            Issue.record("a plain file is not a framebuffer")
        } catch {
            #expect(error.description.contains("FBIOGET_VSCREENINFO"), "\(error)")
        }
        #expect(throws: FramebufferError.self) { try FramebufferSurface.open(device: "/dev/fb-missing", console: nil) }
        #expect(throws: FramebufferError.self) {
            try FramebufferSurface(fd: FileDescriptor(owning: -1), layout: .rgb565(width: 4, height: 4), rotation: 45)
        }
    }

    @Test func framebufferIsFoundByItsSysfsName() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("sys/fb0/name", "vc4drmfb\n")
        try dir.write("sys/fb1/name", "fb_st7789v\n")
        try dir.write("sys/fbcon/name", "fb_st7789v\n")  // not an fbN entry
        #expect(FramebufferSurface.find(name: "fb_st7789v", sysfs: dir.file("sys")) == "/dev/fb1")
        #expect(FramebufferSurface.find(name: "vc4drmfb", sysfs: dir.file("sys")) == "/dev/fb0")
        #expect(FramebufferSurface.find(name: "simple", sysfs: dir.file("sys")) == nil)
        try dir.write("dev/fb0", "")
        let byName = ScreenProfile(type: .framebuffer, fbName: "fb_st7789v", device: nil)
        #expect(
            FramebufferSurface.device(for: byName, sysfs: dir.file("sys"), devices: dir.file("dev")) == dir.file("dev")
                + "/fb1")
        let fallback = ScreenProfile(type: .framebuffer, fbName: "absent", device: dir.file("dev/fb0"))
        #expect(FramebufferSurface.device(for: fallback, sysfs: dir.file("sys")) == dir.file("dev/fb0"))
        let neither = ScreenProfile(type: .framebuffer, fbName: "absent", device: dir.file("dev/fb9"))
        #expect(FramebufferSurface.device(for: neither, sysfs: dir.file("sys")) == nil)
        do {
            _ = try FramebufferSurface.open(profile: neither, console: nil, sysfs: dir.file("sys"))
            Issue.record("no framebuffer: an error")
        } catch {
            #expect(error.description.contains("\"absent\"") && error.description.contains(dir.file("dev/fb9")))
        }
    }
}

struct OtherSurfaceTests {
    @Test func pngSurfaceWritesTheCanvas() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let surface = PNGSurface(path: dir.file("screen.png"), width: 20, height: 10)
        let canvas = Canvas(width: 20, height: 10, color: Color(rgb: 0x204060))
        canvas.fill(Rect(x: 5, y: 5, width: 2, height: 2), Color(rgb: 0xFFEEDD))
        try surface.present(canvas, damage: [canvas.bounds])
        let image = try ImageDecoder.decode(Syscalls.readFile(dir.file("screen.png")))
        #expect(image.width == 20 && image.height == 10)
        #expect(image.color(x: 0, y: 0) == Color(rgb: 0x204060))
        #expect(image.color(x: 6, y: 6) == Color(rgb: 0xFFEEDD))
        #expect(surface.framesWritten == 1)
    }

    /// Replays the escape sequences a TerminalSurface wrote into a grid of (upper, lower) colours.
    func replay(_ text: String, columns: Int, rows: Int) -> [[(UInt32, UInt32)?]] {
        var grid = [[(UInt32, UInt32)?]](repeating: [(UInt32, UInt32)?](repeating: nil, count: columns), count: rows)
        var row = 0
        var column = 0
        var foreground: UInt32 = 0
        var background: UInt32 = 0
        TerminalStream.forEach(text) { piece in
            switch piece {
            case .control(let body, let command):
                let numbers = body.split(separator: ";").compactMap { UInt32($0) }
                if command == "H" {
                    row = Int(numbers[0]) - 1
                    column = Int(numbers[1]) - 1
                } else if command == "m" && numbers.count == 5 {
                    let rgb = numbers[2] << 16 | numbers[3] << 8 | numbers[4]
                    if numbers[0] == 38 { foreground = rgb } else { background = rgb }
                }
            case .scalar(let s):
                if s == "\u{2580}" {
                    grid[row][column] = (foreground, background)
                    column += 1
                }
            }
            return true
        }
        return grid
    }

    @Test func terminalSurfaceDrawsHalfBlocksAndRewritesOnlyChangedCells() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let fd = try Syscalls.open(dir.file("tty"), O_WRONLY | O_CREAT | O_TRUNC)
        defer { Syscalls.closeIgnoringErrors(fd) }
        // A canvas of the picture's own size in an 80×24 terminal: one canvas pixel per half cell.
        let surface = TerminalSurface(fd: fd, size: TerminalSize(columns: 80, rows: 24), width: 28, height: 20)
        #expect(surface.layout.picture == TerminalLayout.Cells(column: 0, row: 0, width: 28, height: 10))
        let canvas = Canvas(width: 28, height: 20, color: Color(rgb: 0x000010))
        canvas.fill(Rect(x: 2, y: 0, width: 1, height: 1), Color(rgb: 0xFF0000))
        canvas.fill(Rect(x: 2, y: 1, width: 1, height: 1), Color(rgb: 0x00FF00))
        try surface.present(canvas, damage: [canvas.bounds])
        let first = String(decoding: try Syscalls.readFile(dir.file("tty")), as: UTF8.self)
        #expect(first.hasPrefix("\u{1B}[?1049h"))
        let grid = replay(first, columns: 80, rows: 24)
        #expect(grid[0][2]! == (0xFF0000, 0x00FF00))
        #expect(grid[0][0]! == (0x000010, 0x000010))
        #expect(grid[0..<10].allSatisfy { $0[0..<28].allSatisfy { $0 != nil } })

        // Present the same picture again: nothing to write.
        try surface.present(canvas, damage: [canvas.bounds])
        #expect(try Syscalls.readFile(dir.file("tty")).count == first.utf8.count)
        // One changed pixel: only its cell is written.
        canvas.fill(Rect(x: 27, y: 19, width: 1, height: 1), Color(rgb: 0x0000FF))
        try surface.present(canvas, damage: [canvas.bounds])
        let all = String(decoding: try Syscalls.readFile(dir.file("tty")), as: UTF8.self)
        let update = String(all.dropFirst(first.count))
        #expect(update.unicodeScalars.filter { $0 == "\u{2580}" }.count == 1)
        #expect(replay(update, columns: 80, rows: 24)[9][27]! == (0x000010, 0x0000FF))
        surface.restore()
        #expect(String(decoding: try Syscalls.readFile(dir.file("tty")), as: UTF8.self).hasSuffix("\u{1B}[?1049l"))
    }
}

/// The same surface on a real framebuffer device, where the machine has one (the QEMU system
/// test loads vfb; KIOSK_TEST_FRAMEBUFFER names another device).
@Suite(.tags(.integration))
struct RealFramebufferTests {
    static let device = Syscalls.environment("KIOSK_TEST_FRAMEBUFFER") ?? "/dev/fb0"
    // Built outside the trait: Swift 6.0.3 crashes on string interpolation inside a @Test(...).
    static let missing = Comment(rawValue: "no framebuffer device here (\(device)); the VM system test has one")

    @Test(.enabled(if: Syscalls.exists(device), missing))
    func drawsIntoTheDevicesMemory() throws {
        let surface = try FramebufferSurface.open(device: Self.device, console: nil)
        let layout = surface.layout
        let canvas = Canvas(width: surface.width, height: surface.height)
        canvas.fill(Color(rgb: 0xFFFFFF))
        canvas.fill(Rect(x: 0, y: 0, width: 8, height: 8), Color(rgb: 0xFF0000))
        try surface.present(canvas, damage: [canvas.bounds])
        let bytes = try Syscalls.readFile(Self.device, limit: 256 << 20)
        func value(x: Int, y: Int) -> UInt32 {
            let i = (layout.yOffset + y) * layout.lineLength + (layout.xOffset + x) * layout.bitsPerPixel / 8
            var v: UInt32 = 0
            for b in 0..<(layout.bitsPerPixel / 8) { v |= UInt32(bytes[i + b]) << UInt32(8 * b) }
            return v
        }
        func expected(_ r: UInt32, _ g: UInt32, _ b: UInt32) -> UInt32 {
            func put(_ c: UInt32, _ f: FramebufferLayout.Bitfield) -> UInt32 {
                (c >> UInt32(8 - f.length)) << UInt32(f.offset)
            }
            return put(r, layout.red) | put(g, layout.green) | put(b, layout.blue)
        }
        let mask = expected(255, 255, 255)
        #expect(value(x: 2, y: 2) & mask == expected(255, 0, 0))
        #expect(value(x: layout.width - 1, y: layout.height - 1) & mask == mask)
    }
}

struct DitheringTests {
    @Test func everyGrayLevelAveragesToItselfOverABlock() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        // One 4×4 block per gray value 0…255 (64 blocks across, 4 down).
        let layout = FramebufferLayout.rgb565(width: 256, height: 16)
        try dir.write("fb", [UInt8](repeating: 0, count: layout.memoryLength))
        let surface = try FramebufferSurface(fd: try FileDescriptor.open(dir.file("fb"), O_RDWR), layout: layout)
        let canvas = Canvas(width: 256, height: 16)
        for v in 0..<256 {
            let c = Color(red: UInt8(v), green: UInt8(v), blue: UInt8(v))
            canvas.fill(Rect(x: (v % 64) * 4, y: (v / 64) * 4, width: 4, height: 4), c)
        }
        try surface.present(canvas, damage: [canvas.bounds])
        let bytes = try Syscalls.readFile(dir.file("fb"))
        for v in 0..<256 {
            var red = 0.0
            var green = 0.0
            for dy in 0..<4 {
                for dx in 0..<4 {
                    let x = (v % 64) * 4 + dx
                    let y = (v / 64) * 4 + dy
                    let i = y * layout.lineLength + x * 2
                    let p = UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8
                    red += Double(p >> 11) * 255 / 31
                    green += Double(p >> 5 & 0x3F) * 255 / 63
                }
            }
            #expect(abs(red / 16 - Double(v)) <= 1.1, "red \(v): \(red / 16)")
            #expect(abs(green / 16 - Double(v)) <= 0.6, "green \(v): \(green / 16)")
        }
    }
}

struct ConsoleModeTests {
    @Test func noConsoleOrNotATerminalMeansNoModeSwitch() throws {
        #expect(ConsoleGraphicsMode.enter(tty: "/nonexistent/tty0") == nil)
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("tty", "")
        #expect(ConsoleGraphicsMode.enter(tty: dir.file("tty")) == nil)
        #expect(try Syscalls.readFile(dir.file("tty")).isEmpty, "nothing written to something that is not a console")
    }
}
