// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// A screen for tests, demos and machines without one: every presented frame is written as its own
/// PNG file, `frame-000001.png`, `frame-000002.png`, … in a directory (atomically, so a reader never
/// sees half a file). `screen.pngDirectory` in config.json selects it. At most `maxFrames` files
/// are written; later frames are dropped with one warning. Thread: the display's thread.
public final class FrameFilesSurface: Surface {
    public let directory: String
    public let width: Int
    public let height: Int
    public let maxFrames: Int
    /// How many frames were written.
    public private(set) var framesWritten = 0

    public init(directory: String, width: Int, height: Int, maxFrames: Int = 100_000) {
        self.directory = directory
        self.width = width
        self.height = height
        self.maxFrames = maxFrames
    }

    /// The file of frame `number` (1-based).
    public static func fileName(frame number: Int) -> String {
        let digits = String(number)
        return "frame-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".png"
    }

    public func present(_ canvas: Canvas, damage: [Rect]) throws {
        precondition(canvas.width == width && canvas.height == height, "canvas size differs from the surface")
        guard framesWritten < maxFrames else {
            if framesWritten == maxFrames {
                Log.warning("screen: \(maxFrames) frames written to \(directory); writing no more")
                framesWritten += 1
            }
            return
        }
        if framesWritten == 0 { try Syscalls.mkdirs(directory) }
        try AtomicFile.replace("\(directory)/\(Self.fileName(frame: framesWritten + 1))", with: try canvas.pngData())
        framesWritten += 1
    }
}
