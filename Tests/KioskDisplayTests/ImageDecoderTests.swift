// SPDX-License-Identifier: GPL-3.0-or-later
import KioskDisplay
import KioskSystem
import Testing

struct ImageDecoderTests {
    let red = Color(rgb: 0xE02020)

    // MARK: - JPEG

    @Test func baselineJPEGDecodesToItsColours() throws {
        let jpeg = try ImageEncoder.jpeg(solidRGB(width: 64, height: 48, 0xE0, 0x20, 0x20), width: 64, height: 48)
        let image = try ImageDecoder.decode(jpeg)
        #expect(image.width == 64 && image.height == 48)
        #expect(channelDistance(image.color(x: 32, y: 24), red) <= 4)
    }

    @Test func progressiveJPEGDecodes() throws {
        let jpeg = try ImageEncoder.jpeg(
            gradientRGB(width: 200, height: 100), width: 200, height: 100, progressive: true)
        let image = try ImageDecoder.decode(jpeg, target: .fill(Size(width: 50, height: 50)))
        #expect(image.width == 50 && image.height == 50)
        // Gradient survives: left is darker in red than right.
        #expect(image.color(x: 2, y: 25).red < image.color(x: 47, y: 25).red)
    }

    @Test func grayscaleJPEGDecodesToGray() throws {
        let gray = [UInt8](repeating: 90, count: 40 * 40)
        let jpeg = try ImageEncoder.jpeg(gray, width: 40, height: 40, colors: .gray)
        let c = try ImageDecoder.decode(jpeg).color(x: 20, y: 20)
        #expect(abs(Int(c.red) - 90) <= 2 && c.red == c.green && c.green == c.blue)
    }

    @Test func cmykJPEGDecodesToRGB() throws {
        // Adobe-style inverted CMYK for pure cyan-ish blue: C=255-ink …; (R,G,B) ≈ (C·K, M·K, Y·K)/255.
        var cmyk = [UInt8](repeating: 0, count: 32 * 32 * 4)
        for i in 0..<(32 * 32) {
            cmyk[4 * i] = 40  // lots of cyan ink → little red
            cmyk[4 * i + 1] = 140
            cmyk[4 * i + 2] = 250  // no yellow ink → blue stays
            cmyk[4 * i + 3] = 255  // no black ink
        }
        let jpeg = try ImageEncoder.jpeg(cmyk, width: 32, height: 32, colors: .cmyk)
        let c = try ImageDecoder.decode(jpeg).color(x: 16, y: 16)
        #expect(abs(Int(c.red) - 40) <= 6 && abs(Int(c.green) - 140) <= 6 && abs(Int(c.blue) - 250) <= 6, "\(c)")
    }

    @Test func jpegIsDecodedAtAReducedScale() throws {
        // 4000×4000 would need 64 MB decoded; at 1/8 it needs 2 MB. A 4 MB budget only works
        // if the decoder really scales while decoding.
        let jpeg = try ImageEncoder.jpeg(gradientRGB(width: 4000, height: 4000), width: 4000, height: 4000, quality: 50)
        let limits = ImageLimits(maxDecodedBytes: 4 << 20)
        let image = try ImageDecoder.decode(jpeg, target: .fill(Size(width: 240, height: 240)), limits: limits)
        #expect(image.width == 240 && image.height == 240)
        #expect(throws: ImageError.self) { try ImageDecoder.decode(jpeg, target: .original, limits: limits) }
    }

