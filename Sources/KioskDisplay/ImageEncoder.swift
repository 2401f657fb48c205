// SPDX-License-Identifier: GPL-3.0-or-later
import CJPEG
import CKioskShims

/// A failure to encode an image (out of memory, bad parameters). Thread: a value.
public struct ImageEncodeError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// How `ImageEncoder.png(rows:…)` lays out a PNG. Thread: a value.
public struct PNGFormat: Sendable, Equatable {
    /// PNG colour types.
    public enum ColorType: Int32, Sendable {
        case gray = 0
        case rgb = 2
        case palette = 3
        case grayAlpha = 4
        case rgba = 6
    }

    public var colorType: ColorType
    /// 1, 2, 4, 8 or 16 (16-bit samples big-endian, as PNG stores them).
    public var bitDepth: Int
    public var interlaced: Bool
    /// (r, g, b) triples, for `.palette`.
    public var palette: [UInt8]
    /// Alpha per palette entry, for `.palette`.
    public var paletteAlpha: [UInt8]

    public init(
        colorType: ColorType, bitDepth: Int = 8, interlaced: Bool = false, palette: [UInt8] = [],
        paletteAlpha: [UInt8] = []
    ) {
        self.colorType = colorType
        self.bitDepth = bitDepth
        self.interlaced = interlaced
        self.palette = palette
        self.paletteAlpha = paletteAlpha
    }
}

/// Encodes PNG (libpng) and JPEG (libjpeg-turbo): snapshots of the screen, golden images, and
/// the test pictures of every kind the decoder must read. Thread: any.
public enum ImageEncoder {
    /// A PNG of XRGB8888 pixels (the canvas's format), opaque RGB.
    public static func png(xrgb pixels: UnsafeBufferPointer<UInt32>, width: Int, height: Int) throws(ImageEncodeError)
        -> [UInt8]
    {
        // Little-endian XRGB8888 is B, G, R, X in memory: libpng swaps to RGB and drops the filler.
        var format = kiosk_png_format()
        format.color_type = PNGFormat.ColorType.rgb.rawValue
        format.bit_depth = 8
        format.bgr = 1
        format.strip_filler = 1
        format.compression_level = 6
        return try encode(UnsafeRawPointer(pixels.baseAddress!), stride: width * 4, width, height, &format)
    }

    /// A PNG of an `Image` (RGBA, straight alpha).
    public static func png(_ image: Image) throws(ImageEncodeError) -> [UInt8] {
        var rows = [UInt8](repeating: 0, count: image.width * image.height * 4)
        for i in 0..<image.pixels.count {
            let c = Color(premultiplied: image.pixels[i])
            rows[4 * i] = c.red
            rows[4 * i + 1] = c.green
            rows[4 * i + 2] = c.blue
            rows[4 * i + 3] = c.alpha
        }
        return try png(rows: rows, width: image.width, height: image.height, format: PNGFormat(colorType: .rgba))
    }

    /// A PNG from rows already in the PNG's sample layout (packed, `format.bitDepth` per sample).
    public static func png(rows: [UInt8], width: Int, height: Int, format: PNGFormat) throws(ImageEncodeError)
        -> [UInt8]
    {
        let channels: Int
        switch format.colorType {
        case .gray, .palette: channels = 1
        case .grayAlpha: channels = 2
        case .rgb: channels = 3
        case .rgba: channels = 4
        }
        let stride = (width * channels * format.bitDepth + 7) / 8
        guard rows.count >= stride * height else {
            throw ImageEncodeError(message: "png: \(rows.count) bytes of rows, \(stride * height) needed")
        }
        let result: Result<[UInt8], ImageEncodeError> = rows.withUnsafeBytes { raw in
            format.palette.withUnsafeBufferPointer { palette in
                format.paletteAlpha.withUnsafeBufferPointer { alpha in
                    var c = kiosk_png_format()
                    c.color_type = format.colorType.rawValue
                    c.bit_depth = Int32(format.bitDepth)
                    c.interlaced = format.interlaced ? 1 : 0
                    c.palette = palette.baseAddress
                    c.palette_count = Int32(format.palette.count / 3)
                    c.trns = alpha.baseAddress
                    c.trns_count = Int32(format.paletteAlpha.count)
                    c.compression_level = -1
                    return Result { () throws(ImageEncodeError) in
                        try encode(raw.baseAddress!, stride: stride, width, height, &c)
                    }
                }
            }
        }
        return try result.get()
    }

    private static func encode(
        _ rows: UnsafeRawPointer, stride: Int, _ width: Int, _ height: Int, _ format: inout kiosk_png_format
    ) throws(ImageEncodeError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let rc = kiosk_png_encode(
            rows.assumingMemoryBound(to: UInt8.self), stride, UInt32(width), UInt32(height), &format, &out, &size,
            &message, message.count)
        guard rc == 0, let out else { throw ImageEncodeError(message: "png: \(cString(message))") }
        defer { kiosk_png_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// JPEG colour models the encoder can write.
    public enum JPEGColors: Sendable {
        /// Rows of R, G, B bytes; stored as YCbCr.
        case rgb
        /// Rows of one gray byte; stored as a one-component JPEG.
        case gray
        /// Rows of Adobe-style C, M, Y, K bytes (255 − ink); stored as YCCK.
        case cmyk
    }

    /// A JPEG of `pixels` (3, 1 or 4 bytes per pixel by `colors`).
    public static func jpeg(
        _ pixels: [UInt8], width: Int, height: Int, colors: JPEGColors = .rgb, quality: Int = 90,
        progressive: Bool = false
    ) throws(ImageEncodeError) -> [UInt8] {
        let (format, channels, subsampling): (TJPF, Int, TJSAMP) =
            switch colors {
            case .rgb: (TJPF_RGB, 3, TJSAMP_420)
            case .gray: (TJPF_GRAY, 1, TJSAMP_GRAY)
            case .cmyk: (TJPF_CMYK, 4, TJSAMP_420)
            }
        guard pixels.count >= width * height * channels else {
            throw ImageEncodeError(message: "jpeg: \(pixels.count) bytes, \(width * height * channels) needed")
        }
        guard let handle = tjInitCompress() else { throw ImageEncodeError(message: "jpeg: tjInitCompress failed") }
        defer { tjDestroy(handle) }
        var out: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let flags = progressive ? TJFLAG_PROGRESSIVE : 0
        let rc = pixels.withUnsafeBufferPointer { buffer in
            tjCompress2(
                handle, buffer.baseAddress, Int32(width), Int32(width * channels), Int32(height),
                Int32(format.rawValue),
                &out, &size, Int32(subsampling.rawValue), Int32(quality), flags)
        }
        guard rc == 0, let out else {
            let reason = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown error"
            throw ImageEncodeError(message: "jpeg: \(reason)")
        }
        defer { tjFree(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }
}
