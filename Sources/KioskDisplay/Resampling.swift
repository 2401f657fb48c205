// SPDX-License-Identifier: GPL-3.0-or-later
/// The part of a source image that is shown and the size it becomes. Thread: a value.
struct ResamplePlan: Equatable {
    /// Source region in source pixels (fractional for a centred crop).
    var crop: (x: Double, y: Double, width: Double, height: Double)
    var output: Size

    static func == (a: ResamplePlan, b: ResamplePlan) -> Bool {
        a.crop == b.crop && a.output == b.output
    }

    init(source: Size, target: ImageTarget) {
        let sw = Double(max(1, source.width))
        let sh = Double(max(1, source.height))
        switch target {
        case .original:
            crop = (0, 0, sw, sh)
            output = Size(width: max(1, source.width), height: max(1, source.height))
        case .fill(let size):
            let tw = Double(max(1, size.width))
            let th = Double(max(1, size.height))
            // Largest centred region with the target's aspect ratio.
            if sw / sh > tw / th {
                let w = sh * tw / th
                crop = ((sw - w) / 2, 0, w, sh)
            } else {
                let h = sw * th / tw
                crop = (0, (sh - h) / 2, sw, h)
            }
            output = Size(width: max(1, size.width), height: max(1, size.height))
        case .fit(let size):
            let scale = min(1, min(Double(max(1, size.width)) / sw, Double(max(1, size.height)) / sh))
            crop = (0, 0, sw, sh)
            output = Size(
                width: max(1, Int((sw * scale).rounded())), height: max(1, Int((sh * scale).rounded())))
        }
    }

    /// Whether any output dimension is larger than the region it comes from.
    var enlarges: Bool { Double(output.width) > crop.width + 1e-9 || Double(output.height) > crop.height + 1e-9 }

    func isIdentity(source: Size) -> Bool {
        crop == (0, 0, Double(source.width), Double(source.height)) && output == source
    }

    /// The same plan for the source scaled by `factor` (JPEG decoding at a reduced scale).
    func scaled(by fx: Double, _ fy: Double) -> ResamplePlan {
        var copy = self
        copy.crop = (crop.x * fx, crop.y * fy, crop.width * fx, crop.height * fy)
        return copy
    }
}

/// Shrinks a stream of source rows with an area (box) filter: each output pixel is the average of
/// the source area it covers, with fractional weights at the edges. Rows arrive one at a time
/// (a PNG is decoded row by row), so a large source never has to be held in memory whole.
///
/// Input rows are 8-bit RGBA with straight alpha; averaging is done on premultiplied values.
/// Thread: one thread at a time.
struct AreaScaler {
    let sourceWidth: Int
    let output: Size
    private let cropY: Double
    private let scaleY: Double
    /// For output column x: taps tapStart[x] ..< tapStart[x + 1] in tapColumn / tapWeight.
    private var tapStart: [Int] = []
    private var tapColumn: [Int] = []
    private var tapWeight: [Float] = []
    private var accumulator: [Float]
    private var rowBuffer: [Float]
    /// Source rows that contribute (others may be skipped).
    let rowsNeeded: Range<Int>

    init(sourceWidth: Int, crop: (x: Double, y: Double, width: Double, height: Double), output: Size) {
        self.sourceWidth = sourceWidth
        self.output = output
        cropY = crop.y
        scaleY = crop.height / Double(output.height)
        let scaleX = crop.width / Double(output.width)
        for x in 0..<output.width {
            tapStart.append(tapColumn.count)
            let x0 = crop.x + Double(x) * scaleX
            let x1 = x0 + scaleX
            var column = Int(x0.rounded(.down))
            while Double(column) < x1 && column < sourceWidth {
                let overlap = min(x1, Double(column + 1)) - max(x0, Double(column))
                if overlap > 1e-9 && column >= 0 {
                    tapColumn.append(column)
                    tapWeight.append(Float(overlap / scaleX))
                }
                column += 1
            }
        }
        tapStart.append(tapColumn.count)
        accumulator = [Float](repeating: 0, count: output.width * output.height * 4)
        rowBuffer = [Float](repeating: 0, count: output.width * 4)
        let lastRow = Int((crop.y + crop.height).rounded(.up))
        rowsNeeded = max(0, Int(crop.y.rounded(.down)))..<max(0, lastRow)
    }