    @Test func hugeJPEGIsRefusedFromItsHeader() throws {
        let small = try ImageEncoder.jpeg(solidRGB(width: 16, height: 16, 1, 2, 3), width: 16, height: 16)
        let huge = jpegClaiming(width: 20000, height: 20000, from: small)
        let start = Syscalls.peakResidentBytes()
        #expect(throws: ImageError.dimensionsTooLarge(format: .jpeg, width: 20000, height: 20000, limits: .default)) {
            try ImageDecoder.decode(huge, target: .fill(Size(width: 240, height: 240)))
        }
        #expect(Syscalls.peakResidentBytes() - start < 100 << 20, "nothing of 20000² was allocated")
    }

    @Test func progressiveJPEGCoefficientMemoryCounts() throws {
        // A progressive JPEG keeps all coefficients in memory whatever the output scale.
        let jpeg = try ImageEncoder.jpeg(
            gradientRGB(width: 1200, height: 1200), width: 1200, height: 1200, quality: 50, progressive: true)
        let tight = ImageLimits(maxDecodedBytes: 2 << 20)
        #expect(throws: ImageError.self) {
            try ImageDecoder.decode(jpeg, target: .fill(Size(width: 100, height: 100)), limits: tight)
        }
        let roomy = ImageLimits(maxDecodedBytes: 8 << 20)
        _ = try ImageDecoder.decode(jpeg, target: .fill(Size(width: 100, height: 100)), limits: roomy)
    }

    @Test func corruptJPEGIsAnErrorNotACrash() throws {
        let jpeg = try ImageEncoder.jpeg(gradientRGB(width: 64, height: 64), width: 64, height: 64)
        // Only the start of the headers.
        #expect(throws: ImageError.self) { try ImageDecoder.decode(Array(jpeg.prefix(40))) }
        // SOI then garbage.
        var garbage: [UInt8] = [0xFF, 0xD8, 0xFF]
        var seed: UInt32 = 12345
        for _ in 0..<5000 {
            seed = seed &* 1_103_515_245 &+ 12345
            garbage.append(UInt8(truncatingIfNeeded: seed >> 16))
        }
        #expect(throws: ImageError.self) { try ImageDecoder.decode(garbage) }
        // Scan data cut short: libjpeg warns and fills the rest; a picture of the right size or an error, never a crash.
        let cut = Array(jpeg.prefix(jpeg.count * 2 / 3))
        if let image = try? ImageDecoder.decode(cut) { #expect(image.width == 64 && image.height == 64) }
    }

    // MARK: - PNG

    @Test func rgbAndRGBAPNGsDecode() throws {
        let rgba: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0, 10, 20, 30, 255]
        let png = try ImageEncoder.png(rows: rgba, width: 2, height: 2, format: PNGFormat(colorType: .rgba))
        let image = try ImageDecoder.decode(png)
        #expect(image.color(x: 0, y: 0) == Color(rgb: 0xFF0000))
        #expect(channelDistance(image.color(x: 1, y: 0), Color(red: 0, green: 255, blue: 0, alpha: 128)) <= 2)
        #expect(image.color(x: 0, y: 1).alpha == 0)
        #expect(image.pixels[1] >> 24 == 128 && (image.pixels[1] >> 8 & 0xFF) <= 128, "premultiplied")
        let rgb = try ImageEncoder.png(rows: [1, 2, 3], width: 1, height: 1, format: PNGFormat(colorType: .rgb))
        #expect(try ImageDecoder.decode(rgb).color(x: 0, y: 0) == Color(red: 1, green: 2, blue: 3))
    }

    @Test func grayPalette16BitAndOneBitPNGsDecode() throws {
        let gray = try ImageEncoder.png(rows: [77], width: 1, height: 1, format: PNGFormat(colorType: .gray))
        #expect(try ImageDecoder.decode(gray).color(x: 0, y: 0) == Color(red: 77, green: 77, blue: 77))

        let grayAlpha = try ImageEncoder.png(
            rows: [200, 0], width: 1, height: 1, format: PNGFormat(colorType: .grayAlpha))
        #expect(try ImageDecoder.decode(grayAlpha).color(x: 0, y: 0).alpha == 0)

        let palette = try ImageEncoder.png(
            rows: [0b0001_0000], width: 2, height: 1,
            format: PNGFormat(
                colorType: .palette, bitDepth: 4, palette: [255, 0, 0, 0, 0, 255], paletteAlpha: [255, 0]))
        let p = try ImageDecoder.decode(palette)
        #expect(p.color(x: 0, y: 0).alpha == 0, "index 1 is transparent through tRNS")
        #expect(p.color(x: 1, y: 0) == Color(rgb: 0xFF0000))

        let sixteen = try ImageEncoder.png(
            rows: [0xFF, 0xFF, 0x80, 0x00, 0x00, 0x00], width: 1, height: 1,
            format: PNGFormat(colorType: .rgb, bitDepth: 16))
        let s = try ImageDecoder.decode(sixteen).color(x: 0, y: 0)
        #expect(s.red == 255 && abs(Int(s.green) - 128) <= 1 && s.blue == 0)

        let oneBit = try ImageEncoder.png(
            rows: [0b1010_0000], width: 3, height: 1, format: PNGFormat(colorType: .gray, bitDepth: 1))
        let o = try ImageDecoder.decode(oneBit)
        #expect(o.color(x: 0, y: 0) == Color(rgb: 0xFFFFFF) && o.color(x: 1, y: 0) == Color(rgb: 0))
    }

    @Test func interlacedPNGDecodesLikeTheSamePicturePlain() throws {
        let rows = gradientRGB(width: 37, height: 23)
        let plain = try ImageEncoder.png(rows: rows, width: 37, height: 23, format: PNGFormat(colorType: .rgb))
        let interlaced = try ImageEncoder.png(
            rows: rows, width: 37, height: 23, format: PNGFormat(colorType: .rgb, interlaced: true))
        #expect(plain != interlaced)
        #expect(try ImageDecoder.decode(plain) == ImageDecoder.decode(interlaced))
        let target = ImageTarget.fill(Size(width: 10, height: 10))
        #expect(try ImageDecoder.decode(plain, target: target) == ImageDecoder.decode(interlaced, target: target))
    }

    @Test func hugePNGIsRefusedFromItsHeader() throws {
        let small = try ImageEncoder.png(rows: [0, 0, 0], width: 1, height: 1, format: PNGFormat(colorType: .rgb))
        let huge = pngClaiming(width: 20000, height: 20000, from: small)
        #expect(throws: ImageError.dimensionsTooLarge(format: .png, width: 20000, height: 20000, limits: .default)) {
            try ImageDecoder.decode(huge, target: .fill(Size(width: 240, height: 240)))
        }
    }

    @Test func pngDecompressionBombIsRefusedBeforeAllocating() throws {
        // 6000×6000 of zeros compresses to a few kilobytes; held whole (interlaced) it needs 144 MB.
        let side = 6000
        let rows = [UInt8](repeating: 0, count: (side + 7) / 8 * side)
        let bomb = try ImageEncoder.png(
            rows: rows, width: side, height: side, format: PNGFormat(colorType: .gray, bitDepth: 1, interlaced: true))
        #expect(bomb.count < 200_000)
        let start = Syscalls.peakResidentBytes()
        #expect(throws: ImageError.self) {
            try ImageDecoder.decode(bomb, target: .fill(Size(width: 240, height: 240)))
        }
        #expect(Syscalls.peakResidentBytes() - start < 100 << 20)
        do {
            _ = try ImageDecoder.decode(bomb, target: .fill(Size(width: 240, height: 240)))
        } catch {
            #expect(error.description.contains("more than the 64 MB limit"), "\(error)")
        }
    }

    @Test func largePlainPNGIsScaledRowByRowInLittleMemory() throws {
        // The same size without interlacing is read a row at a time: a 2 MB budget is enough.
        let side = 3000
        let rows = [UInt8](repeating: 0xFF, count: (side + 7) / 8 * side)
        let png = try ImageEncoder.png(
            rows: rows, width: side, height: side, format: PNGFormat(colorType: .gray, bitDepth: 1))
        let image = try ImageDecoder.decode(
            png, target: .fill(Size(width: 120, height: 120)), limits: ImageLimits(maxDecodedBytes: 2 << 20))
        #expect(image.width == 120 && image.color(x: 60, y: 60) == Color(rgb: 0xFFFFFF))
    }

    @Test func corruptPNGsAreErrors() throws {
        let png = try ImageEncoder.png(
            rows: gradientRGB(width: 50, height: 50), width: 50, height: 50, format: PNGFormat(colorType: .rgb))
        // Truncated.
        #expect(throws: ImageError.self) { try ImageDecoder.decode(Array(png.prefix(png.count / 2))) }
        // Flipped bits in the image data: the chunk CRC no longer matches.
        var flipped = png
        flipped[png.count / 2] ^= 0xFF
        #expect(throws: ImageError.self) { try ImageDecoder.decode(flipped) }
        // Only a signature.
        #expect(throws: ImageError.self) { try ImageDecoder.decode(Array(png.prefix(8))) }
        // A zero size in the header.
        #expect(throws: ImageError.self) { try ImageDecoder.decode(pngClaiming(width: 0, height: 5, from: png)) }
    }

    // MARK: - any format

    @Test func emptyUnknownAndOversizedInputsAreRefused() throws {
        #expect(throws: ImageError.empty) { try ImageDecoder.decode([]) }
        #expect(throws: ImageError.unknownFormat) { try ImageDecoder.decode(Array("GIF89a.....".utf8)) }
        let png = try ImageEncoder.png(rows: [0, 0, 0], width: 1, height: 1, format: PNGFormat(colorType: .rgb))
        #expect(throws: ImageError.inputTooLarge(bytes: png.count, limit: 10)) {
            try ImageDecoder.decode(png, limits: ImageLimits(maxInputBytes: 10))
        }
    }

    @Test func errorMessagesSayWhatIsWrong() {
        let big = ImageError.dimensionsTooLarge(format: .jpeg, width: 20000, height: 20000, limits: .default)
        #expect(big.description.contains("20000×20000"))
        #expect(ImageError.inputTooLarge(bytes: 40 << 20, limit: 16 << 20).description.contains("40 MB"))
        #expect(
            ImageError.corrupt(format: .png, reason: "IDAT: CRC error").description
                == "corrupt PNG image: IDAT: CRC error")
    }
}
