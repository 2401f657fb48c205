// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskDisplay

/// The decoders' memory stays under `ImageLimits.maxDecodedBytes` whatever the image's shape:
/// measured with a `HeapGauge`, not only predicted.
struct ImageMemoryBoundTests {
    let cover = Size(width: 240, height: 240)

    @Test func multiScanSequentialJPEGIsRefusedBeforeLibjpegBuffersIt() throws {
        // 10000×3600 in a few hundred bytes: three one-component scans make libjpeg keep every
        // coefficient (3 × 1250 × 450 blocks × 128 bytes = 216 MB), as for a progressive image.
        let jpeg = HostileFiles.multiScanJPEG(width: 10_000, height: 3600)
        #expect(jpeg.count < 700)
        var gauge = HeapGauge()
        do {
            _ = try ImageDecoder.decode(jpeg, target: .fill(cover), limits: .default, gauge: &gauge)
            Issue.record("decoded a 216 MB multi-scan image under a 64 MB limit")
        } catch {
            guard case .needsTooMuchMemory(.jpeg, let bytes, let limit) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(bytes >= 216_000_000 && limit == 64 << 20)
            #expect(error.description.contains("more than the 64 MB limit"), "\(error)")
        }
        #expect(gauge.peak < ImageLimits.default.maxDecodedBytes, "peak \(megabytes(gauge.peak))")
    }

    @Test func theArtworkProblemNamesTheCoverAndTheLimit() throws {
        let jpeg = HostileFiles.multiScanJPEG(width: 10_000, height: 3600)
        let job = ArtworkWorker.Job(key: "/media/usb/Album/cover.jpg", size: cover, load: { jpeg })
        let result = ArtworkWorker.run(job, limits: .default)
        #expect(result.image == nil && result.key == "/media/usb/Album/cover.jpg")
        #expect(result.problem?.contains("decoding the JPEG image would need") == true, "\(result.problem ?? "")")
    }

    @Test func libjpegItselfRefusesBuffersOverWhatItIsLeft() throws {
        // Whatever our count says, libjpeg's memory manager is capped: over it, no allocation.
        let jpeg = HostileFiles.multiScanJPEG(width: 10_000, height: 3600)
        var header = kiosk_jpeg_header()
        var message = [CChar](repeating: 0, count: 256)
        var gauge = HeapGauge()
        var code: Int32 = 0
        jpeg.withUnsafeBufferPointer { buffer in
            guard let reader = kiosk_jpeg_open(buffer.baseAddress, buffer.count, &header, &message, message.count)
            else { return }
            defer { kiosk_jpeg_close(reader) }
            var width: UInt32 = 0
            var height: UInt32 = 0
            code = kiosk_jpeg_start(reader, 1, 8 << 20, &width, &height, &message, message.count)
            gauge.sample()
        }
        #expect(header.multi_scan != 0 && header.progressive == 0 && header.coefficient_bytes == 216_000_000)
        #expect(code == KIOSK_JPEG_OVER_BUDGET, "\(cString(message))")
        #expect(gauge.peak < 8 << 20, "peak \(megabytes(gauge.peak))")
    }

    @Test func smallMultiScanSequentialJPEGStillDecodes() throws {
        let jpeg = HostileFiles.multiScanJPEG(width: 64, height: 48)
        var gauge = HeapGauge()
        let image = try ImageDecoder.decode(jpeg, limits: .default, gauge: &gauge)
        #expect(image.width == 64 && image.height == 48)
        // All coefficients zero: mid gray.
        #expect(channelDistance(image.color(x: 10, y: 10), Color(rgb: 0x808080)) <= 2)
    }

    @Test func pngTextChunksAreSkippedNotHeld() throws {
        // 64 zTXt chunks of 4 MB of text each, in 1.7 MB: libpng kept them all (256 MB) before.
        let plain = try ImageEncoder.png(
            rows: [UInt8](repeating: 200, count: 8 * 8 * 3), width: 8, height: 8, format: PNGFormat(colorType: .rgb))
        let text = pngChunk("zTXt", Array("Comment".utf8) + [0, 0] + zlibRun(of: 0x61, runs: 16_000))
        let bomb = Array(plain[0..<33]) + Array(repeating: text, count: 64).flatMap { $0 } + Array(plain[33...])
        #expect(bomb.count < 2 << 20)
        var gauge = HeapGauge()
        let image = try ImageDecoder.decode(bomb, limits: .default, gauge: &gauge)
        #expect(image.width == 8 && image.color(x: 4, y: 4) == Color(rgb: 0xC8C8C8))
        #expect(gauge.peak < 16 << 20, "peak \(megabytes(gauge.peak))")
    }
}

/// A PNG chunk with its length and CRC.
func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    func be(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
    let body = Array(type.utf8) + data
    return be(UInt32(data.count)) + body + be(CRC32.checksum(body))
}

/// A zlib stream of 1 + 258 × `runs` bytes `byte` (< 144) in a few bytes per kilobyte: one
/// fixed-Huffman block of a literal and `runs` copies of (length 258, distance 1).
func zlibRun(of byte: UInt8, runs: Int) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var bits: UInt64 = 0
    var count = 0
    func put(_ value: UInt32, _ n: Int) {
        bits |= UInt64(value) << count
        count += n
        while count >= 8 {
            out.append(UInt8(bits & 0xFF))
            bits >>= 8
            count -= 8
        }
    }
    // Huffman codes go most significant bit first; everything else least significant first.
    func code(_ value: UInt32, _ n: Int) {
        var reversed: UInt32 = 0
        for i in 0..<n where value & (1 << i) != 0 { reversed |= 1 << (n - 1 - i) }
        put(reversed, n)
    }
    put(1, 1)  // final block
    put(1, 2)  // fixed Huffman codes
    code(0x30 + UInt32(byte), 8)  // the literal
    for _ in 0..<runs {
        code(0xC5, 8)  // length 258 (symbol 285)
        code(0, 5)  // distance 1
    }
    code(0, 7)  // end of block
    if count > 0 { put(0, 8 - count) }
    // Adler-32 of n equal bytes v: a = 1 + n·v, b = n + v·n(n+1)/2 (mod 65521).
    let n = 1 + 258 * runs
    let v = Int(byte)
    let adler = UInt32((n + v * (n * (n + 1) / 2 % 65521)) % 65521) << 16 | UInt32((1 + n * v) % 65521)
    return out + (0..<4).map { UInt8(truncatingIfNeeded: adler >> (24 - 8 * $0)) }
}
