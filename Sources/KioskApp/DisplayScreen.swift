import KioskCore
import KioskDisplay
import KioskLibrary
import KioskSystem

/// The display is where the player's screens go.
extension Display: ScreenOutput {
    /// Reads the artwork's bytes (embedded, or the cover file, at most 16 MB) on the artwork worker.
    public func provideArtwork(key: String, loadArtwork: @escaping @Sendable () -> Artwork?) {
        provideArtwork(key: key) {
            switch loadArtwork() {
            case .embedded(let bytes, _): return bytes
            case .file(let path): return try? Syscalls.readFile(path, limit: 16 << 20)
            case nil: return nil
            }
        }
    }

    public func helpPageCount(entries: Int) -> Int {
        ScreenLayout.helpPageCount(entries: entries, size: Size(width: surface.width, height: surface.height))
    }
}
