// SPDX-License-Identifier: GPL-3.0-or-later
import KioskDisplay
import KioskModel
import Testing

struct ColorGeometryTests {
    @Test func rectIntersectionUnionAndContainment() {
        let a = Rect(x: 0, y: 0, width: 10, height: 10)
        let b = Rect(x: 5, y: 5, width: 10, height: 10)
        #expect(a.intersection(b) == Rect(x: 5, y: 5, width: 5, height: 5))
        #expect(a.union(b) == Rect(x: 0, y: 0, width: 15, height: 15))
        #expect(!a.intersects(Rect(x: 10, y: 0, width: 5, height: 5)), "touching edges do not overlap")
        #expect(a.contains(Rect(x: 2, y: 2, width: 8, height: 8)))
        #expect(!a.contains(b))
        #expect(Size(parsing: "320x240") == Size(width: 320, height: 240))
        #expect(Size(parsing: "320×240") == Size(width: 320, height: 240))
        #expect(Size(parsing: "320") == nil)
        #expect(Size(parsing: "0x10") == nil)
    }

    @Test func contrastRatiosMatchWCAG() {
        let black = Color(rgb: 0)
        let white = Color(rgb: 0xFFFFFF)
        #expect(abs(black.contrastRatio(with: white) - 21) < 0.001)
        #expect(abs(white.contrastRatio(with: white) - 1) < 0.001)
        // #767676 on white is the classic 4.54:1.
        #expect(abs(Color(rgb: 0x767676).contrastRatio(with: white) - 4.54) < 0.01)
    }

    @Test func ensuringContrastFixesWhiteOnWhite() {
        let white = Color(rgb: 0xFFFFFF)
        let fixed = white.ensuringContrast(3, against: white)
        #expect(fixed.contrastRatio(with: white) >= 3)
        // It moves only as far as needed: not all the way to black.
        #expect(fixed.contrastRatio(with: white) < 3.2)
        let dark = Color(rgb: 0x101216)
        let fixedOnDark = Color(rgb: 0x202020).ensuringContrast(3, against: dark)
        #expect(fixedOnDark.contrastRatio(with: dark) >= 3)
        // Already enough: unchanged.
        #expect(Color(rgb: 0).ensuringContrast(3, against: white) == Color(rgb: 0))
    }

    @Test(arguments: [Theme.dark, Theme.light])
    func themeMarksKeepThreeToOneContrast(theme: Theme) {
        #expect(theme.pageDotActive.contrastRatio(with: theme.background) >= 3)
        #expect(theme.pageDotInactive.contrastRatio(with: theme.background) >= 3)
        #expect(theme.scrollThumb.contrastRatio(with: theme.background) >= 3)
        #expect(theme.pageDotActive != theme.pageDotInactive)
    }

    @Test func badlyChosenThemeColoursAreCorrected() {
        // The seeds' bug: white dots on a white background.
        var theme = Theme.light
        theme.accent = Color(rgb: 0xFFFFFF)
        theme.secondaryText = Color(rgb: 0xF8F8F8)
        #expect(theme.pageDotActive.contrastRatio(with: theme.background) >= 3)
        #expect(theme.pageDotInactive.contrastRatio(with: theme.background) >= 3)
    }

    @Test func premultipliedRoundTrip() {
        let c = Color(red: 200, green: 100, blue: 50, alpha: 128)
        let back = Color(premultiplied: c.premultiplied)
        #expect(channelDistance(back, c) <= 2)
        #expect(Color(premultiplied: 0) == Color(argb: 0))
    }

    @Test func timeAndNumberFormats() {
        #expect(DisplayFormat.time(0) == "0:00")
        #expect(DisplayFormat.time(83.9) == "1:23")
        #expect(DisplayFormat.time(3723) == "1:02:03")
        #expect(DisplayFormat.time(nil) == "--:--")
        #expect(DisplayFormat.time(.nan) == "--:--")
        #expect(DisplayFormat.grouped(1234) == "1\u{2009}234")
        #expect(DisplayFormat.grouped(1_234_567) == "1\u{2009}234\u{2009}567")
        #expect(DisplayFormat.grouped(999) == "999")
        #expect(DisplayFormat.singleLine("  a\tb\n\nc  ") == "a b c")
    }
}
