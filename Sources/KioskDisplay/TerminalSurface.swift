// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskSystem

/// Shows the canvas in a terminal with 24-bit colour: each character cell is two pixels, the
/// upper one as the foreground of "▀" and the lower one as the background. For the demo.
///
/// Only the cells of damaged rectangles that changed since the last frame are rewritten, in one
/// `write(2)` per frame. The alternate screen is used and the cursor hidden; `restore()` brings
/// both back. Thread: the display's thread.
public final class TerminalSurface: Surface {
    public let width: Int
    public let height: Int
    private let fd: Int32
    private let column: Int
    private let row: Int
    /// Last colours sent per cell (upper << 32 | lower); UInt64.max = never drawn.
    private var cells: [UInt64]
    private var started = false

    /// A surface of the terminal on `fd` (default stdout), at most `maxWidth` × `maxHeight`
    /// pixels, placed at the top-left cell (`column`, `row`, 1-based).
    public convenience init(fd: Int32 = 1, maxWidth: Int = 320, maxHeight: Int = 240, column: Int = 1, row: Int = 1) {
        var rows: UInt16 = 0
        var cols: UInt16 = 0
        if kiosk_terminal_size(fd, &rows, &cols) != 0 || rows == 0 || cols == 0 {
            rows = 24
            cols = 80
        }
        self.init(
            fd: fd, columns: Int(cols), rows: Int(rows), maxWidth: maxWidth, maxHeight: maxHeight, column: column,
            row: row)
    }

    /// A surface for a terminal of `columns` × `rows` cells (one row is left for the prompt).
    public init(fd: Int32, columns: Int, rows: Int, maxWidth: Int, maxHeight: Int, column: Int = 1, row: Int = 1) {
        self.fd = fd
        self.column = column
        self.row = row
        width = max(2, min(maxWidth, columns - (column - 1)))
        height = max(2, min(maxHeight, (rows - (row - 1) - 1) * 2)) & ~1
        cells = [UInt64](repeating: .max, count: width * (height / 2))
    }

    public func present(_ canvas: Canvas, damage: [Rect]) throws {
        precondition(canvas.width == width && canvas.height == height, "canvas size differs from the surface")
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        if !started {
            out += Array("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J".utf8)
            started = true
        }
        var lastForeground: UInt32 = .max
        var lastBackground: UInt32 = .max
        for rect in damage {
            let r = rect.intersection(canvas.bounds)
            if r.isEmpty { continue }
            for cellRow in (r.y / 2)...((r.maxY - 1) / 2) {
                var cursorAt = -1  // the column the terminal cursor is at, if known
                for x in r.x..<r.maxX {
                    let upper = canvas.pixels[(cellRow * 2) * width + x] & 0xFF_FFFF
                    let lower = canvas.pixels[(cellRow * 2 + 1) * width + x] & 0xFF_FFFF
                    let key = UInt64(upper) << 32 | UInt64(lower)
                    let index = cellRow * width + x
                    if cells[index] == key { continue }
                    cells[index] = key
                    if cursorAt != x { out += Array("\u{1B}[\(row + cellRow);\(column + x)H".utf8) }
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
        if out.isEmpty { return }
        out += Array("\u{1B}[0m".utf8)
        try Syscalls.writeAll(fd, out)
    }

    public func restore() {
        guard started else { return }
        started = false
        try? Syscalls.writeAll(fd, Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8))
    }
}
