// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskModel
import KioskSystem

/// A terminal's size in character cells. Thread: a value.
public struct TerminalSize: Equatable, Sendable, CustomStringConvertible {
    public var columns: Int
    public var rows: Int

    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    /// The size of the terminal on `fd`: `COLUMNS` and `LINES` when both are set (as curses
    /// programs honour them, so a script or a test can choose a size), else the kernel's
    /// (TIOCGWINSZ), else 80×24.
    public static func of(fd: Int32) -> TerminalSize {
        if let columns = Syscalls.environment("COLUMNS").flatMap(Int.init),
            let rows = Syscalls.environment("LINES")
                .flatMap(Int.init), columns > 0, rows > 0
        {
            return TerminalSize(columns: columns, rows: rows)
        }
        var rows: UInt16 = 0
        var columns: UInt16 = 0
        if kiosk_terminal_size(fd, &rows, &columns) != 0 || rows == 0 || columns == 0 {
            return TerminalSize(columns: 80, rows: 24)
        }
        return TerminalSize(columns: Int(columns), rows: Int(rows))
    }

    public var description: String { "\(columns)×\(rows)" }
}

/// Where the picture and the words go in a terminal, so that they never overlap: the picture
/// (scaled down to fit, its shape kept) at the top left, what is playing in words under it, and
/// a panel of keys and notes on the right (under everything in a terminal narrower than 64
/// columns). The last row is left for the shell's prompt. Thread: a value.
public struct TerminalLayout: Equatable, Sendable {
    /// A rectangle of cells, 0-based.
    public struct Cells: Equatable, Sendable {
        public var column: Int
        public var row: Int
        public var width: Int
        public var height: Int

        public init(column: Int, row: Int, width: Int, height: Int) {
            self.column = column
            self.row = row
            self.width = width
            self.height = height
        }
    }

    /// The picture's cells; each cell shows two pixels, one above the other.
    public let picture: Cells
    /// What is playing, in words.
    public let caption: Cells
    /// The keys and the notes.
    public let panel: Cells
    /// The panel's keys are listed in this many columns.
    public let keyColumns: Int
    /// Lines of the caption.
    public static let captionLines = 6

    /// The layout for a terminal of `size` showing a canvas of `canvas` pixels.
    public init(size: TerminalSize, canvas: Size) {
        let columns = max(20, size.columns)
        let usable = max(Self.captionLines + 4, size.rows - 1)
        let aspect = Double(max(1, canvas.width)) / Double(max(1, canvas.height))
        var left: Int
        if columns >= 64 {
            let panelWidth = min(60, max(40, columns - 30))
            left = columns - panelWidth - 1
            panel = Cells(column: left + 1, row: 0, width: panelWidth, height: usable)
            keyColumns = panelWidth >= 50 ? 2 : 1
        } else {
            left = columns
            let panelHeight = usable / 2
            panel = Cells(column: 0, row: usable - panelHeight, width: columns, height: panelHeight)
            keyColumns = 1
        }
        let pictureRowsAvailable = (columns >= 64 ? usable : panel.row) - Self.captionLines
        // The largest picture of the canvas's shape in `left` × `pictureRowsAvailable` cells.
        var pixelHeight = min(pictureRowsAvailable * 2, Int(Double(left) / aspect)) & ~1
        pixelHeight = max(2, pixelHeight)
        let pixelWidth = max(2, min(left, Int((Double(pixelHeight) * aspect).rounded())))
        picture = Cells(column: 0, row: 0, width: pixelWidth, height: pixelHeight / 2)
        caption = Cells(column: 0, row: picture.height, width: left, height: Self.captionLines)
    }
}

/// A surface that also shows the screen's state in words, beside its picture (the terminal).
/// Thread: the display's thread.
public protocol CaptionedSurface: Surface {
    /// Takes the state about to be presented; true when the words changed (present even when
    /// no pixel did).
    func caption(_ state: ScreenState) -> Bool
}

