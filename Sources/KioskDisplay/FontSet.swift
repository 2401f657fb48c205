// SPDX-License-Identifier: GPL-3.0-or-later
import CFreeType
import KioskSystem

/// Regular or bold text. Thread: a value.
public enum FontStyle: Int, Sendable, Hashable {
    case regular = 0
    case bold = 1
}

/// A style at a pixel size. Thread: a value.
public struct Font: Hashable, Sendable {
    public var style: FontStyle
    /// The em size in pixels.
    public var size: Int

    public init(_ style: FontStyle, size: Int) {
        self.style = style
        self.size = max(4, size)
    }

    /// Height of one line of this font in a layout (ascent + descent + a little air).
    public var lineHeight: Int { Int((Double(size) * 1.28).rounded(.up)) }
    /// Distance from the top of a line box to the baseline.
    public var baseline: Int { Int((Double(size) * 1.02).rounded()) }
}

/// Fonts could not be found or read. The description names the Debian package to install.
/// Thread: a value.
public struct FontError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// The screen's fonts: DejaVu Sans regular and bold, plus a CJK font that supplies any character
/// DejaVu lacks (per-glyph fallback), rendered with FreeType and cached per glyph.
///
/// Fonts are found by fixed paths (no fontconfig) or given explicitly; the same files give the same
/// pixels, which the golden-image tests rely on. Thread: one thread at a time (the loop thread).
public final class FontSet {
    /// Where DejaVu Sans is looked for (Debian / Raspberry Pi OS first).
    public static let regularPaths = [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    ]
    public static let boldPaths = [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
        "/usr/share/fonts/TTF/DejaVuSans-Bold.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans-Bold.ttf",
        "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans-Bold.ttf",
    ]
    /// CJK fallbacks, in order of preference.
    public static let cjkPaths = [
        "/usr/share/fonts/truetype/vlgothic/VL-PGothic-Regular.ttf",
        "/usr/share/fonts/truetype/vlgothic/VL-Gothic-Regular.ttf",
        "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
        "/usr/share/fonts/opentype/ipafont-gothic/ipagp.ttf",
        "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    ]
    /// The Debian packages that provide the default fonts.
    public static let dejavuPackage = "fonts-dejavu-core"
    public static let cjkPackage = "fonts-vlgothic"

    public let regularPath: String
    public let boldPath: String
    /// nil when no CJK font was found (Japanese, Chinese and Korean text then shows boxes).
    public let cjkPath: String?

    private var library: OpaquePointer?
    private var faces: [Int: UnsafeMutablePointer<FT_FaceRec_>] = [:]
    private var glyphs: [UInt64: Glyph] = [:]
    static let maxCachedGlyphs = 4096
    static let maxFaces = 48

    /// A rendered glyph: 8-bit coverage, its offset from the pen position, and the advance.
    struct Glyph {
        let width: Int
        let height: Int
        let left: Int
        let top: Int
        /// Horizontal advance in 26.6 fixed point.
        let advance: Int
        let coverage: [UInt8]
    }

    /// Loads the fonts: explicit paths when given, else the first of the known paths that exists.
    /// A missing regular or bold font is an error naming `fonts-dejavu-core`; a missing CJK font
    /// is an error only when `cjk` was given, else a warning naming `fonts-vlgothic`.
    public static func load(regular: String? = nil, bold: String? = nil, cjk: String? = nil) throws(FontError)
        -> FontSet
    {
        func find(_ explicit: String?, _ candidates: [String], _ what: String, _ package: String) throws(FontError)
            -> String
        {
            if let explicit {
                guard Syscalls.exists(explicit) else {
                    throw FontError(message: "\(what) font \(explicit) does not exist (install \(package))")
                }
                return explicit
            }
            guard let found = candidates.first(where: Syscalls.exists) else {
                throw FontError(
                    message:
                        "no \(what) font found (looked for \(candidates.joined(separator: ", "))); install the Debian package \(package)"
                )
            }
            return found
        }
        let regularPath = try find(regular, regularPaths, "regular text (DejaVu Sans)", dejavuPackage)
        let boldPath = try find(bold, boldPaths, "bold text (DejaVu Sans Bold)", dejavuPackage)
        var cjkPath: String?
        if let cjk {
            cjkPath = try find(cjk, [], "CJK fallback", cjkPackage)
        } else {
            cjkPath = cjkPaths.first(where: Syscalls.exists)
            if cjkPath == nil {
                Log.warning(
                    "no CJK font found (looked for \(cjkPaths.joined(separator: ", "))): Japanese, Chinese and Korean titles will show boxes; install the Debian package \(cjkPackage)"
                )
            }
        }
        return try FontSet(regularPath: regularPath, boldPath: boldPath, cjkPath: cjkPath)
    }

    private init(regularPath: String, boldPath: String, cjkPath: String?) throws(FontError) {
        self.regularPath = regularPath
        self.boldPath = boldPath
        self.cjkPath = cjkPath
        var lib: OpaquePointer?
        let rc = FT_Init_FreeType(&lib)
        guard rc == 0, let lib else { throw FontError(message: "FreeType could not start (error \(rc))") }
        library = lib
        // Open each file once now, so an unreadable font is a startup error, not a blank screen later.
        for (index, path) in [regularPath, boldPath, cjkPath].enumerated() {
            guard let path else { continue }
            _ = try openFace(fileIndex: index, path: path, size: 16)
        }
    }

    deinit {
        for face in faces.values { FT_Done_Face(face) }
        FT_Done_FreeType(library)
    }

    private func path(ofFile index: Int) -> String? {
        switch index {
        case 0: regularPath
        case 1: boldPath
        default: cjkPath
        }
    }

    private func openFace(fileIndex: Int, path: String, size: Int) throws(FontError) -> UnsafeMutablePointer<
        FT_FaceRec_
    > {
        let key = fileIndex << 16 | size
        if let face = faces[key] { return face }
        if faces.count >= FontSet.maxFaces {
            for face in faces.values { FT_Done_Face(face) }
            faces.removeAll()
        }
        var face: UnsafeMutablePointer<FT_FaceRec_>?
        let rc = FT_New_Face(library, path, 0, &face)
        guard rc == 0, let face else {
            throw FontError(message: "cannot read the font \(path) (FreeType error \(rc)); reinstall its package")
        }
        FT_Set_Pixel_Sizes(face, 0, FT_UInt(size))
        faces[key] = face
        return face
    }

    private func face(fileIndex: Int, size: Int) -> UnsafeMutablePointer<FT_FaceRec_>? {
        guard let path = path(ofFile: fileIndex) else { return nil }
        return try? openFace(fileIndex: fileIndex, path: path, size: size)
    }

    /// The glyph for `scalar` in `font`: from the style's face, else from the CJK face, else the
    /// style's "missing glyph" box.
    func glyph(_ scalar: Unicode.Scalar, _ font: Font) -> Glyph {
        let key = UInt64(scalar.value) | UInt64(font.size) << 32 | UInt64(font.style.rawValue) << 48
        if let cached = glyphs[key] { return cached }
        if glyphs.count >= FontSet.maxCachedGlyphs { glyphs.removeAll(keepingCapacity: true) }
        let rendered = render(scalar, font)
        glyphs[key] = rendered
        return rendered
    }

    private func render(_ scalar: Unicode.Scalar, _ font: Font) -> Glyph {
        let empty = Glyph(width: 0, height: 0, left: 0, top: 0, advance: 0, coverage: [])
        guard let primary = face(fileIndex: font.style.rawValue, size: font.size) else { return empty }
        var chosen = primary
        var index = FT_Get_Char_Index(primary, FT_ULong(scalar.value))
        if index == 0, let fallback = face(fileIndex: 2, size: font.size) {
            let fallbackIndex = FT_Get_Char_Index(fallback, FT_ULong(scalar.value))
            if fallbackIndex != 0 {
                chosen = fallback
                index = fallbackIndex
            }
        }
        let loadTargetLight: Int32 = 1 << 16  // FT_LOAD_TARGET_LIGHT (a function-like macro)
        guard FT_Load_Glyph(chosen, index, Int32(FT_LOAD_RENDER) | loadTargetLight) == 0 else { return empty }
        let slot = chosen.pointee.glyph.pointee
        let bitmap = slot.bitmap
        let width = Int(bitmap.width)
        let height = Int(bitmap.rows)
        var coverage = [UInt8](repeating: 0, count: width * height)
        if width > 0 && height > 0, let buffer = bitmap.buffer {
            let pitch = Int(bitmap.pitch)
            for y in 0..<height {
                let row = pitch >= 0 ? buffer + y * pitch : buffer + (height - 1 - y) * (-pitch)
                for x in 0..<width {
                    if bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_MONO.rawValue) {
                        coverage[y * width + x] = (row[x >> 3] >> (7 - UInt8(x & 7))) & 1 == 1 ? 255 : 0
                    } else {
                        coverage[y * width + x] = row[x]
                    }
                }
            }
        }
        return Glyph(
            width: width, height: height, left: Int(slot.bitmap_left), top: Int(slot.bitmap_top),
            advance: Int(slot.advance.x), coverage: coverage)
    }

