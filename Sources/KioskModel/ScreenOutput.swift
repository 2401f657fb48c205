// SPDX-License-Identifier: GPL-3.0-or-later
/// Where the player's screens go (the display, or nothing on a headless box).
///
/// Thread: the loop thread (the player calls it from there).
public protocol ScreenOutput: AnyObject {
    func show(_ state: ScreenState)
    /// Registers how to get the artwork for `key`; `load` runs off the loop thread.
    func provideArtwork(key: String, loadArtwork: @escaping @Sendable () -> Artwork?)
    /// How many help pages `entries` entries need on this screen.
    func helpPageCount(entries: Int) -> Int
}
