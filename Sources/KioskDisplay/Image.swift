// SPDX-License-Identifier: GPL-3.0-or-later
/// A decoded picture: premultiplied-alpha ARGB pixels, row-major, `width × height`.
///
/// Premultiplied so that scaling and blending need no division and edges of transparent areas do
/// not bleed colour. A value: it crosses threads freely (artwork is decoded on a worker thread).
public struct Image: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// 0xAARRGGBB with R, G, B already multiplied by A.
    public var pixels: [UInt32]

    public init(width: Int, height: Int, pixels: [UInt32]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height, "pixel count does not match size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// An image of one colour.
    public init(width: Int, height: Int, color: Color) {
        self.init(width: width, height: height, pixels: [UInt32](repeating: color.premultiplied, count: width * height))
    }

    public var size: Size { Size(width: width, height: height) }

    /// The straight-alpha colour at (x, y).
    public func color(x: Int, y: Int) -> Color { Color(premultiplied: pixels[y * width + x]) }

    /// Whether every pixel is fully opaque.
    public var isOpaque: Bool { pixels.allSatisfy { $0 >> 24 == 0xFF } }

    /// This image scaled to `target` (see `ImageTarget`): an area filter when shrinking, bilinear
    /// when enlarging.
    public func resized(_ target: ImageTarget) -> Image {
        let plan = ResamplePlan(source: size, target: target)
        if plan.isIdentity(source: size) { return self }
        if plan.enlarges {
            return Resampler.bilinear(self, crop: plan.crop, to: plan.output)
        }
        var scaler = AreaScaler(sourceWidth: width, crop: plan.crop, output: plan.output)
        var row = [UInt8](repeating: 0, count: width * 4)
        for y in scaler.rowsNeeded {
            for x in 0..<width {
                let c = Color(premultiplied: pixels[y * width + x])
                row[4 * x] = c.red
                row[4 * x + 1] = c.green
                row[4 * x + 2] = c.blue
                row[4 * x + 3] = c.alpha
            }
            row.withUnsafeBufferPointer { scaler.add(row: y, rgba: $0.baseAddress!) }
        }
        return scaler.finish()
    }
}

/// How a decoded image is fitted to the size it is shown at. Thread: a value.
public enum ImageTarget: Sendable, Equatable, Hashable {
    /// Keep the image's own size.
    case original
    /// Exactly this size, cropped in the centre to keep the aspect ratio (album covers in squares).
    case fill(Size)
    /// The largest size inside this box with the image's aspect ratio, never larger than the image.
    case fit(Size)
}

extension Color {
    /// The premultiplied 0xAARRGGBB form used by `Image` and the canvas's blits.
    public var premultiplied: UInt32 {
        let a = UInt32(alpha)
        if a == 255 { return argb }
        func mul(_ c: UInt8) -> UInt32 { (UInt32(c) * a + 127) / 255 }
        return a << 24 | mul(red) << 16 | mul(green) << 8 | mul(blue)
    }

    /// The straight colour of a premultiplied pixel.
    public init(premultiplied p: UInt32) {
        let a = p >> 24
        if a == 255 || a == 0 {
            self.init(argb: a == 0 ? 0 : p)
            return
        }
        func div(_ c: UInt32) -> UInt8 { UInt8(min(255, (c * 255 + a / 2) / a)) }
        self.init(red: div(p >> 16 & 0xFF), green: div(p >> 8 & 0xFF), blue: div(p & 0xFF), alpha: UInt8(a))
    }
}
