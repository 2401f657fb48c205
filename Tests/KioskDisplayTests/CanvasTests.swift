// SPDX-License-Identifier: GPL-3.0-or-later
import KioskDisplay
import Testing

struct CanvasTests {
    @Test func fillIsClippedToCanvasAndClip() {
        let canvas = Canvas(width: 10, height: 10)
        canvas.fill(Rect(x: -5, y: -5, width: 8, height: 8), Color(rgb: 0xFF0000))
        #expect(canvas.color(x: 2, y: 2) == Color(rgb: 0xFF0000))
        #expect(canvas.color(x: 3, y: 3) == Color(rgb: 0))
        canvas.withClip(Rect(x: 5, y: 5, width: 2, height: 2)) {
            canvas.fill(Color(rgb: 0x00FF00))
        }
        #expect(canvas.color(x: 5, y: 5) == Color(rgb: 0x00FF00))
        #expect(canvas.color(x: 6, y: 6) == Color(rgb: 0x00FF00))
        #expect(canvas.color(x: 7, y: 7) == Color(rgb: 0))
        #expect(canvas.color(x: 4, y: 5) == Color(rgb: 0))
        // Drawing far outside does nothing (and does not crash).
        canvas.fill(Rect(x: 100, y: 100, width: 5, height: 5), Color(rgb: 0xFFFFFF))
        canvas.fillCircle(centerX: -50, centerY: -50, radius: 10, Color(rgb: 0xFFFFFF))
    }

    @Test func translucentFillBlends() {
        let canvas = Canvas(width: 2, height: 1, color: Color(rgb: 0x000000))
        canvas.fill(Color(red: 255, green: 255, blue: 255, alpha: 128))
        let c = canvas.color(x: 0, y: 0)
        #expect(abs(Int(c.red) - 128) <= 1)
    }

    @Test func roundedRectHasAntiAliasedCornersAndSolidMiddle() {
        let canvas = Canvas(width: 40, height: 40)
        let white = Color(rgb: 0xFFFFFF)
        canvas.fillRoundedRect(Rect(x: 0, y: 0, width: 40, height: 40), radius: 10, white)
        #expect(canvas.color(x: 0, y: 0) == Color(rgb: 0), "the corner itself stays background")
        #expect(canvas.color(x: 20, y: 20) == white)
        #expect(canvas.color(x: 20, y: 0) == white, "edges between corners are filled")
        // Pixels along the arc are partly covered.
        var partial = 0
        for y in 0..<10 {
            for x in 0..<10 where canvas.color(x: x, y: y).red > 0 && canvas.color(x: x, y: y).red < 255 {
                partial += 1
            }
        }
        #expect(partial >= 8)
    }

    @Test func alphaBlitUsesPremultipliedOver() {
        let canvas = Canvas(width: 3, height: 1, color: Color(rgb: 0x0000FF))
        let image = Image(
            width: 3, height: 1,
            pixels: [
                Color(rgb: 0xFF0000).premultiplied, Color(red: 255, green: 0, blue: 0, alpha: 128).premultiplied,
                Color(argb: 0).premultiplied,
            ])
        canvas.draw(image, x: 0, y: 0)
        #expect(canvas.color(x: 0, y: 0) == Color(rgb: 0xFF0000))
        let half = canvas.color(x: 1, y: 0)
        #expect(abs(Int(half.red) - 128) <= 1 && abs(Int(half.blue) - 127) <= 1)
        #expect(canvas.color(x: 2, y: 0) == Color(rgb: 0x0000FF), "transparent pixels leave the canvas alone")
    }

    @Test func progressBarFillsTheFraction() {
        let canvas = Canvas(width: 100, height: 10)
        let track = Color(rgb: 0x404040)
        let fill = Color(rgb: 0x00FF00)
        canvas.drawProgressBar(Rect(x: 0, y: 0, width: 100, height: 10), fraction: 0.3, track: track, fill: fill)
        #expect(canvas.color(x: 20, y: 5) == fill)
        #expect(canvas.color(x: 29, y: 5) == fill)
        #expect(canvas.color(x: 31, y: 5) == track)
        #expect(canvas.color(x: 80, y: 5) == track)
        canvas.drawProgressBar(Rect(x: 0, y: 0, width: 100, height: 10), fraction: .nan, track: track, fill: fill)
        #expect(canvas.color(x: 20, y: 5) == track, "a NaN fraction draws an empty bar")
    }

    @Test func changedRectsFindOnlyTheDifferences() {
        let a = Canvas(width: 50, height: 50)
        let b = Canvas(width: 50, height: 50)
        #expect(a.changedRects(comparedTo: b).isEmpty)
        a.fill(Rect(x: 10, y: 5, width: 3, height: 2), Color(rgb: 0xFFFFFF))
        a.fill(Rect(x: 30, y: 40, width: 5, height: 5), Color(rgb: 0xFFFFFF))
        let rects = a.changedRects(comparedTo: b)
        #expect(rects == [Rect(x: 10, y: 5, width: 3, height: 2), Rect(x: 30, y: 40, width: 5, height: 5)])
        // Close bands merge into one.
        let c = Canvas(width: 50, height: 50)
        c.fill(Rect(x: 0, y: 0, width: 2, height: 1), Color(rgb: 1))
        c.fill(Rect(x: 5, y: 4, width: 2, height: 1), Color(rgb: 1))
        #expect(c.changedRects(comparedTo: b) == [Rect(x: 0, y: 0, width: 7, height: 5)])
    }

    @Test func polygonAndCircleStayInsideTheirBounds() {
        let canvas = Canvas(width: 20, height: 20)
        canvas.fillPolygon([(5, 5), (15, 10), (5, 15)], Color(rgb: 0xFFFFFF))
        #expect(canvas.color(x: 8, y: 10) == Color(rgb: 0xFFFFFF))
        #expect(canvas.color(x: 16, y: 10) == Color(rgb: 0))
        #expect(canvas.color(x: 4, y: 10) == Color(rgb: 0))
        canvas.fillCircle(centerX: 10, centerY: 10, radius: 3, Color(rgb: 0xFF0000))
        #expect(canvas.color(x: 10, y: 10) == Color(rgb: 0xFF0000))
        #expect(canvas.color(x: 10, y: 15) != Color(rgb: 0xFF0000))
    }
}
