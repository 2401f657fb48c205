// SPDX-License-Identifier: GPL-3.0-or-later
import KioskDisplay
import Testing

struct ImageScalingTests {
    @Test func areaFilterAveragesACheckerboardToGray() {
        // 1-pixel black/white checkerboard: any good downscale gives flat gray, not aliasing.
        var pixels = [UInt32](repeating: 0, count: 64 * 64)
        for y in 0..<64 {
            for x in 0..<64 { pixels[y * 64 + x] = (x + y) % 2 == 0 ? 0xFFFF_FFFF : 0xFF00_0000 }
        }
        let image = Image(width: 64, height: 64, pixels: pixels)
        for side in [32, 21, 10, 7] {
            let small = image.resized(.fill(Size(width: side, height: side)))
            #expect(small.width == side && small.height == side)
            for p in small.pixels {
                let c = Color(premultiplied: p)
                #expect(abs(Int(c.red) - 128) <= 16, "\(side)px: \(c) should be mid gray")
            }
        }
    }

    @Test func areaFilterKeepsAGradientsAverage() {
        var pixels = [UInt32](repeating: 0, count: 300 * 10)
        for y in 0..<10 {
            for x in 0..<300 { pixels[y * 300 + x] = Color(red: UInt8(x * 255 / 299), green: 0, blue: 0).argb }
        }
        let image = Image(width: 300, height: 10, pixels: pixels)
        let small = image.resized(.fit(Size(width: 30, height: 30)))
        #expect(small.width == 30 && small.height == 1)
        // Monotonic and spanning nearly the whole range.
        let reds = small.pixels.map { Int(Color(premultiplied: $0).red) }
        #expect(reds == reds.sorted())
        #expect(reds.first! < 10 && reds.last! > 245)
    }

    @Test func transparentEdgesDoNotBleedColour() {
        // Red opaque left half, fully transparent *green* right half: averaging must not turn
        // the edge greenish (premultiplied alpha makes transparent pixels carry no colour).
        var pixels = [UInt32](repeating: 0, count: 4 * 4)
        for y in 0..<4 {
            for x in 0..<4 {
                pixels[y * 4 + x] = x < 2 ? 0xFFFF_0000 : Color(red: 0, green: 255, blue: 0, alpha: 0).premultiplied
            }
        }
        let small = Image(width: 4, height: 4, pixels: pixels).resized(.fill(Size(width: 1, height: 1)))
        let c = Color(premultiplied: small.pixels[0])
        #expect(abs(Int(c.alpha) - 128) <= 2)
        #expect(c.green == 0 && c.red > 250)
    }

    @Test func fillCropsTheCentreToKeepTheAspectRatio() {
        // 300×100: left third blue, middle red, right third green. Filling a square keeps the middle.
        var pixels = [UInt32](repeating: 0, count: 300 * 100)
        for y in 0..<100 {
            for x in 0..<300 { pixels[y * 300 + x] = x < 100 ? 0xFF00_00FF : x < 200 ? 0xFFFF_0000 : 0xFF00_FF00 }
        }
        let square = Image(width: 300, height: 100, pixels: pixels).resized(.fill(Size(width: 50, height: 50)))
        #expect(square.pixels.allSatisfy { $0 == 0xFFFF_0000 })
    }

    @Test func enlargingIsBilinear() {
        let image = Image(width: 2, height: 1, pixels: [0xFF00_0000, 0xFFFF_FFFF])
        let big = image.resized(.fill(Size(width: 8, height: 4)))
        #expect(big.width == 8 && big.height == 4)
        let row = (0..<8).map { Int(Color(premultiplied: big.pixels[$0]).red) }
        #expect(row == row.sorted() && row.first == 0 && row.last == 255)
        #expect(Set(row).count > 3, "a smooth ramp, not a nearest-neighbour step")
    }
}
