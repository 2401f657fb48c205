// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskDisplay
import KioskSystem
import KioskTestSupport

/// Fonts for tests that render text: the fixed files golden images were made with.
enum TestFonts {
    static let regular = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    static let bold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
    static let cjk = "/usr/share/fonts/truetype/vlgothic/VL-PGothic-Regular.ttf"

    static var available: Bool { [regular, bold, cjk].allSatisfy(Syscalls.exists) }
    static let missingReason = "needs fonts-dejavu-core and fonts-vlgothic (deploy/install-deps.sh)"

    /// One shared set per test (FontSet is single-threaded; tests run in parallel).
    static func load() throws -> FontSet {
        try FontSet.load(regular: regular, bold: bold, cjk: cjk)
    }
}

/// Every screen size the layouts must handle: the listed panels in both orientations and more.
let allScreenSizes: [Size] = [
    (128, 128), (160, 128), (128, 160), (176, 220), (220, 176), (240, 240), (240, 320), (320, 240), (320, 480),
    (480, 320), (480, 272), (272, 480), (480, 480), (800, 480), (480, 800), (800, 600), (600, 800), (800, 800),
    (135, 240), (240, 135), (200, 200), (128, 296),
].map { Size(width: $0.0, height: $0.1) }

/// RGB pixels of a smooth test picture (3 bytes per pixel).
func gradientRGB(width: Int, height: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
        for x in 0..<width {
            let i = 3 * (y * width + x)
            bytes[i] = UInt8(x * 255 / max(1, width - 1))
            bytes[i + 1] = UInt8(y * 255 / max(1, height - 1))
            bytes[i + 2] = 128
        }
    }
    return bytes
}

/// RGB pixels of one colour.
func solidRGB(width: Int, height: Int, _ r: UInt8, _ g: UInt8, _ b: UInt8) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: width * height * 3)
    for i in 0..<(width * height) {
        bytes[3 * i] = r
        bytes[3 * i + 1] = g
        bytes[3 * i + 2] = b
    }
    return bytes
}

/// Largest difference of any channel between two colours.
func channelDistance(_ a: Color, _ b: Color) -> Int {
    max(
        abs(Int(a.red) - Int(b.red)), abs(Int(a.green) - Int(b.green)), abs(Int(a.blue) - Int(b.blue)),
        abs(Int(a.alpha) - Int(b.alpha)))
}

/// A PNG whose IHDR claims `width` × `height` (CRC fixed up), with the rest of `png` after it.
func pngClaiming(width: Int, height: Int, from png: [UInt8]) -> [UInt8] {
    var bytes = png
    // Signature (8), IHDR length (4), "IHDR" (4), width (4), height (4) …, CRC after 13 data bytes.
    for (offset, value) in [(16, width), (20, height)] {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * i)) }
    }
    let crc = CRC32.checksum(bytes[12..<29])
    for i in 0..<4 { bytes[29 + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * i)) }
    return bytes
}

/// A JPEG whose frame header claims `width` × `height`.
func jpegClaiming(width: Int, height: Int, from jpeg: [UInt8]) -> [UInt8] {
    var bytes = jpeg
    var i = 2
    while i + 9 < bytes.count {
        let marker = bytes[i + 1]
        let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
        if marker == 0xC0 || marker == 0xC2 {
            bytes[i + 5] = UInt8(height >> 8)
            bytes[i + 6] = UInt8(height & 0xFF)
            bytes[i + 7] = UInt8(width >> 8)
            bytes[i + 8] = UInt8(width & 0xFF)
            return bytes
        }
        i += 2 + length
    }
    return bytes
}
