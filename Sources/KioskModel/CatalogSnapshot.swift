// SPDX-License-Identifier: GPL-3.0-or-later
/// The music on the present volumes as the player and remote clients read it: the tracks, the
/// collections of each category, a track by its place, and cover art. KioskLibrary's `Catalog`
/// is the real one (built by scans); the player holds whichever snapshot the library last handed it
/// and never builds one.
///
/// Thread: any (a snapshot never changes); `artwork(for:)` reads files: not on the loop thread.
public protocol CatalogSnapshot: AnyObject, Sendable {
    /// All playable tracks in canonical order: album artist, album, disc, track, title.
    var allTracks: [Track] { get }
    /// The files the scans left out or used with a caveat.
    var problems: [LibraryProblem] { get }
    var trackCount: Int { get }
    /// The volumes whose tracks are in the snapshot.
    var volumes: [VolumeID] { get }
    /// The collections of `category`, sorted for display; never an empty one.
    func collections(in category: Category) -> [Collection]
    /// The collection of `category` with `key`, if present.
    func collection(_ category: Category, key: String) -> Collection?
    /// The tracks of `collection` in play order (empty when the collection is not in this snapshot).
    func tracks(of collection: Collection) -> [Track]
    /// The track at `relativePath` on `volume`, if it is in the snapshot (e.g. to resume).
    func track(volume: VolumeID, relativePath: String) -> Track?
    /// The cover art of `collection` (its representative track's).
    func artwork(for collection: Collection) -> Artwork?
    /// The cover art of one track (embedded picture, else a cover file in its folder).
    func artwork(for track: Track) -> Artwork?
}
