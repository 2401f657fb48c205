// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims

/// The image formats artwork comes in. Thread: a value.
public enum ImageFormat: String, Sendable {
    case jpeg = "JPEG"
    case png = "PNG"
}

/// Bounds on what an untrusted image may cost before a byte of pixel memory is allocated.
///
/// The defaults let through any sensible cover (a 6000×6000 progressive JPEG) and refuse a
/// 20000×20000 "cover" or a decompression bomb with a message. Thread: a value.
public struct ImageLimits: Sendable, Equatable {
    /// Largest encoded file.
    public var maxInputBytes: Int
    /// Largest width and height.
    public var maxWidth: Int
    public var maxHeight: Int
    /// Largest width × height.
    public var maxPixels: Int
    /// Largest memory the decoder may need for pixels: output buffers, the whole-image coefficient
    /// buffer libjpeg keeps for a multi-scan JPEG (progressive, or sequential with a first scan that
    /// lacks a component), an interlaced PNG held whole. libjpeg is capped at what is left of it.
    public var maxDecodedBytes: Int

    public init(
        maxInputBytes: Int = 16 << 20, maxWidth: Int = 10_000, maxHeight: Int = 10_000,
        maxPixels: Int = 36_000_000, maxDecodedBytes: Int = 64 << 20
    ) {
        self.maxInputBytes = maxInputBytes
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxPixels = maxPixels
        self.maxDecodedBytes = maxDecodedBytes
    }

    public static let `default` = ImageLimits()
}

/// Why an image was not decoded. The description is a sentence for the log. Thread: a value.
public enum ImageError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case inputTooLarge(bytes: Int, limit: Int)
    case unknownFormat
    case dimensionsTooLarge(format: ImageFormat, width: Int, height: Int, limits: ImageLimits)
    case needsTooMuchMemory(format: ImageFormat, bytes: Int, limit: Int)
    /// The library itself refused to allocate past what the limit left it.
    case libraryOverBudget(format: ImageFormat, limit: Int)
    case corrupt(format: ImageFormat, reason: String)

    public var description: String {
        switch self {
        case .empty:
            return "the image is empty (0 bytes)"
        case .inputTooLarge(let bytes, let limit):
            return "the image file has \(megabytes(bytes)), more than the \(megabytes(limit)) limit"
        case .unknownFormat:
            return "not a JPEG or PNG image"
        case .dimensionsTooLarge(let format, let width, let height, let limits):
            return
                "the \(format.rawValue) image is \(width)×\(height) pixels, more than the limit of \(limits.maxWidth)×\(limits.maxHeight) and \(limits.maxPixels / 1_000_000) megapixels"
        case .needsTooMuchMemory(let format, let bytes, let limit):
            return
                "decoding the \(format.rawValue) image would need \(megabytes(bytes)) of memory, more than the \(megabytes(limit)) limit"
        case .libraryOverBudget(let format, let limit):
            return "decoding the \(format.rawValue) image would need more memory than the \(megabytes(limit)) limit"
        case .corrupt(let format, let reason):
            return "corrupt \(format.rawValue) image: \(reason)"
        }
    }
}

func megabytes(_ bytes: Int) -> String {
    if bytes < 1 << 20 { return "\((bytes + 1023) / 1024) KB" }
    let tenths = (bytes * 10 + (1 << 19)) >> 20
    return tenths % 10 == 0 ? "\(tenths / 10) MB" : "\(tenths / 10).\(tenths % 10) MB"
}

/// Decodes JPEG (libjpeg-turbo) and PNG (libpng) into `Image`s of the size they are shown at.
///
/// JPEGs are decoded at a reduced scale directly (1/2, 1/4, 1/8 … as long as the result is at
/// least the target size) and then area-filtered; non-interlaced PNGs are filtered row by row as
/// they are read. Every limit in `ImageLimits` is checked from the header, before allocating.
/// Thread: any (no shared state); the display calls it on its artwork worker.
public enum ImageDecoder {
    /// The format by magic number, or nil.
    public static func format(of bytes: [UInt8]) -> ImageFormat? {
        if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF { return .jpeg }
        if bytes.count >= 8 && bytes[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return .png
        }
        return nil
    }

