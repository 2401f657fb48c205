// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// What a volume's index remembers, as contents to show before the walk has confirmed them: the
/// tracks and left-out files of the last scan, with a fingerprint that lets the scan that follows
/// take each unchanged file from them instead of loading the index a second time.
///
/// MPD shows its database at start and updates it later; the library does the same so a restart
/// on a big stick lists its music in the time the index takes to load, not the walk's (seconds on
/// a cold USB stick). A file deleted while the box was off is listed until the walk ends; chosen in
/// between, the player skips it with its reason, as any file that cannot be opened. Playlists,
/// covers and audiobook folders come from the walk: they appear with the scan's catalog.
///
/// Thread: the scan worker.
enum RememberedContents {
    /// The contents the index at `indexPath` remembers, or nil when there is none to show (no
    /// index, one of another schema or damaged — the scan deals with those —, or no rows).
    static func load(volume: VolumeID, mountPoint: String, indexPath: String, limits: ScanLimits) -> VolumeContents? {
        guard Syscalls.exists(indexPath), let index = VolumeIndex.openExisting(path: indexPath) else { return nil }
        var strings = StringPool()
        let place = TrackVolume(id: volume, mountPoint: mountPoint)
        guard let rows = try? index.loadFiles(volume: place, strings: &strings), !rows.isEmpty else { return nil }
        var tracks: [Track] = []
        var files: [Int32] = []
        var unplayable: [ScanFingerprint.UnplayableFile] = []
        var trackWarnings: [Int32: [String]] = [:]
        var found: [LibraryProblem] = []
        var unconfirmed: [ScannedFile] = []
        files.reserveCapacity(rows.count)
        // Any order: the catalog sorts.
        for (key, row) in rows {
            let path = key.path
            let file = ScannedFile(relativePath: path, size: row.size, modificationTime: row.modificationTime)
            switch row.outcome {
            case .known(let track, let warnings):
                tracks.append(track)
                files.append(Int32(tracks.count - 1))
                if !warnings.isEmpty { trackWarnings[Int32(tracks.count - 1)] = warnings }
                for warning in warnings {
                    found.append(
                        LibraryProblem(volume: volume, relativePath: path, reason: warning, severity: .warning))
                }
                if !row.confirmed { unconfirmed.append(file) }
            case .playable:
                // The index stores tracks, not read results: not a row it gives.
                continue
            case .unplayable(let reason):
                found.append(LibraryProblem(volume: volume, relativePath: path, reason: reason))
                files.append(Int32(-1 - unplayable.count))
                unplayable.append(ScanFingerprint.UnplayableFile(file: file, reason: reason))
            }
        }
        // The problem list counts per folder: in path order, as a scan lists them.
        var problems = ProblemList(limits: limits)
        for problem in found.sorted(by: { $0.relativePath.utf8.lexicographicallyPrecedes($1.relativePath.utf8) }) {
            problems.append(problem)
        }
        let fingerprint = ScanFingerprint(
            files: files, unplayable: unplayable, trackWarnings: trackWarnings, playlists: [], coverFiles: [],
            audiobookFolders: [], warnings: [], limits: limits, indexPath: indexPath, remembered: true)
        return VolumeContents(
            volume: volume, mountPoint: mountPoint, tracks: Track.withAlbumArtists(tracks), playlists: [], covers: [:],
            problems: problems.finished(), fingerprint: fingerprint, unconfirmed: unconfirmed)
    }
}