    /// Whether `scalar` has a real glyph (in the style's font or the CJK fallback).
    public func canRender(_ scalar: Unicode.Scalar, _ font: Font) -> Bool {
        if let primary = face(fileIndex: font.style.rawValue, size: font.size),
            FT_Get_Char_Index(primary, FT_ULong(scalar.value)) != 0
        {
            return true
        }
        if let fallback = face(fileIndex: 2, size: font.size), FT_Get_Char_Index(fallback, FT_ULong(scalar.value)) != 0
        {
            return true
        }
        return false
    }

    // MARK: - measuring and drawing text

    /// Width of `text` in pixels.
    public func width(of text: some StringProtocol, _ font: Font) -> Int {
        var pen = 0
        for scalar in text.unicodeScalars { pen += glyph(scalar, font).advance }
        return (pen + 32) >> 6
    }

    /// Draws one line of `text` with its left end at `x` and its line box top at `top`.
    /// Returns the width drawn.
    @discardableResult
    public func draw(_ text: some StringProtocol, _ font: Font, _ color: Color, on canvas: Canvas, x: Int, top: Int)
        -> Int
    {
        var pen = 0
        let baseline = top + font.baseline
        for scalar in text.unicodeScalars {
            let g = glyph(scalar, font)
            if g.width > 0 {
                g.coverage.withUnsafeBufferPointer { mask in
                    canvas.drawMask(
                        mask, width: g.width, height: g.height, x: x + ((pen + 32) >> 6) + g.left,
                        y: baseline - g.top, color)
                }
            }
            pen += g.advance
        }
        return (pen + 32) >> 6
    }