    /// Decodes `bytes` and fits the picture to `target`.
    public static func decode(_ bytes: [UInt8], target: ImageTarget = .original, limits: ImageLimits = .default)
        throws(ImageError) -> Image
    {
        var gauge = HeapGauge.off
        return try decode(bytes, target: target, limits: limits, gauge: &gauge)
    }

    /// `decode`, sampling `gauge` where the decoder's memory peaks (after the library's buffers
    /// exist, after the pixels are read, after fitting): what tests and the fuzzer hold against
    /// `limits.maxDecodedBytes`.
    public static func decode(
        _ bytes: [UInt8], target: ImageTarget = .original, limits: ImageLimits = .default, gauge: inout HeapGauge
    ) throws(ImageError) -> Image {
        if bytes.isEmpty { throw .empty }
        if bytes.count > limits.maxInputBytes { throw .inputTooLarge(bytes: bytes.count, limit: limits.maxInputBytes) }
        switch format(of: bytes) {
        case .jpeg: return try decodeJPEG(bytes, target: target, limits: limits, gauge: &gauge)
        case .png: return try decodePNG(bytes, target: target, limits: limits, gauge: &gauge)
        case nil: throw .unknownFormat
        }
    }

    static func checkDimensions(_ format: ImageFormat, _ width: Int, _ height: Int, _ limits: ImageLimits)
        throws(ImageError)
    {
        if width <= 0 || height <= 0 {
            throw .corrupt(format: format, reason: "the header gives a size of \(width)×\(height)")
        }
        if width > limits.maxWidth || height > limits.maxHeight || width * height > limits.maxPixels {
            throw .dimensionsTooLarge(format: format, width: width, height: height, limits: limits)
        }
    }

    static func checkMemory(_ format: ImageFormat, _ bytes: Int, _ limits: ImageLimits) throws(ImageError) {
        if bytes > limits.maxDecodedBytes {
            throw .needsTooMuchMemory(format: format, bytes: bytes, limit: limits.maxDecodedBytes)
        }
    }

    // MARK: - JPEG

