// SPDX-License-Identifier: GPL-3.0-or-later
/// Files a hostile or damaged stick may hold, made byte by byte in the test (small, so nothing large
/// is committed): each one broke a parser once. The unit tests check each parser on them; the scan
/// tests put them all on one stick.
///
/// Thread: pure functions; any.
public enum HostileFiles {
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
    static func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(v >> (8 * UInt64($0)) & 0xFF) } }
    static func be32(_ v: UInt32) -> [UInt8] { (0..<4).reversed().map { UInt8(v >> (8 * $0) & 0xFF) } }
    static func be64(_ v: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(v >> (8 * UInt64($0)) & 0xFF) } }

    /// An RF64 WAV (EBU Tech 3306): `RF64`, a `ds64` chunk whose data size is `dataSize`, a 16-bit
    /// stereo 44.1 kHz `fmt `, and a `data` chunk of size 0xFFFFFFFF holding `frames` silent frames.
    public static func rf64(dataSize: UInt64, frames: Int = 64) -> [UInt8] {
        // Appended piece by piece: one long `+` chain is too much for Swift 6.0's type checker.
        var ds64: [UInt8] = le64(UInt64(36 + 24 + 24 + frames * 4))
        ds64 += le64(dataSize)
        ds64 += le64(UInt64(frames))
        ds64 += le32(0)
        var fmt: [UInt8] = le16(1)
        fmt += le16(2)
        fmt += le32(44_100)
        fmt += le32(44_100 * 4)
        fmt += le16(4)
        fmt += le16(16)
        var bytes: [UInt8] = Array("RF64".utf8)
        bytes += le32(0xFFFF_FFFF)
        bytes += Array("WAVE".utf8)
        bytes += Array("ds64".utf8)
        bytes += le32(UInt32(ds64.count))
        bytes += ds64
        bytes += Array("fmt ".utf8)
        bytes += le32(UInt32(fmt.count))
        bytes += fmt
        bytes += Array("data".utf8)
        bytes += le32(0xFFFF_FFFF)
        bytes += [UInt8](repeating: 0, count: frames * 4)
        return bytes
    }

    /// An MP4 box of `type` with `body`, its size in the 32-bit field.
    public static func mp4Box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        be32(UInt32(body.count + 8)) + Array(type.utf8) + body
    }

    /// An M4A whose second box uses the 64-bit size field to claim `size` bytes.
    public static func mp4(largeBoxSize size: UInt64) -> [UInt8] {
        var ftyp: [UInt8] = Array("M4A ".utf8)
        ftyp += [0, 0, 0, 0]
        ftyp += Array("M4A mp42isom".utf8)
        var bytes = mp4Box("ftyp", ftyp)
        bytes += be32(1)
        bytes += Array("moov".utf8)
        bytes += be64(size)
        bytes += [UInt8](repeating: 0, count: 32)
        return bytes
    }

    /// A baseline (SOF0) JPEG of three 1×1-sampled components whose scans each hold one component
    /// (so libjpeg buffers the whole image), with all-zero coefficients: 1-bit Huffman codes for a DC
    /// difference of 0 and for end-of-block, so a block is two 0 bits.
    public static func multiScanJPEG(width: Int, height: Int) -> [UInt8] {
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        var out: [UInt8] = [0xFF, 0xD8]
        out += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        var frame: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 3]
        for c in 1...3 { frame += [UInt8(c), 0x11, 0] }
        out += segment(0xC0, frame)
        let oneCode: [UInt8] = [1] + [UInt8](repeating: 0, count: 15) + [0]
        out += segment(0xC4, [0x00] + oneCode + [0x10] + oneCode)
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        // Two zero bits per block, when the image is small enough to carry them; a big one ends early
        // (libjpeg warns and fills) and stays a few hundred bytes.
        let data = blocks <= 4096 ? [UInt8](repeating: 0, count: (blocks * 2 + 7) / 8) : [UInt8](repeating: 0, count: 8)
        for c in 1...3 {
            out += segment(0xDA, [1, UInt8(c), 0x00, 0, 63, 0]) + data
        }
        return out + [0xFF, 0xD9]
    }
}
