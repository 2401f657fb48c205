// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// The working picture every screen is drawn into: XRGB8888 pixels (0xXXRRGGBB, X ignored),
/// row-major with a stride of `width`, allocated once.
///
/// Every drawing call is clipped to the canvas and to the current clip rectangle, so nothing a
/// screen draws can leave its area. Surfaces read `pixels` to show the picture.
/// Thread: one thread at a time (the display's loop thread, or a tool's main thread).
public final class Canvas {
    public let width: Int
    public let height: Int
    /// The pixels; `pixels[y * width + x]`.
    public let pixels: UnsafeMutableBufferPointer<UInt32>
    /// Drawing is limited to this rectangle (always inside `bounds`).
    public private(set) var clip: Rect

    public init(width: Int, height: Int, color: Color = Color(rgb: 0)) {
        precondition(width > 0 && height > 0 && width <= 8192 && height <= 8192, "canvas size \(width)×\(height)")
        self.width = width
        self.height = height
        pixels = .allocate(capacity: width * height)
        pixels.initialize(repeating: 0xFF00_0000 | color.argb)
        clip = Rect(x: 0, y: 0, width: width, height: height)
    }

    deinit {
        pixels.deallocate()
    }

    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }
    public var size: Size { Size(width: width, height: height) }

    /// Runs `body` with drawing limited to `rect` (inside the current clip).
    @discardableResult
    public func withClip<R>(_ rect: Rect, _ body: () throws -> R) rethrows -> R {
        let saved = clip
        clip = clip.intersection(rect)
        defer { clip = saved }
        return try body()
    }

    /// The colour at (x, y), opaque.
    public func color(x: Int, y: Int) -> Color { Color(rgb: pixels[y * width + x]) }

    /// Copies all pixels of a canvas of the same size.
    public func copy(from other: Canvas) {
        precondition(other.width == width && other.height == height, "canvas sizes differ")
        _ = pixels.update(fromContentsOf: other.pixels)
    }

    // MARK: - fills

    /// Fills the whole clip rectangle.
    public func fill(_ color: Color) { fill(clip, color) }

    /// Fills `rect` (clipped), blending when `color` is translucent.
    public func fill(_ rect: Rect, _ color: Color) {
        let r = rect.intersection(clip)
        if r.isEmpty || color.alpha == 0 { return }
        if color.alpha == 255 {
            let value = 0xFF00_0000 | color.argb
            for y in r.y..<r.maxY {
                let row = pixels.baseAddress! + y * width
                (row + r.x).update(repeating: value, count: r.width)
            }
            return
        }
        let premultiplied = color.premultiplied
        for y in r.y..<r.maxY {
            let row = pixels.baseAddress! + y * width
            for x in r.x..<r.maxX { row[x] = Canvas.blend(premultiplied, over: row[x]) }
        }
    }

    /// Fills `rect` with its corners rounded to `radius` (anti-aliased).
    public func fillRoundedRect(_ rect: Rect, radius: Double, _ color: Color) {
        let radius = max(0, min(radius, Double(min(rect.width, rect.height)) / 2))
        if radius < 0.5 {
            fill(rect, color)
            return
        }
        let r = rect.intersection(clip)
        if r.isEmpty { return }
        let corner = Int(radius.rounded(.up))
        // Middle band: full rows.
        fill(Rect(x: rect.x, y: rect.y + corner, width: rect.width, height: rect.height - 2 * corner), color)
        // Top and bottom bands: row spans between the corners plus anti-aliased corner pixels.
        let left = Double(rect.x) + radius
        let right = Double(rect.maxX) - radius
        let top = Double(rect.y) + radius
        let bottom = Double(rect.maxY) - radius
        for y in rect.y..<(rect.y + corner) where y >= r.y && y < r.maxY {
            roundedRow(y: y, rect: rect, centerY: top, left: left, right: right, radius: radius, corner: corner, color)
        }
        for y in (rect.maxY - corner)..<rect.maxY where y >= r.y && y < r.maxY && y >= rect.y + corner {
            roundedRow(
                y: y, rect: rect, centerY: bottom, left: left, right: right, radius: radius, corner: corner, color)
        }
    }

    private func roundedRow(
        y: Int, rect: Rect, centerY: Double, left: Double, right: Double, radius: Double, corner: Int, _ color: Color
    ) {
        let py = Double(y) + 0.5
        for x in rect.x..<rect.maxX {
            let px = Double(x) + 0.5
            let cx: Double
            if px < left {
                cx = left
            } else if px > right {
                cx = right
            } else {
                plot(x: x, y: y, color, coverage: 1)
                continue
            }
            let dx = px - cx
            let dy = py - centerY
            let coverage = min(1, max(0, radius + 0.5 - (dx * dx + dy * dy).squareRoot()))
            plot(x: x, y: y, color, coverage: coverage)
        }
    }

    /// Fills a circle (anti-aliased).
    public func fillCircle(centerX: Double, centerY: Double, radius: Double, _ color: Color) {
        let box = Rect(
            x: Int((centerX - radius - 1).rounded(.down)), y: Int((centerY - radius - 1).rounded(.down)),
            width: Int(2 * radius + 3), height: Int(2 * radius + 3)
        ).intersection(clip)
        if box.isEmpty { return }
        for y in box.y..<box.maxY {
            let dy = Double(y) + 0.5 - centerY
            for x in box.x..<box.maxX {
                let dx = Double(x) + 0.5 - centerX
                let coverage = min(1, max(0, radius + 0.5 - (dx * dx + dy * dy).squareRoot()))
                if coverage > 0 { plot(x: x, y: y, color, coverage: coverage) }
            }
        }
    }

    /// Fills a polygon (even-odd rule), anti-aliased by 4×4 supersampling. For small icons.
    public func fillPolygon(_ points: [(x: Double, y: Double)], _ color: Color) {
        guard points.count >= 3 else { return }
        let minX = points.map(\.x).min()!
        let maxX = points.map(\.x).max()!
        let minY = points.map(\.y).min()!
        let maxY = points.map(\.y).max()!
        let box = Rect(
            x: Int(minX.rounded(.down)), y: Int(minY.rounded(.down)),
            width: Int(maxX.rounded(.up)) - Int(minX.rounded(.down)),
            height: Int(maxY.rounded(.up)) - Int(minY.rounded(.down))
        ).intersection(clip)
        if box.isEmpty { return }
        func inside(_ px: Double, _ py: Double) -> Bool {
            var result = false
            var j = points.count - 1
            for i in 0..<points.count {
                let a = points[i]
                let b = points[j]
                if (a.y > py) != (b.y > py) && px < (b.x - a.x) * (py - a.y) / (b.y - a.y) + a.x { result.toggle() }
                j = i
            }
            return result
        }
        for y in box.y..<box.maxY {
            for x in box.x..<box.maxX {
                var hits = 0
                for sy in 0..<4 {
                    for sx in 0..<4 where inside(Double(x) + (Double(sx) + 0.5) / 4, Double(y) + (Double(sy) + 0.5) / 4)
                    {
                        hits += 1
                    }
                }
                if hits > 0 { plot(x: x, y: y, color, coverage: Double(hits) / 16) }
            }
        }
    }

    /// A rounded progress bar: `track` for the whole bar, `fill` for the first `fraction` of it.
    public func drawProgressBar(_ rect: Rect, fraction: Double, track: Color, fill: Color) {
        let radius = Double(rect.height) / 2
        fillRoundedRect(rect, radius: radius, track)
        let f = fraction.isFinite ? min(1, max(0, fraction)) : 0
        let filled = Int((Double(rect.width) * f).rounded())
        if filled <= 0 { return }
        // The fill keeps the bar's rounded ends: draw the rounded bar clipped to the filled part.
        withClip(Rect(x: rect.x, y: rect.y, width: filled, height: rect.height)) {
            fillRoundedRect(rect, radius: radius, fill)
        }
    }

    /// One pixel with `coverage` (0…1) of `color` (itself possibly translucent).
    @inline(__always)
    func plot(x: Int, y: Int, _ color: Color, coverage: Double) {
        guard clip.contains(x: x, y: y) else { return }
        let alpha = Int((Double(color.alpha) * coverage).rounded())
        if alpha <= 0 { return }
        let index = y * width + x
        if alpha >= 255 {
            pixels[index] = 0xFF00_0000 | color.argb
        } else {
            pixels[index] = Canvas.blend(color.withAlpha(UInt8(alpha)).premultiplied, over: pixels[index])
        }
    }

    // MARK: - blits

    /// Draws `image` with its top-left corner at (x, y), alpha-blended, times `opacity`.
    public func draw(_ image: Image, x: Int, y: Int, opacity: UInt8 = 255) {
        let target = Rect(x: x, y: y, width: image.width, height: image.height).intersection(clip)
        if target.isEmpty || opacity == 0 { return }
        image.pixels.withUnsafeBufferPointer { source in
            for row in target.y..<target.maxY {
                let src = source.baseAddress! + (row - y) * image.width + (target.x - x)
                let dst = pixels.baseAddress! + row * width + target.x
                for i in 0..<target.width {
                    var s = src[i]
                    if opacity != 255 { s = Canvas.scale(s, by: UInt32(opacity)) }
                    let a = s >> 24
                    if a == 255 {
                        dst[i] = s
                    } else if a != 0 {
                        dst[i] = Canvas.blend(s, over: dst[i])
                    }
                }
            }
        }
    }

    /// Draws `image` scaled to fill `rect` (centre-cropped to keep its aspect ratio).
    public func draw(_ image: Image, in rect: Rect) {
        if image.width == rect.width && image.height == rect.height {
            draw(image, x: rect.x, y: rect.y)
        } else {
            draw(image.resized(.fill(Size(width: rect.width, height: rect.height))), x: rect.x, y: rect.y)
        }
    }

    /// Paints `color` through an 8-bit coverage mask (a rendered glyph) whose top-left is (x, y).
    public func drawMask(
        _ mask: UnsafeBufferPointer<UInt8>, width maskWidth: Int, height maskHeight: Int, x: Int, y: Int,
        _ color: Color
    ) {
        let target = Rect(x: x, y: y, width: maskWidth, height: maskHeight).intersection(clip)
        if target.isEmpty { return }
        let colorAlpha = UInt32(color.alpha)
        let rgb = color.argb & 0xFF_FFFF
        for row in target.y..<target.maxY {
            let src = mask.baseAddress! + (row - y) * maskWidth + (target.x - x)
            let dst = pixels.baseAddress! + row * width + target.x
            for i in 0..<target.width {
                let m = UInt32(src[i])
                if m == 0 { continue }
                let a = colorAlpha == 255 ? m : Canvas.div255(m * colorAlpha)
                if a == 255 {
                    dst[i] = 0xFF00_0000 | rgb
                } else {
                    dst[i] = Canvas.blend(Canvas.scale(0xFF00_0000 | rgb, by: a), over: dst[i])
                }
            }
        }
    }

    // MARK: - pixel arithmetic

    /// x / 255, rounded, for x ≤ 255 × 255.
    @inline(__always)
    static func div255(_ x: UInt32) -> UInt32 {
        let t = x + 128
        return (t + (t >> 8)) >> 8
    }

    /// A premultiplied pixel times a / 255 (all four channels).
    @inline(__always)
    static func scale(_ p: UInt32, by a: UInt32) -> UInt32 {
        let rb = (p & 0x00FF_00FF) &* a &+ 0x0080_0080
        let ag = ((p >> 8) & 0x00FF_00FF) &* a &+ 0x0080_0080
        let rb2 = ((rb &+ ((rb >> 8) & 0x00FF_00FF)) >> 8) & 0x00FF_00FF
        let ag2 = (ag &+ ((ag >> 8) & 0x00FF_00FF)) & 0xFF00_FF00
        return rb2 | ag2
    }

    /// Premultiplied `source` over opaque `destination`.
    @inline(__always)
    static func blend(_ source: UInt32, over destination: UInt32) -> UInt32 {
        let inverse = 255 - (source >> 24)
        return 0xFF00_0000 | ((source & 0xFF_FFFF) &+ (scale(destination, by: inverse) & 0xFF_FFFF))
    }

    // MARK: - damage

    /// The rectangles where this canvas differs from `previous` (same size): changed rows grouped
    /// into bands (merged across small unchanged gaps), each as wide as its changed columns.
    public func changedRects(comparedTo previous: Canvas, mergeGap: Int = 8) -> [Rect] {
        precondition(previous.width == width && previous.height == height, "canvas sizes differ")
        var rects: [Rect] = []
        var current: Rect?
        for y in 0..<height {
            let a = pixels.baseAddress! + y * width
            let b = previous.pixels.baseAddress! + y * width
            if memcmp(a, b, width * 4) == 0 { continue }
            var lo = 0
            while a[lo] == b[lo] { lo += 1 }
            var hi = width - 1
            while a[hi] == b[hi] { hi -= 1 }
            let row = Rect(x: lo, y: y, width: hi - lo + 1, height: 1)
            if let c = current, y - c.maxY <= mergeGap {
                current = c.union(row)
            } else {
                if let c = current { rects.append(c) }
                current = row
            }
        }
        if let c = current { rects.append(c) }
        return rects
    }

    /// The canvas as a PNG file's bytes.
    public func pngData() throws(ImageEncodeError) -> [UInt8] {
        try ImageEncoder.png(xrgb: UnsafeBufferPointer(pixels), width: width, height: height)
    }
}