    /// Decodes through libjpeg (kiosk_jpeg.c). The header and the first scan header are read before
    /// anything big is allocated: whether libjpeg will buffer the whole image's coefficients (a
    /// progressive image, or a sequential one whose first scan lacks a component) and how much that
    /// buffer takes come from libjpeg itself, so the bound counts what it will allocate; and its
    /// memory manager is capped at what the budget leaves, so an image our count misjudged is
    /// refused by libjpeg before the allocation, not after.
    static func decodeJPEG(_ bytes: [UInt8], target: ImageTarget, limits: ImageLimits, gauge: inout HeapGauge)
        throws(ImageError) -> Image
    {
        var message = [CChar](repeating: 0, count: 256)
        var header = kiosk_jpeg_header()
        let outcome: Result<Image, ImageError> = bytes.withUnsafeBufferPointer { buffer in
            guard let reader = kiosk_jpeg_open(buffer.baseAddress, buffer.count, &header, &message, message.count)
            else { return .failure(.corrupt(format: .jpeg, reason: cString(message))) }
            defer { kiosk_jpeg_close(reader) }
            do throws(ImageError) {
                return .success(try readJPEG(reader, header, target: target, limits: limits, gauge: &gauge))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    private static func readJPEG(
        _ reader: OpaquePointer, _ header: kiosk_jpeg_header, target: ImageTarget, limits: ImageLimits,
        gauge: inout HeapGauge
    ) throws(ImageError) -> Image {
        // Also on the way out of a refusal: what libjpeg holds then is still allocated.
        defer { gauge.sample() }
        let source = Size(width: Int(header.width), height: Int(header.height))
        try checkDimensions(.jpeg, source.width, source.height, limits)
        let plan = ResamplePlan(source: source, target: target)

        // The smallest scale libjpeg offers (m/8, m ≤ 8) that still covers the output size.
        var scale = 8
        var scaled = source
        if target != .original {
            for m in 1...8 {
                let w = (source.width * m + 7) / 8
                let h = (source.height * m + 7) / 8
                let fx = Double(w) / Double(source.width)
                let fy = Double(h) / Double(source.height)
                guard plan.crop.width * fx >= Double(plan.output.width) - 1e-9,
                    plan.crop.height * fy >= Double(plan.output.height) - 1e-9
                else { continue }
                scale = m
                scaled = Size(width: w, height: h)
                break
            }
        }
        let outputBytes = scaled.width * scaled.height * 4
        let fitBytes = plan.output.width * plan.output.height * 16
        try checkMemory(.jpeg, outputBytes + Int(header.coefficient_bytes) + fitBytes, limits)

        var pixels = [UInt8](repeating: 0, count: outputBytes)
        var message = [CChar](repeating: 0, count: 256)
        var width: UInt32 = 0
        var height: UInt32 = 0
        // What the budget leaves for libjpeg's image buffers (at least 1: 0 would mean no cap).
        let libraryBudget = max(limits.maxDecodedBytes - outputBytes - fitBytes, 1)
        let started = kiosk_jpeg_start(reader, UInt32(scale), libraryBudget, &width, &height, &message, message.count)
        gauge.sample()
        if started == KIOSK_JPEG_OVER_BUDGET {
            throw .libraryOverBudget(format: .jpeg, limit: limits.maxDecodedBytes)
        }
        if started != KIOSK_JPEG_OK { throw .corrupt(format: .jpeg, reason: cString(message)) }
        if Int(width) != scaled.width || Int(height) != scaled.height {
            throw .corrupt(
                format: .jpeg, reason: "libjpeg scaled it to \(width)×\(height), not \(scaled.width)×\(scaled.height)")
        }
        let read = pixels.withUnsafeMutableBufferPointer { out in
            kiosk_jpeg_read_image(reader, out.baseAddress, scaled.width * 4, &message, message.count)
        }
        gauge.sample()
        if read != KIOSK_JPEG_OK { throw .corrupt(format: .jpeg, reason: cString(message)) }
        if header.cmyk != 0 {
            // libjpeg returns Adobe-style inverted CMYK: each value is 255 − ink.
            for i in stride(from: 0, to: pixels.count, by: 4) {
                let k = UInt32(pixels[i + 3])
                pixels[i] = UInt8((UInt32(pixels[i]) * k + 127) / 255)
                pixels[i + 1] = UInt8((UInt32(pixels[i + 1]) * k + 127) / 255)
                pixels[i + 2] = UInt8((UInt32(pixels[i + 2]) * k + 127) / 255)
                pixels[i + 3] = 255
            }
        }
        let scaledPlan = plan.scaled(
            by: Double(scaled.width) / Double(source.width), Double(scaled.height) / Double(source.height))
        return fit(rgba: pixels, size: scaled, plan: scaledPlan)
    }

    /// Fits a whole decoded RGBA (straight alpha) buffer according to `plan`.
    static func fit(rgba: [UInt8], size: Size, plan: ResamplePlan) -> Image {
        if plan.isIdentity(source: size) || plan.enlarges {
            var pixels = [UInt32](repeating: 0, count: size.width * size.height)
            rgba.withUnsafeBufferPointer { src in
                for i in 0..<pixels.count { pixels[i] = premultiply(src.baseAddress! + 4 * i) }
            }
            let image = Image(width: size.width, height: size.height, pixels: pixels)
            if plan.isIdentity(source: size) { return image }
            return Resampler.bilinear(image, crop: plan.crop, to: plan.output)
        }
        var scaler = AreaScaler(sourceWidth: size.width, crop: plan.crop, output: plan.output)
        rgba.withUnsafeBufferPointer { src in
            for y in scaler.rowsNeeded where y < size.height {
                scaler.add(row: y, rgba: src.baseAddress! + y * size.width * 4)
            }
        }
        return scaler.finish()
    }

    @inline(__always)
    static func premultiply(_ p: UnsafePointer<UInt8>) -> UInt32 {
        let a = UInt32(p[3])
        if a == 255 { return 0xFF00_0000 | UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2]) }
        func mul(_ c: UInt8) -> UInt32 { (UInt32(c) * a + 127) / 255 }
        return a << 24 | mul(p[0]) << 16 | mul(p[1]) << 8 | mul(p[2])
    }

    // MARK: - PNG

    static func decodePNG(_ bytes: [UInt8], target: ImageTarget, limits: ImageLimits, gauge: inout HeapGauge)
        throws(ImageError) -> Image
    {
        var message = [CChar](repeating: 0, count: 256)
        // libpng's own guards; ours (with the real numbers in the message) follow once the header is read.
        var pngLimits = kiosk_png_limits(max_width: 1_000_000, max_height: 1_000_000, max_chunk_bytes: 4 << 20)
        let outcome: Result<Image, ImageError> = bytes.withUnsafeBufferPointer { buffer in
            guard let reader = kiosk_png_open(buffer.baseAddress, buffer.count, &pngLimits, &message, message.count)
            else { return .failure(.corrupt(format: .png, reason: cString(message))) }
            defer { kiosk_png_close(reader) }
            do throws(ImageError) {
                return .success(try readPNG(reader, target: target, limits: limits, gauge: &gauge))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    private static func readPNG(
        _ reader: OpaquePointer, target: ImageTarget, limits: ImageLimits, gauge: inout HeapGauge
    ) throws(ImageError) -> Image {
        // Now (what libpng kept of the chunks before the image data) and on the way out, whatever the path.
        gauge.sample()
        defer { gauge.sample() }
        let size = Size(width: Int(kiosk_png_width(reader)), height: Int(kiosk_png_height(reader)))
        try checkDimensions(.png, size.width, size.height, limits)
        let plan = ResamplePlan(source: size, target: target)
        let interlaced = kiosk_png_interlaced(reader) != 0
        let whole = interlaced || plan.enlarges || plan.isIdentity(source: size)
        // libpng keeps two rows of the widest (16-bit RGBA) form; we keep one RGBA row or the whole image.
        let rowBytes = size.width * 8 * 2 + size.width * 4
        let needed = (whole ? size.width * size.height * 4 : 0) + rowBytes + plan.output.width * plan.output.height * 16
        try checkMemory(.png, needed, limits)

        var message = [CChar](repeating: 0, count: 256)
        if kiosk_png_start_rgba(reader, &message, message.count) != 0 {
            throw .corrupt(format: .png, reason: cString(message))
        }
        if whole {
            var pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
            let rc = pixels.withUnsafeMutableBufferPointer { out in
                kiosk_png_read_image(reader, out.baseAddress, size.width * 4, &message, message.count)
            }
            gauge.sample()
            if rc != 0 { throw .corrupt(format: .png, reason: cString(message)) }
            return fit(rgba: pixels, size: size, plan: plan)
        }
        var scaler = AreaScaler(sourceWidth: size.width, crop: plan.crop, output: plan.output)
        var row = [UInt8](repeating: 0, count: size.width * 4)
        let last = min(size.height, scaler.rowsNeeded.upperBound)
        for y in 0..<last {
            let rc = row.withUnsafeMutableBufferPointer { out in
                kiosk_png_read_row(reader, out.baseAddress, &message, message.count)
            }
            if rc != 0 { throw .corrupt(format: .png, reason: cString(message)) }
            row.withUnsafeBufferPointer { scaler.add(row: y, rgba: $0.baseAddress!) }
        }
        return scaler.finish()
    }
}

/// A Swift string from a NUL-terminated C buffer.
func cString(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
