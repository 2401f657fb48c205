// SPDX-License-Identifier: GPL-3.0-or-later
import KioskDisplay
import KioskSystem
import KioskTestSupport
import Testing

@Suite(.enabled(if: TestFonts.available, Comment(rawValue: TestFonts.missingReason)))
struct FontTests {
    @Test func missingFontIsAnErrorNamingThePackage() {
        do {
            _ = try FontSet.load(regular: "/nonexistent/DejaVuSans.ttf")
            Issue.record("loading a missing font should fail")
        } catch {
            #expect(error.description.contains("/nonexistent/DejaVuSans.ttf"))
            #expect(error.description.contains("fonts-dejavu-core"))
        }
        do {
            _ = try FontSet.load(cjk: "/nonexistent/cjk.ttf")
            Issue.record("loading a missing CJK font should fail")
        } catch {
            #expect(error.description.contains("fonts-vlgothic"))
        }
    }

    @Test func unreadableFontFileIsAnError() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("broken.ttf", "not a font")
        #expect(throws: FontError.self) { try FontSet.load(regular: dir.file("broken.ttf")) }
    }

    @Test func defaultLookupFindsTheInstalledFonts() throws {
        let fonts = try FontSet.load()
        #expect(fonts.regularPath == TestFonts.regular)
        #expect(fonts.boldPath == TestFonts.bold)
        #expect(fonts.cjkPath != nil)
    }

    @Test func japaneseFallsBackToTheCJKFontPerGlyph() throws {
        let fonts = try TestFonts.load()
        let font = Font(.regular, size: 16)
        #expect(fonts.canRender("夜", font))
        #expect(fonts.canRender("A", font))
        // Mixed text: Latin and Japanese both draw ink.
        let canvas = Canvas(width: 200, height: 30)
        let width = fonts.draw("Yoru 夜に駆ける", font, Color(rgb: 0xFFFFFF), on: canvas, x: 0, top: 0)
        #expect(width > 80)
        var inkColumns = Set<Int>()
        for y in 0..<30 {
            for x in 0..<200 where canvas.color(x: x, y: y).red > 128 { inkColumns.insert(x / 10) }
        }
        // Ink all along the text, including the Japanese part at the right.
        #expect(inkColumns.contains(width / 10 - 1))
        #expect(inkColumns.count >= width / 10 - 2)
    }

    @Test func fittedShortensWithAnEllipsisAndFits() throws {
        let fonts = try TestFonts.load()
        let font = Font(.bold, size: 18)
        let long = "The Incredibly Long Title Of A Song That Never Ends And Goes On"
        let fitted = fonts.fitted(long, font, maxWidth: 150)
        #expect(fitted.hasSuffix("…"))
        #expect(fonts.width(of: fitted, font) <= 150)
        #expect(long.hasPrefix(String(fitted.dropLast())))
        #expect(fonts.fitted("Short", font, maxWidth: 150) == "Short")
        let cjk = fonts.fitted("夜に駆ける夜に駆ける夜に駆ける夜に駆ける", font, maxWidth: 100)
        #expect(cjk.hasSuffix("…") && fonts.width(of: cjk, font) <= 100)
        #expect(fonts.fitted("Anything", font, maxWidth: 0) == "…")
    }

    @Test func wrappingBreaksAtSpacesAndBetweenCJKCharacters() throws {
        let fonts = try TestFonts.load()
        let font = Font(.regular, size: 14)
        let lines = fonts.wrapped("Insert a USB stick with FLAC files", font, maxWidth: 120, maxLines: 3)
        #expect(lines.count >= 2)
        #expect(lines.joined(separator: " ") == "Insert a USB stick with FLAC files")
        for line in lines { #expect(fonts.width(of: line, font) <= 120) }

        let japanese = fonts.wrapped("夜に駆ける夜に駆ける夜に駆ける", font, maxWidth: 60, maxLines: 2)
        #expect(japanese.count == 2)
        #expect(japanese[1].hasSuffix("…"))
        for line in japanese { #expect(fonts.width(of: line, font) <= 60) }

        // A single word longer than the line is broken anywhere.
        let word = fonts.wrapped(String(repeating: "W", count: 40), font, maxWidth: 50, maxLines: 3)
        #expect(word.count == 3)
        for line in word { #expect(fonts.width(of: line, font) <= 50) }
    }

    @Test func sameTextRendersTheSamePixels() throws {
        let a = Canvas(width: 120, height: 20)
        let b = Canvas(width: 120, height: 20)
        try TestFonts.load().draw("Déjà vu 123", Font(.regular, size: 13), Color(rgb: 0xFFFFFF), on: a, x: 2, top: 0)
        try TestFonts.load().draw("Déjà vu 123", Font(.regular, size: 13), Color(rgb: 0xFFFFFF), on: b, x: 2, top: 0)
        #expect(a.changedRects(comparedTo: b).isEmpty)
        #expect(!a.changedRects(comparedTo: Canvas(width: 120, height: 20)).isEmpty)
    }
}