    /// `text` shortened with "…" so it fits `maxWidth` pixels (unchanged when it fits).
    public func fitted(_ text: String, _ font: Font, maxWidth: Int) -> String {
        if width(of: text, font) <= maxWidth { return text }
        let ellipsis = "…"
        let ellipsisWidth = width(of: ellipsis, font)
        var kept = ""
        var pen = 0
        for character in text {
            var advance = 0
            for scalar in character.unicodeScalars { advance += glyph(scalar, font).advance }
            if ((pen + advance + 32) >> 6) + ellipsisWidth > maxWidth { break }
            pen += advance
            kept.append(character)
        }
        while kept.last == " " { kept.removeLast() }
        return kept + ellipsis
    }

    /// `text` broken into at most `maxLines` lines of at most `maxWidth` pixels: at spaces, or
    /// between CJK characters, or (for a word longer than a line) anywhere. The last line ends
    /// with "…" when text is left over.
    public func wrapped(_ text: String, _ font: Font, maxWidth: Int, maxLines: Int) -> [String] {
        guard maxLines > 0 else { return [] }
        var lines: [String] = []
        var rest = Substring(text.trimmingSpaces)
        while !rest.isEmpty {
            if lines.count == maxLines - 1 {
                lines.append(fitted(String(rest), font, maxWidth: maxWidth))
                break
            }
            if width(of: rest, font) <= maxWidth {
                lines.append(String(rest))
                break
            }
            // Longest prefix that fits, then back up to the last break opportunity in it.
            var end = rest.startIndex
            var lastBreak: String.Index?
            var pen = 0
            var index = rest.startIndex
            while index < rest.endIndex {
                let character = rest[index]
                var advance = 0
                for scalar in character.unicodeScalars { advance += glyph(scalar, font).advance }
                if (pen + advance + 32) >> 6 > maxWidth { break }
                pen += advance
                let next = rest.index(after: index)
                if character == " " || character == "-" || character == "/" || character.isWideForBreaking {
                    lastBreak = next
                } else if next < rest.endIndex && rest[next].isWideForBreaking {
                    lastBreak = next
                }
                index = next
                end = next
            }
            var cut = lastBreak ?? end
            // A line holds at least one character.
            if cut == rest.startIndex { cut = rest.index(after: rest.startIndex) }
            lines.append(String(rest[..<cut]).trimmingSpaces)
            rest = rest[cut...].drop(while: { $0 == " " })
        }
        return lines
    }
}

extension Character {
    /// CJK ideographs, kana, hangul and full-width forms: a line may break before or after them.
    var isWideForBreaking: Bool {
        guard let value = unicodeScalars.first?.value else { return false }
        return (0x2E80...0x9FFF).contains(value) || (0xAC00...0xD7AF).contains(value)
            || (0xF900...0xFAFF).contains(value) || (0xFF00...0xFFEF).contains(value)
            || (0x20000...0x2FFFF).contains(value)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and newlines.
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
