// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// Where a canvas is shown: a framebuffer, a PNG file, a terminal, an SPI panel.
///
/// Small on purpose: a size and "show these rectangles of this canvas". `width`/`height` are the
/// canvas size the surface wants (after its rotation). Thread: the thread that owns the display.
public protocol Surface: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// Shows the `damage` rectangles of `canvas` (the whole canvas may be passed as one rectangle).
    func present(_ canvas: Canvas, damage: [Rect]) throws
    /// Gives the screen back (console text mode, cursor). Called once, at shutdown.
    func restore()
    /// Turns the screen off (backlight off, panel asleep) or on again; what is shown is kept or
    /// presented again after waking. Surfaces without a power switch ignore it.
    func setAwake(_ awake: Bool)
}

extension Surface {
    public func restore() {}
    public func setAwake(_ awake: Bool) {}
}

/// Writes each presented canvas to a PNG file (atomically): snapshots, `kiosk-player render`,
/// and a screen for machines without one. Thread: the display's thread.
public final class PNGSurface: Surface {
    public let path: String
    public let width: Int
    public let height: Int
    /// How many frames were written.
    public private(set) var framesWritten = 0

    public init(path: String, width: Int, height: Int) {
        self.path = path
        self.width = width
        self.height = height
    }

    public func present(_ canvas: Canvas, damage: [Rect]) throws {
        precondition(canvas.width == width && canvas.height == height, "canvas size differs from the surface")
        let bytes = try canvas.pngData()
        try AtomicFile.replace(path, with: bytes)
        framesWritten += 1
    }
}