    /// Adds source row `y` (`sourceWidth` RGBA pixels). Rows outside `rowsNeeded` are ignored.
    mutating func add(row y: Int, rgba: UnsafePointer<UInt8>) {
        guard rowsNeeded.contains(y) else { return }
        // Output rows this source row overlaps: [y, y + 1) against [cropY + j·s, cropY + (j+1)·s).
        let top = (Double(y) - cropY) / scaleY
        let bottom = (Double(y + 1) - cropY) / scaleY
        let j0 = max(0, Int(top.rounded(.down)))
        let j1 = min(output.height - 1, Int(bottom.rounded(.up)) - 1)
        if j1 < j0 { return }
        // Horizontal pass: premultiply and filter into rowBuffer.
        let width = output.width
        tapStart.withUnsafeBufferPointer { starts in
            tapColumn.withUnsafeBufferPointer { columns in
                tapWeight.withUnsafeBufferPointer { weights in
                    rowBuffer.withUnsafeMutableBufferPointer { out in
                        for x in 0..<width {
                            var r: Float = 0
                            var g: Float = 0
                            var b: Float = 0
                            var a: Float = 0
                            for t in starts[x]..<starts[x + 1] {
                                let p = rgba + 4 * columns[t]
                                let w = weights[t]
                                let alpha = Float(p[3])
                                let wa = w * alpha * (1 / 255)
                                r += Float(p[0]) * wa
                                g += Float(p[1]) * wa
                                b += Float(p[2]) * wa
                                a += alpha * w
                            }
                            out[4 * x] = r
                            out[4 * x + 1] = g
                            out[4 * x + 2] = b
                            out[4 * x + 3] = a
                        }
                    }
                }
            }
        }
        // Vertical pass: add to each overlapped output row with its share of this source row.
        for j in j0...j1 {
            let r0 = cropY + Double(j) * scaleY
            let overlap = min(Double(y + 1), r0 + scaleY) - max(Double(y), r0)
            if overlap <= 0 { continue }
            let weight = Float(overlap / scaleY)
            let base = j * width * 4
            rowBuffer.withUnsafeBufferPointer { row in
                accumulator.withUnsafeMutableBufferPointer { acc in
                    for i in 0..<(width * 4) { acc[base + i] += row[i] * weight }
                }
            }
        }
    }

    /// The scaled image (premultiplied ARGB).
    func finish() -> Image {
        var pixels = [UInt32](repeating: 0, count: output.width * output.height)
        for i in 0..<pixels.count {
            let a = min(255, max(0, accumulator[4 * i + 3].rounded()))
            func channel(_ v: Float) -> UInt32 { UInt32(min(a, max(0, v.rounded()))) }
            pixels[i] =
                UInt32(a) << 24 | channel(accumulator[4 * i]) << 16 | channel(accumulator[4 * i + 1]) << 8
                | channel(accumulator[4 * i + 2])
        }
        return Image(width: output.width, height: output.height, pixels: pixels)
    }
}

/// Enlarging (and mixed enlarge/shrink) with bilinear interpolation on premultiplied pixels.
enum Resampler {
    static func bilinear(
        _ source: Image, crop: (x: Double, y: Double, width: Double, height: Double), to output: Size
    ) -> Image {
        var pixels = [UInt32](repeating: 0, count: output.width * output.height)
        let sx = crop.width / Double(output.width)
        let sy = crop.height / Double(output.height)
        let maxX = source.width - 1
        let maxY = source.height - 1
        source.pixels.withUnsafeBufferPointer { src in
            for y in 0..<output.height {
                let fy = min(Double(maxY), max(0, crop.y + (Double(y) + 0.5) * sy - 0.5))
                let y0 = Int(fy)
                let y1 = min(maxY, y0 + 1)
                let wy = fy - Double(y0)
                for x in 0..<output.width {
                    let fx = min(Double(maxX), max(0, crop.x + (Double(x) + 0.5) * sx - 0.5))
                    let x0 = Int(fx)
                    let x1 = min(maxX, x0 + 1)
                    let wx = fx - Double(x0)
                    let p00 = src[y0 * source.width + x0]
                    let p10 = src[y0 * source.width + x1]
                    let p01 = src[y1 * source.width + x0]
                    let p11 = src[y1 * source.width + x1]
                    var result: UInt32 = 0
                    for shift in stride(from: 0, through: 24, by: 8) {
                        func c(_ p: UInt32) -> Double { Double(p >> UInt32(shift) & 0xFF) }
                        let top = c(p00) + (c(p10) - c(p00)) * wx
                        let bottom = c(p01) + (c(p11) - c(p01)) * wx
                        let v = (top + (bottom - top) * wy).rounded()
                        result |= UInt32(min(255, max(0, v))) << UInt32(shift)
                    }
                    pixels[y * output.width + x] = result
                }
            }
        }
        return Image(width: output.width, height: output.height, pixels: pixels)
    }
}
