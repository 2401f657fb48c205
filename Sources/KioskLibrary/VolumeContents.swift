import KioskSystem

/// Everything one scan of one volume produced: the input of a `Catalog`.
/// Thread: any (a value; built on the scan worker, kept by the `Library` on the loop thread).
public struct VolumeContents: Sendable {
    public let volume: VolumeID
    public let mountPoint: String
    /// Playable tracks, any order.
    public let tracks: [Track]
    /// Playlists with at least one playable entry, entries as relative paths of playable tracks.
    let playlists: [ResolvedPlaylist]
    /// Folder (relative) → preferred cover file (relative).
    let covers: [String: String]
    public let problems: [LibraryProblem]
    /// What the walk found when these contents were made, when they can stand for a later scan
    /// that finds exactly the same (nil after transient read errors or index trouble, which a
    /// later scan must retry).
    let fingerprint: ScanFingerprint?

    init(
        volume: VolumeID, mountPoint: String, tracks: [Track], playlists: [ResolvedPlaylist], covers: [String: String],
        problems: [LibraryProblem], fingerprint: ScanFingerprint? = nil
    ) {
        self.volume = volume
        self.mountPoint = mountPoint
        self.tracks = tracks
        self.playlists = playlists
        self.covers = covers
        self.problems = problems
        self.fingerprint = fingerprint
    }
}
