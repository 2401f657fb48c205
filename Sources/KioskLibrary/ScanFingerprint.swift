// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// Everything a scan's result depends on besides the files' contents: the files found (with
/// size and mtime), the covers, the walk's warnings, the limits and the index used. Two scans
/// with equal fingerprints produce the same `VolumeContents`. Thread: any (a value).
///
/// The music files are not listed again: a playable file's path, size and mtime are its track's,
/// so the fingerprint keeps only which track each file became (4 bytes a file) and the files
/// left out.
struct ScanFingerprint: Sendable {
    /// For each music file the walk found, in walk order: the index of its track in the contents'
    /// `tracks` (≥ 0), or `-1 - k` for `unplayable[k]`.
    let files: [Int32]
    /// The music files left out, with the reason (as the index has it).
    let unplayable: [UnplayableFile]
    /// What the reader ignored in playable files, by track index (few files have any).
    let trackWarnings: [Int32: [String]]
    let playlists: [ScannedFile]
    let coverFiles: [String]
    let audiobookFolders: [String]
    let warnings: [LibraryProblem]
    let limits: ScanLimits
    let indexPath: String?
    /// Made from the index alone (`RememberedContents`), not from a walk: the files' outcomes can
    /// be taken from it, but it never stands for a walk as a whole (no covers, playlists or
    /// warnings in it).
    var remembered = false

    /// A music file that is not a track, and why.
    struct UnplayableFile: Sendable {
        let file: ScannedFile
        let reason: String
    }

    /// Whether the music files of `walk` are exactly those this fingerprint was made from (same
    /// paths in the same order, sizes and mtimes), `tracks` being the contents' tracks.
    func sameFiles(as walk: [ScannedFile], tracks: [Track]) -> Bool {
        guard walk.count == files.count else { return false }
        for (file, entry) in zip(walk, files) {
            if entry >= 0 {
                let track = tracks[Int(entry)]
                guard track.fileSize == file.size, track.modificationTime == file.modificationTime,
                    track.relativePath == file.relativePath
                else { return false }
            } else if unplayable[Int(-1 - entry)].file != file {
                return false
            }
        }
        return true
    }

    /// What the scan knew about each FLAC file, by path (to continue from it when a few changed).
    func knownFiles(tracks: [Track]) -> [PathKey: IndexedFile] {
        var known: [PathKey: IndexedFile] = [:]
        known.reserveCapacity(files.count)
        for entry in files {
            if entry >= 0 {
                let track = tracks[Int(entry)]
                known[PathKey(track.relativePath)] = IndexedFile(
                    size: track.fileSize, modificationTime: track.modificationTime,
                    outcome: .known(track, warnings: trackWarnings[entry] ?? []))
            } else {
                let left = unplayable[Int(-1 - entry)]
                known[PathKey(left.file.relativePath)] = IndexedFile(
                    size: left.file.size, modificationTime: left.file.modificationTime,
                    outcome: .unplayable(reason: left.reason))
            }
        }
        return known
    }

    /// The same fingerprint for the tracks reordered: the track at `i` is now at `newIndex[i]`.
    func reordered(_ newIndex: [Int32]) -> ScanFingerprint {
        var warningsByNewIndex: [Int32: [String]] = [:]
        for (old, list) in trackWarnings { warningsByNewIndex[newIndex[Int(old)]] = list }
        return ScanFingerprint(
            files: files.map { $0 >= 0 ? newIndex[Int($0)] : $0 }, unplayable: unplayable,
            trackWarnings: warningsByNewIndex, playlists: playlists, coverFiles: coverFiles,
            audiobookFolders: audiobookFolders, warnings: warnings,
            limits: limits, indexPath: indexPath, remembered: remembered)
    }
}