/// Shows the player in a terminal: the canvas scaled down into a picture of 24-bit colour cells
/// (each cell two pixels: the upper one as the foreground of "▀", the lower one as its
/// background), what is playing in words under it, and a panel of keys and notes beside it
/// (`TerminalLayout`): small pixel text is unreadable in a terminal, and the keys must stay in
/// sight. For the demo.
///
/// Only cells and lines that changed since the last frame are rewritten, in one `write(2)` per
/// frame. The alternate screen is used and the cursor hidden; `restore()` brings both back.
/// Thread: the display's thread.
public final class TerminalSurface: CaptionedSurface {
    /// What the panel beside the picture lists. Thread: a value.
    public struct Panel: Sendable {
        /// Its heading, e.g. "Keys (the keyboard is the buttons)".
        public var heading: String
        /// Keys and what they do, in a person's words (as many of each row's keys as fit are shown).
        public var keys: [(keys: [String], words: String)]
        /// Notes under the keys, e.g. "No sound card: …", each word-wrapped.
        public var notes: [String]

        public init(heading: String = "Keys", keys: [(keys: [String], words: String)] = [], notes: [String] = []) {
            self.heading = heading
            self.keys = keys
            self.notes = notes
        }
    }

    /// The canvas size (what the player draws at); the picture is this scaled into the layout.
    public let width: Int
    public let height: Int
    public let layout: TerminalLayout
    private let fd: Int32
    private let panelLines: [String]
    private var captionLines: [String] = []
    /// Text last written per terminal row of the caption and the panel (nil: never written).
    private var writtenCaption: [String?]
    private var panelWritten = false
    /// Last colours sent per picture cell (upper << 32 | lower); UInt64.max = never drawn.
    private var cells: [UInt64]
    private var started = false
    /// For each picture pixel column/row, the canvas columns/rows averaged into it.
    private let columnSpans: [Range<Int>]
    private let rowSpans: [Range<Int>]

    /// A surface for the terminal on `fd` (default stdout) of `size` (default: `TerminalSize.of`),
    /// showing a canvas of `width` × `height` pixels and `panel`.
    public init(
        fd: Int32 = 1, size: TerminalSize? = nil, width: Int = 320, height: Int = 240, panel: Panel = Panel()
    ) {
        self.fd = fd
        self.width = width
        self.height = height
        let layout = TerminalLayout(size: size ?? TerminalSize.of(fd: fd), canvas: Size(width: width, height: height))
        self.layout = layout
        cells = [UInt64](repeating: .max, count: layout.picture.width * layout.picture.height)
        writtenCaption = [String?](repeating: nil, count: TerminalLayout.captionLines)
        let pixelWidth = layout.picture.width
        let pixelHeight = layout.picture.height * 2
        columnSpans = (0..<pixelWidth).map { x in
            (x * width / pixelWidth)..<max(x * width / pixelWidth + 1, (x + 1) * width / pixelWidth)
        }
        rowSpans = (0..<pixelHeight).map { y in
            (y * height / pixelHeight)..<max(y * height / pixelHeight + 1, (y + 1) * height / pixelHeight)
        }
        panelLines = Self.panelLines(panel, layout: layout)
    }

    /// The panel's text, one string per row, each at most the panel's width.
    static func panelLines(_ panel: Panel, layout: TerminalLayout) -> [String] {
        let width = layout.panel.width
        var lines = [TerminalText.fit(panel.heading, width)]
        if !panel.keys.isEmpty {
            let columnWidth = width / layout.keyColumns
            // Each row's keys that fit in 5 cells ("← Esc" of "← Backspace Esc"), then the words.
            let shown = panel.keys.map { entry in
                entry.keys.reduce("") { line, key in
                    let joined = line.isEmpty ? key : line + " " + key
                    return TerminalText.width(joined) <= 5 || line.isEmpty ? joined : line
                }
            }
            let keyWidth = (shown.map(TerminalText.width).max() ?? 0) + 1
            let perColumn = (panel.keys.count + layout.keyColumns - 1) / layout.keyColumns
            for row in 0..<perColumn {
                var line = ""
                for column in 0..<layout.keyColumns {
                    let index = column * perColumn + row
                    guard index < panel.keys.count else { break }
                    let text = TerminalText.pad(shown[index], keyWidth) + panel.keys[index].words
                    line += TerminalText.pad(TerminalText.fit(text, columnWidth - 1), columnWidth)
                }
                lines.append(TerminalText.fit(line, width))
            }
        }
        for note in panel.notes {
            lines.append("")
            lines += TerminalText.wrap(note, width)
        }
        return Array(lines.prefix(layout.panel.height))
    }

