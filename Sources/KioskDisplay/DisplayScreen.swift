// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// The display is where the player's screens go.
extension Display: ScreenOutput {
    /// Reads the artwork's bytes (embedded, or the cover file, at most 16 MB) on the artwork worker.
    public func provideArtwork(key: String, loadArtwork: @escaping @Sendable () -> Artwork?) {
        provideArtwork(key: key) {
            try? loadArtwork()?.bytes(limit: 16 << 20)
        }
    }

    public func helpPageCount(entries: Int) -> Int {
        ScreenLayout.helpPageCount(entries: entries, size: Size(width: surface.width, height: surface.height))
    }
}
