// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// A playlist whose entries are relative paths of playable tracks, in list order.
struct ResolvedPlaylist: Sendable, Hashable {
    let relativePath: String
    let name: String
    let trackPaths: [String]
}
