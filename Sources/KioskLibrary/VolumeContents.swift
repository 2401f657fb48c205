// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
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
    /// Listed files whose first frame was not decoded yet (the scan checked their headers): the
    /// background `PlayabilityPass` decodes them, in walk order.
    let unconfirmed: [ScannedFile]

    init(
        volume: VolumeID, mountPoint: String, tracks: [Track], playlists: [ResolvedPlaylist], covers: [String: String],
        problems: [LibraryProblem], fingerprint: ScanFingerprint? = nil, unconfirmed: [ScannedFile] = []
    ) {
        self.volume = volume
        self.mountPoint = mountPoint
        self.tracks = tracks
        self.playlists = playlists
        self.covers = covers
        self.problems = problems
        self.fingerprint = fingerprint
        self.unconfirmed = unconfirmed
    }

    /// These contents once the background pass has decoded every unconfirmed file.
    func everyFileConfirmed() -> VolumeContents {
        VolumeContents(
            volume: volume, mountPoint: mountPoint, tracks: tracks, playlists: playlists, covers: covers,
            problems: problems, fingerprint: fingerprint)
    }

    /// These contents without the files the background pass found unplayable (`gone`, relative
    /// paths), `problems` added. The fingerprint goes, so the next scan takes the files from the
    /// index, where the pass wrote them.
    func leavingOut(_ gone: Set<String>, problems failed: [LibraryProblem]) -> VolumeContents {
        let lists = playlists.compactMap { playlist -> ResolvedPlaylist? in
            let paths = playlist.trackPaths.filter { !gone.contains($0) }
            return paths.isEmpty
                ? nil : ResolvedPlaylist(relativePath: playlist.relativePath, name: playlist.name, trackPaths: paths)
        }
        return VolumeContents(
            volume: volume, mountPoint: mountPoint, tracks: tracks.filter { !gone.contains($0.relativePath) },
            playlists: lists, covers: covers, problems: problems + failed, fingerprint: nil,
            unconfirmed: unconfirmed.filter { !gone.contains($0.relativePath) })
    }
}