    public func caption(_ state: ScreenState) -> Bool {
        let lines = TerminalText.caption(state, width: layout.caption.width)
        guard lines != captionLines else { return false }
        captionLines = lines
        return true
    }

    public func present(_ canvas: Canvas, damage: [Rect]) throws {
        precondition(canvas.width == width && canvas.height == height, "canvas size differs from the surface")
        var out: [UInt8] = []
        out.reserveCapacity(8192)
        if !started {
            out += Array("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J".utf8)
            started = true
        }
        if !damage.isEmpty { drawPicture(canvas, into: &out) }
        let pictureBytes = out.count
        out += Array("\u{1B}[0m".utf8)
        for index in 0..<TerminalLayout.captionLines {
            let text = index < captionLines.count ? captionLines[index] : ""
            if writtenCaption[index] == text { continue }
            writtenCaption[index] = text
            writeText(
                text, column: layout.caption.column, row: layout.caption.row + index,
                width: layout.caption.width, into: &out)
        }
        if !panelWritten {
            panelWritten = true
            for (index, text) in panelLines.enumerated() {
                writeText(
                    text, column: layout.panel.column, row: layout.panel.row + index,
                    width: layout.panel.width, into: &out)
            }
        }
        if pictureBytes == 0 && out.count == 4 { return }  // only the attribute reset: nothing changed
        try Syscalls.writeAll(fd, out)
    }

    /// `text` at a cell, padded with spaces to `width` cells (so a shorter line wipes a longer one).
    private func writeText(_ text: String, column: Int, row: Int, width: Int, into out: inout [UInt8]) {
        out += Array("\u{1B}[\(row + 1);\(column + 1)H".utf8)
        out += Array(TerminalText.pad(text, width).utf8)
    }

    private func drawPicture(_ canvas: Canvas, into out: inout [UInt8]) {
        var lastForeground: UInt32 = .max
        var lastBackground: UInt32 = .max
        let picture = layout.picture
        for cellRow in 0..<picture.height {
            var cursorAt = -1  // the column the terminal cursor is at, if known
            for x in 0..<picture.width {
                let upper = average(canvas, columns: columnSpans[x], rows: rowSpans[cellRow * 2])
                let lower = average(canvas, columns: columnSpans[x], rows: rowSpans[cellRow * 2 + 1])
                let key = UInt64(upper) << 32 | UInt64(lower)
                let index = cellRow * picture.width + x
                if cells[index] == key { continue }
                cells[index] = key
                if cursorAt != x { out += Array("\u{1B}[\(picture.row + cellRow + 1);\(picture.column + x + 1)H".utf8) }
                if upper != lastForeground {
                    out += Array("\u{1B}[38;2;\(upper >> 16);\(upper >> 8 & 0xFF);\(upper & 0xFF)m".utf8)
                    lastForeground = upper
                }
                if lower != lastBackground {
                    out += Array("\u{1B}[48;2;\(lower >> 16);\(lower >> 8 & 0xFF);\(lower & 0xFF)m".utf8)
                    lastBackground = lower
                }
                out += [0xE2, 0x96, 0x80]  // U+2580 UPPER HALF BLOCK
                cursorAt = x + 1
            }
        }
    }

    /// The mean colour of the canvas's pixels in `columns` × `rows` (box filter: text and lines
    /// thinner than a cell blend in rather than vanish).
    private func average(_ canvas: Canvas, columns: Range<Int>, rows: Range<Int>) -> UInt32 {
        var r = 0
        var g = 0
        var b = 0
        for y in rows {
            let base = y * canvas.width
            for x in columns {
                let p = canvas.pixels[base + x]
                r += Int(p >> 16 & 0xFF)
                g += Int(p >> 8 & 0xFF)
                b += Int(p & 0xFF)
            }
        }
        let n = max(1, columns.count * rows.count)
        return UInt32(r / n) << 16 | UInt32(g / n) << 8 | UInt32(b / n)
    }

    public func restore() {
        guard started else { return }
        started = false
        try? Syscalls.writeAll(fd, Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8))
    }
}

/// Text for a terminal: the width of a string in cells, fitting and wrapping to a width, and
/// the words of a screen's state. Thread: any (pure functions).
public enum TerminalText {
    /// How many cells `scalar` takes: 2 for East Asian wide and fullwidth characters, 0 for
    /// combining marks and controls, else 1.
    public static func width(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x20 || (0x7F..<0xA0).contains(v) { return 0 }
        if (0x300..<0x370).contains(v) || (0x200B...0x200F).contains(v) || (0xFE00...0xFE0F).contains(v) { return 0 }
        let wide: [ClosedRange<UInt32>] = [
            0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD,
        ]
        return wide.contains { $0.contains(v) } ? 2 : 1
    }

    /// How many cells `text` takes.
    public static func width(_ text: String) -> Int { text.unicodeScalars.reduce(0) { $0 + width($1) } }

    /// `text` (one line) in at most `cells` cells, cut with "…" when longer.
    public static func fit(_ text: String, _ cells: Int) -> String {
        let line = text
        if width(line) <= cells { return line }
        guard cells > 0 else { return "" }
        var result = ""
        var used = 0
        for scalar in line.unicodeScalars {
            let w = width(scalar)
            if used + w > cells - 1 { break }
            result.unicodeScalars.append(scalar)
            used += w
        }
        return result + "…"
    }

    /// `text` followed by spaces up to `cells` cells.
    public static func pad(_ text: String, _ cells: Int) -> String {
        text + String(repeating: " ", count: max(0, cells - width(text)))
    }

    /// `text` broken between words into lines of at most `cells` cells.
    public static func wrap(_ text: String, _ cells: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in DisplayFormat.singleLine(text).split(separator: " ") {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if width(candidate) <= cells || line.isEmpty {
                line = fit(candidate, cells)
            } else {
                lines.append(line)
                line = fit(String(word), cells)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// What `state` shows, in words, in at most `TerminalLayout.captionLines` lines of `width`
    /// cells: for now playing the title, artist and album, the time and position, and the category
    /// with its marks ("Album · shuffle · sleep 14:52", on two lines when it needs them).
    public static func caption(_ state: ScreenState, width: Int) -> [String] {
        var lines: [String] = []
        for (index, line) in captionLines(state).enumerated() {
            let text = DisplayFormat.singleLine(line)
            // The marks are what a narrow terminal must not cut: the last line wraps at " · ".
            if index == 3, case .nowPlaying = state, Self.width(text) > width {
                var current = ""
                for part in text.split(separator: " · ").map(String.init) {
                    let joined = current.isEmpty ? part : current + " · " + part
                    if Self.width(joined) <= width || current.isEmpty {
                        current = joined
                    } else {
                        lines.append(fit(current, width))
                        current = "· " + part
                    }
                }
                lines.append(fit(current, width))
            } else {
                lines.append(fit(text, width))
            }
        }
        return Array(lines.prefix(TerminalLayout.captionLines))
    }

    static func captionLines(_ state: ScreenState) -> [String] {
        switch state {
        case .nowPlaying(let s):
            let icon =
                switch s.playback {
                case .playing: "▶"
                case .paused: "⏸"
                case .stopped: "■"
                }
            var time = "\(icon) \(DisplayFormat.time(s.elapsedSeconds)) / \(DisplayFormat.time(s.totalSeconds))"
            if s.queueCount > 0 { time += "   track \(s.queuePosition) of \(s.queueCount)" }
            let by = [s.artist, s.album].compactMap { $0.flatMap { $0.isEmpty ? nil : $0 } }.joined(separator: " — ")
            var lines = [s.title ?? "Unknown Title", by, time, s.categoryLabel]
            if let volume = s.volumeOverlay {
                lines.append("Volume \(volume)%")
            } else if let status = s.statusLine {
                lines.append("⚠ \(status)")
            }
            return lines
        case .browse(let s):
            let count = s.items.count
            let index = min(max(0, s.selectedIndex), max(0, count - 1))
            guard count > 0 else { return [s.categoryLabel, "(empty)"] }
            return [
                s.categoryLabel, "▸ \(s.items[index].title)", s.items[index].subtitle ?? "", "\(index + 1) of \(count)",
            ]
        case .help(let s):
            return [s.title, "page \(s.page + 1)"]
        case .message(let s):
            return [s.title] + (s.detail.map { [$0] } ?? [])
        case .exhibit(let s):
            return [s.clipTitle ?? s.prompt]
        case .off:
            return []
        }
    }
}
