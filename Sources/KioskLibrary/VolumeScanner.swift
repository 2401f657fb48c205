// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem
import Synchronization

/// Figures from one scan of one volume. Thread: any (a value).
public struct ScanStatistics: Sendable, Hashable {
    public var volume: VolumeID
    public var mountPoint: String
    /// Music files (FLAC, MP3, M4A, Ogg Vorbis, Opus) found by the walk.
    public var musicFiles = 0
    /// Music files opened and read (new or changed since the index was written).
    public var filesRead = 0
    /// Music files taken from the index unopened (same size and mtime).
    public var filesUnchanged = 0
    /// Whether nothing had changed since the `previous` contents given to the scan, which were
    /// returned as they were (neither the index nor any file was read).
    public var reusedPrevious = false
    /// Index rows dropped because their file is gone.
    public var filesRemoved = 0
    public var playlists = 0
    public var folders = 0
    public var tracks = 0
    public var problems = 0
    public var walkSeconds = 0.0
    public var seconds = 0.0
    /// The index file, when one was used.
    public var indexPath: String?
    public var indexBytes: Int64 = 0
}

/// Thrown when a scan cannot run at all (the volume cannot be read) or was cancelled.
public struct ScanError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}

/// A flag another thread sets to stop a scan early (the volume went away).
public final class ScanCancellation: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    public func cancel() { flag.store(true, ordering: .relaxed) }
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// Scans one volume: walk, read new or changed music files (tags + playability), parse changed
/// playlists, update the index, resolve playlists, and produce `VolumeContents`.
///
/// Thread: the scan worker; one scan at a time per instance. Without an index path every file is
/// read (`kiosk-player scan`).
public final class VolumeScanner {
    public let limits: ScanLimits
    /// Threads that read files at once (the calling thread is one of them).
    public let readerThreads: Int
    /// Whether each new file's first frame is decoded during the scan; when not, the headers of a
    /// FLAC, MP3, M4A, Ogg Vorbis or Opus file are checked (`MusicFileReader.read`) and the file
    /// is listed in `VolumeContents.unconfirmed` for
    /// the background `PlayabilityPass` (the `Library`'s way). `kiosk-player scan` decodes.
    public let decodesFirstFrames: Bool
    private let reader: MusicFileReader

    /// Eight readers: reading a file is half waiting for the disk and half decoding, so more
    /// readers than cores keep both busy on a cold page cache, the case of a stick just plugged
    /// in (10 000 files on 2 cores, `bench scan --cold`: 2 readers 1.5–2.2 s, 4 readers
    /// 0.82–1.0 s, 8 readers 0.64–0.67 s, 16 readers 0.59 s); with a warm cache 4 and 8 are the
    /// same (0.39–0.40 s).
    public static var defaultReaderThreads: Int { 8 }

    public init(
        limits: ScanLimits = ScanLimits(), readerThreads: Int = VolumeScanner.defaultReaderThreads,
        decodesFirstFrames: Bool = true
    ) {
        self.limits = limits
        self.readerThreads = max(1, readerThreads)
        self.decodesFirstFrames = decodesFirstFrames
        reader = MusicFileReader(limits: limits)
    }

    /// Why a file that crashed the player while it was read is left out.
    static let crashedReason =
        "skipped: the player stopped while reading this file at an earlier start; it is not read again until it changes"

    /// Unplayable files a scan's contents remember for a rescan from memory; past it they are not
    /// reusable (a rescan reads the index).
    static let maxUnplayableInFingerprint = 10_000

    /// Files submitted to the readers ahead of the one the scan takes next.
    static let readAheadFiles = 512

    /// How often progress is reported (files examined).
    static let progressInterval = 250

    /// Scans the volume mounted at `mountPoint`.
    ///
    /// - Parameters:
    ///   - indexPath: the volume's SQLite index (created when missing); nil scans without one.
    ///   - previous: the contents an earlier scan of this volume produced, if still in memory.
    ///     When the walk finds exactly what that scan found (every path, size and mtime, with the
    ///     same limits and index), they are returned as they are: nothing else is read.
    ///   - progress: called on this thread with the number of music files examined so far.
    ///   - cancellation: checked between files; a cancelled scan throws.
    public func scan(
        volume: VolumeID, mountPoint: String, indexPath: String?, previous: VolumeContents? = nil,
        cancellation: ScanCancellation? = nil, progress: (Int) -> Void = { _ in }
    ) throws -> (contents: VolumeContents, statistics: ScanStatistics) {
        let started = Syscalls.monotonicNanoseconds()
        var stats = ScanStatistics(volume: volume, mountPoint: mountPoint)
        stats.indexPath = indexPath
        guard let status = try? Syscalls.fileStatus(mountPoint), status.st_mode & S_IFMT == S_IFDIR else {
            throw ScanError(message: "\(mountPoint): not a readable folder")
        }
        let walker = VolumeWalker(root: mountPoint, volume: volume, limits: limits, threads: readerThreads)
        // The read journal beside the index: what crashed the last run is not read again.
        let journaled = indexPath.flatMap { ScanReadJournal.open(path: $0 + ".reading", slots: readerThreads + 1) }
        let leftovers = journaled?.1 ?? ScanReadJournal.Leftovers()
        // Contents stand for a later identical walk only when nothing here must be retried.
        var reusable = true
        var indexProblems: [LibraryProblem] = []
        var index: VolumeIndex?
        // By the paths' bytes (`PathKey`), as the walk found them.
        var known: [PathKey: IndexedFile] = [:]
        var knownPlaylists: [PathKey: IndexedPlaylist] = [:]
        // Tracks kept from the previous contents hold its volume reference: new ones share it.
        let place =
            previous.flatMap { $0.mountPoint == mountPoint && $0.volume == volume ? $0.tracks.first?.volumePlace : nil }
            ?? TrackVolume(id: volume, mountPoint: mountPoint)
        var strings = StringPool()
        func openTheIndex(expected: Int, loadingFiles: Bool = true) {
            guard let indexPath else { return }
            do {
                (index, known, knownPlaylists) = try Self.openIndex(
                    indexPath, expected: expected, loadingFiles: loadingFiles, volume: place, strings: &strings)
            } catch {
                // The index is a cache: without it the scan still works, only slower next time.
                indexProblems.append(
                    LibraryProblem(
                        volume: volume, relativePath: "",
                        reason: "the index \(indexPath) cannot be used (\(error)); scanned without it",
                        severity: .warning))
                stats.indexPath = nil
                reusable = false
            }
            if let reason = index?.resetReason {
                // in the journal too: a damaged index says something about the SD card or a power cut
                Log.warning("library: \(indexPath): \(reason)")
                reusable = false
                indexProblems.append(
                    LibraryProblem(volume: volume, relativePath: "", reason: reason, severity: .warning))
            }
        }

        // The walk comes first, then the reads. (Reading while the walk goes on, files handed to
        // the readers as the listing threads find them, was measured: no gain with a warm cache,
        // where decoding keeps both cores busy, and none beyond the noise with a cold one.)
        let walk = walker.walk { cancellation?.isCancelled ?? false }
        if walk.cancelled { throw ScanError(message: "scan of \(mountPoint) cancelled") }
        stats.walkSeconds = Double(Syscalls.monotonicNanoseconds() - started) / 1e9
        stats.musicFiles = walk.musicFiles.count
        stats.playlists = walk.playlists.count
        stats.folders = walk.directories
        if let previous,
            let reused = Self.reuse(
                previous, volume: volume, mountPoint: mountPoint, walk: walk, limits: limits, indexPath: indexPath)
        {
            stats.filesUnchanged = walk.musicFiles.count
            stats.reusedPrevious = true
            stats.tracks = reused.tracks.count
            stats.problems = reused.problems.count
            stats.seconds = Double(Syscalls.monotonicNanoseconds() - started) / 1e9
            if let indexPath { stats.indexBytes = VolumeIndex.sizeOnDisk(indexPath) }
            progress(walk.musicFiles.count)
            return (reused, stats)
        }
        if let previous, let old = previous.fingerprint {
            if Self.continues(previous, volume: volume, mountPoint: mountPoint, limits: limits, indexPath: indexPath) {
                // Some files changed: the others are taken from the previous contents, which
                // agree with the index (they were written together), so its rows are not loaded.
                openTheIndex(expected: 0, loadingFiles: false)
                // An index that had to be made anew holds none of them: every file is read.
                if indexPath == nil || index.map({ !$0.isNew }) == true {
                    known = old.knownFiles(tracks: previous.tracks)
                    for file in previous.unconfirmed { known[PathKey(file.relativePath)]?.confirmed = false }
                }
            } else {
                openTheIndex(expected: walk.musicFiles.count)
            }
        } else {
            openTheIndex(expected: walk.musicFiles.count)
        }
        var problems = ProblemList(limits: limits)
        problems.append(contentsOf: walk.warnings + indexProblems)

        // Music files: from the index when unchanged, else read.
        // Not reserved for every music file: a Track is ~190 bytes, and on a stick of 200 000 broken
        // files that reserve alone was 38 MB (heaptrack).
        var tracks: [Track] = []
        var pendingWrites = 0
        var inTransaction = false
        func write(_ body: (VolumeIndex) throws -> Void) {
            guard let current = index else { return }
            do {
                if !inTransaction {
                    try current.begin()
                    inTransaction = true
                }
                try body(current)
                pendingWrites += 1
                // Commit in batches so a stick pulled halfway keeps what was read.
                if pendingWrites >= 500 {
                    try current.commit()
                    inTransaction = false
                    pendingWrites = 0
                }
            } catch {
                problems.append(
                    LibraryProblem(
                        volume: volume, relativePath: "",
                        reason: "the index cannot be written (\(error)); the rest of the scan is not remembered",
                        severity: .warning))
                index = nil
                reusable = false
            }
        }
        // Which files must be read: new, or changed since the index was written.
        var cached: [StoredOutcome?] = []
        cached.reserveCapacity(walk.musicFiles.count)
        // Files of the index still to be decoded by the background pass (walk positions).
        var unconfirmedKnown = Set<Int>()
        var toRead: [String] = []
        var readIndex: [Int] = []
        var matchedRows = 0
        let crashed = Set(leftovers.crashed.map(PathKey.init))
        for (i, file) in walk.musicFiles.enumerated() {
            let key = PathKey(file.relativePath)
            if let old = known[key] {
                matchedRows += 1
                if old.stands(for: file) && !crashed.contains(key) {
                    if !old.confirmed { unconfirmedKnown.insert(i) }
                    cached.append(old.outcome)
                    continue
                }
            }
            if crashed.contains(key) {
                let outcome = StoredOutcome.unplayable(reason: Self.crashedReason)
                write { try $0.store(file, outcome) }
                cached.append(outcome)
                continue
            }
            cached.append(nil)
            toRead.append(file.relativePath)
            readIndex.append(i)
        }
        stats.filesRead = toRead.count
        stats.filesUnchanged = walk.musicFiles.count - toRead.count
        let reads = ReadPool(
            mountPoint: mountPoint, paths: toRead, limits: limits, cancellation: cancellation,
            journal: journaled?.0, decodesFirstFrame: decodesFirstFrames)
        defer { reads.close() }
        let unchanged = stats.filesUnchanged
        progress(unchanged)

        // Files are taken in walk order: those from the index at once, the others as their reads
        // finish (the index is written meanwhile, while other threads go on reading).
        var processed = 0
        // The fingerprint: which track each file became, the files left out, readers' warnings.
        var fileEntries: [Int32] = []
        fileEntries.reserveCapacity(walk.musicFiles.count)
        var unplayableFiles: [ScanFingerprint.UnplayableFile] = []
        var trackWarnings: [Int32: [String]] = [:]
        var unconfirmed: [ScannedFile] = []
        func take(_ file: ScannedFile, _ outcome: StoredOutcome, confirmed: Bool) {
            let warnings: [String]
            switch outcome {
            case .playable(let info, let readerWarnings):
                tracks.append(
                    Track(volume: place, file: file, info: info, sameFolderAs: tracks.last, strings: &strings))
                warnings = readerWarnings
                if !info.firstFrameDecoded { unconfirmed.append(file) }
            case .known(let track, let readerWarnings):
                tracks.append(track)
                warnings = readerWarnings
                if !confirmed { unconfirmed.append(file) }
            case .unplayable(let reason):
                problems.append(LibraryProblem(volume: volume, relativePath: file.relativePath, reason: reason))
                fileEntries.append(Int32(-1 - unplayableFiles.count))
                // A stick of mostly broken files is not kept for an in-memory rescan (the index
                // still has them): the list would cost 48 bytes a file on top of the walk's.
                if unplayableFiles.count < Self.maxUnplayableInFingerprint {
                    unplayableFiles.append(ScanFingerprint.UnplayableFile(file: file, reason: reason))
                } else {
                    reusable = false
                }
                return
            }
            fileEntries.append(Int32(tracks.count - 1))
            if warnings.isEmpty { return }
            trackWarnings[Int32(tracks.count - 1)] = warnings
            for warning in warnings {
                problems.append(
                    LibraryProblem(volume: volume, relativePath: file.relativePath, reason: warning, severity: .warning)
                )
            }
        }
        func catchUp(to end: Int) {
            while processed < end {
                take(
                    walk.musicFiles[processed], cached[processed]!, confirmed: !unconfirmedKnown.contains(processed))
                processed += 1
            }
        }
        // Suspects of a death without a fault are read first, alone, each in the journal's own slot.
        if !leftovers.suspects.isEmpty {
            let suspects = Set(leftovers.suspects.map(PathKey.init))
            for (k, path) in toRead.enumerated() where suspects.contains(PathKey(path)) {
                reads.preset(k, reads.readNow(k, with: reader, slot: ScanReadJournal.suspectSlot))
            }
        }
        // Submitted a window ahead of the files taken, so what is read ahead and not yet taken
        // stays bounded however many files the stick holds.
        let window = Self.readAheadFiles
        for k in toRead.indices.prefix(window) { reads.submit(k) }
        // A helper thread pays off only with enough files to share.
        reads.startHelpers(min(readerThreads - 1, toRead.count / 32))
        var reported = 0
        for k in toRead.indices {
            guard let fresh = reads.outcome(for: k, reader: reader) else { break }
            if k + window < toRead.count { reads.submit(k + window) }
            let i = readIndex[k]
            catchUp(to: i)
            let file = walk.musicFiles[i]
            let outcome: StoredOutcome
            switch fresh {
            case .playable(let info, let warnings):
                outcome = .playable(info, warnings: warnings)
                write { try $0.store(file, outcome) }
            case .unplayable(let reason, let transient):
                outcome = .unplayable(reason: reason)
                if transient { reusable = false } else { write { try $0.store(file, outcome) } }
            }
            take(file, outcome, confirmed: true)
            processed = i + 1
            if k + 1 - reported >= Self.progressInterval {
                reported = k + 1
                progress(unchanged + reported)
            }
        }
        if cancellation?.isCancelled == true { throw ScanError(message: "scan cancelled") }
        catchUp(to: walk.musicFiles.count)
        // Rows whose file is gone (there are some when not every row was matched by a file).
        if matchedRows < known.count {
            let present = Set(walk.musicFiles.lazy.map { PathKey($0.relativePath) })
            for key in known.keys where !present.contains(key) {
                write { try $0.deleteFile(key.path) }
                stats.filesRemoved += 1
            }
        }

        // Playlists: parsed when new or changed, resolved every time (the files they name may change).
        // The stick's playlists share one budget of entries and bytes (`maxStickPlaylistEntries`,
        // `maxStickPlaylistBytes`): those that fit are used in walk order, each other one is left
        // out whole (a list cut short would play something its maker did not choose) and named.
        var parsed: [PlaylistFile] = []
        var entriesLeft = limits.maxStickPlaylistEntries
        var bytesLeft = Int64(limits.maxStickPlaylistBytes)
        // Named after the loop: the line for them all first, as the problems of one folder are
        // cut at 100 in a row (600 lists in one folder would otherwise name only the first 100).
        var leftOut: [(path: String, why: String)] = []
        func leaveOut(_ file: ScannedFile, _ why: String) {
            leftOut.append((file.relativePath, why))
            if knownPlaylists[PathKey(file.relativePath)] != nil { write { try $0.deletePlaylist(file.relativePath) } }
        }
        for file in walk.playlists {
            // Not read at all: the budget bounds the bytes read too (a list read and then left out
            // counts against it), so 600 lists cost at most `maxStickPlaylistBytes` of reads.
            if file.size <= Int64(limits.maxPlaylistBytes) && file.size > bytesLeft {
                leaveOut(file, "its \(file.size) bytes are over the \(bytesLeft) left")
                continue
            }
            if entriesLeft == 0 {
                leaveOut(file, "no entries are left")
                continue
            }
            if let old = knownPlaylists[PathKey(file.relativePath)], old.size == file.size,
                old.modificationTime == file.modificationTime
            {
                if old.playlist.entries.count > entriesLeft {
                    leaveOut(file, "its \(old.playlist.entries.count) entries are over the \(entriesLeft) left")
                    continue
                }
                entriesLeft -= old.playlist.entries.count
                bytesLeft -= file.size
                parsed.append(old.playlist)
                continue
            }
            let playlist: PlaylistFile
            if file.size > Int64(limits.maxPlaylistBytes) {
                problems.append(
                    LibraryProblem(
                        volume: volume, relativePath: file.relativePath,
                        reason: "playlist of \(file.size) bytes is over the \(limits.maxPlaylistBytes)-byte limit"))
                continue
            }
            do {
                let bytes = try StickFile.read(file.relativePath, beneath: mountPoint, limit: limits.maxPlaylistBytes)
                playlist = PlaylistParser.parse(
                    bytes, relativePath: file.relativePath, limits: limits, entryBudget: entriesLeft)
            } catch {
                problems.append(
                    LibraryProblem(
                        volume: volume, relativePath: file.relativePath, reason: "cannot read: \(error.message)"))
                reusable = false
                continue
            }
            if playlist.overBudget {
                bytesLeft -= file.size
                leaveOut(file, "it has more entries than the \(entriesLeft) left")
                continue
            }
            entriesLeft -= playlist.entries.count
            bytesLeft -= file.size
            write { try $0.store(file, playlist: playlist) }
            parsed.append(playlist)
        }
        if !leftOut.isEmpty {
            let named = leftOut.prefix(Self.leftOutNamed).map(\.path).joined(separator: ", ")
            let more = leftOut.count > Self.leftOutNamed ? " and \(leftOut.count - Self.leftOutNamed) more" : ""
            problems.append(
                LibraryProblem(
                    volume: volume, relativePath: "",
                    reason: "\(leftOut.count) playlists left out, over the stick's total of "
                        + "\(limits.maxStickPlaylistEntries) entries and \(limits.maxStickPlaylistBytes) bytes: \(named)\(more)",
                    severity: .warning))
            let total =
                "the stick's playlists may hold \(limits.maxStickPlaylistEntries) entries and "
                + "\(limits.maxStickPlaylistBytes) bytes in all"
            for (path, why) in leftOut {
                problems.append(
                    LibraryProblem(volume: volume, relativePath: path, reason: "playlist left out: \(why); \(total)"))
            }
        }
        let presentPlaylists = Set(walk.playlists.lazy.map { PathKey($0.relativePath) })
        for key in knownPlaylists.keys where !presentPlaylists.contains(key) {
            write { try $0.deletePlaylist(key.path) }
        }
        write { try $0.setMeta("mountPoint", mountPoint) }
        write { try $0.setMeta("volume", volume.rawValue) }
        if let current = index {
            do {
                if inTransaction { try current.commit() }
            } catch {
                problems.append(
                    LibraryProblem(
                        volume: volume, relativePath: "", reason: "the index cannot be written (\(error))",
                        severity: .warning))
                reusable = false
            }
            current.checkpoint()
        }

        let playable = walk.playlists.isEmpty ? [] : Set(tracks.lazy.map { PathKey($0.relativePath) })
        let unplayable =
            walk.playlists.isEmpty
            ? [:]
            : Dictionary(
                problems.kept.filter { $0.severity == .excluded }.map { (PathKey($0.relativePath), $0.reason) },
                uniquingKeysWith: { a, _ in a })
        // The resolver matches a playlist's text by String (canonical equivalence): an entry
        // written in another normalization than the file's name still finds it.
        let resolver = PlaylistResolver(
            mountPoint: mountPoint, files: walk.playlists.isEmpty ? [] : Set(walk.musicFiles.map(\.relativePath)))
        var playlists: [ResolvedPlaylist] = []
        for playlist in parsed {
            for warning in playlist.warnings {
                problems.append(
                    LibraryProblem(
                        volume: volume, relativePath: playlist.relativePath, reason: warning, severity: .warning))
            }
            var paths: [String] = []
            let folder = Track.folder(of: playlist.relativePath)
            for (number, entry) in playlist.entries.enumerated() {
                let why: String
                switch resolver.resolve(entry, playlistFolder: folder) {
                case .file(let path) where playable.contains(PathKey(path)):
                    paths.append(path)
                    continue
                case .file(let path):
                    why = "cannot be played (\(unplayable[PathKey(path)] ?? "unplayable"))"
                case .failed(let reason):
                    why = reason
                }
                problems.append(
                    LibraryProblem(
                        volume: volume, relativePath: playlist.relativePath,
                        reason: "entry \(number + 1) \"\(entry)\": \(why); dropped", severity: .warning))
            }
            if paths.isEmpty {
                problems.append(
                    LibraryProblem(
                        volume: volume, relativePath: playlist.relativePath,
                        reason: "no playable entries; the playlist is hidden"))
            } else {
                playlists.append(
                    ResolvedPlaylist(relativePath: playlist.relativePath, name: playlist.name, trackPaths: paths))
            }
        }

        let listed = problems.finished()
        stats.tracks = tracks.count
        stats.problems = listed.count
        stats.seconds = Double(Syscalls.monotonicNanoseconds() - started) / 1e9
        if let indexPath { stats.indexBytes = VolumeIndex.sizeOnDisk(indexPath) }
        progress(walk.musicFiles.count)
        let fingerprint =
            reusable
            ? ScanFingerprint(
                files: fileEntries, unplayable: unplayableFiles, trackWarnings: trackWarnings,
                playlists: walk.playlists, coverFiles: walk.coverFiles, audiobookFolders: walk.audiobookFolders,
                warnings: walk.warnings, limits: limits,
                indexPath: stats.indexPath)
            : nil
        let contents = VolumeContents(
            volume: volume, mountPoint: mountPoint,
            tracks: Track.withAudiobookFolders(Track.withAlbumArtists(tracks), markerFolders: walk.audiobookFolders),
            playlists: playlists,
            covers: ArtworkLookup.coversByFolder(walk.coverFiles), problems: listed, fingerprint: fingerprint,
            unconfirmed: unconfirmed)
        return (contents, stats)
    }

    /// Playlists named in the one line that sums up those left out over the stick's total.
    static let leftOutNamed = 20

    /// `previous` when a scan that walked `walk` would produce exactly it: same volume, mount
    /// point, limits and index (still on disk), and the same files with the same sizes and mtimes.
    static func reuse(
        _ previous: VolumeContents, volume: VolumeID, mountPoint: String, walk: WalkResult, limits: ScanLimits,
        indexPath: String?
    ) -> VolumeContents? {
        guard let old = previous.fingerprint, !old.remembered, !walk.cancelled,
            continues(previous, volume: volume, mountPoint: mountPoint, limits: limits, indexPath: indexPath)
        else { return nil }
        // Cheap checks first: counts, then every path, size and mtime.
        guard old.files.count == walk.musicFiles.count, old.playlists == walk.playlists,
            old.coverFiles == walk.coverFiles, old.audiobookFolders == walk.audiobookFolders,
            old.warnings == walk.warnings,
            old.sameFiles(as: walk.musicFiles, tracks: previous.tracks)
        else { return nil }
        return previous
    }

    /// Whether `previous` was made by a scan like this one (same volume, mount point, limits and
    /// index, still on disk), so that what it says about a file still holds while the file's size
    /// and mtime are the same.
    static func continues(
        _ previous: VolumeContents, volume: VolumeID, mountPoint: String, limits: ScanLimits, indexPath: String?
    ) -> Bool {
        guard let old = previous.fingerprint, previous.volume == volume, previous.mountPoint == mountPoint,
            old.limits == limits, old.indexPath == indexPath
        else { return false }
        if let indexPath, !Syscalls.exists(indexPath) { return false }
        return true
    }

    /// Nice value of scan threads: below the loop and the player, which stay at 0 (audio is
    /// real-time anyway).
    public static let niceness: Int32 = 10

    private static func openIndex(
        _ path: String, expected: Int, loadingFiles: Bool, volume: TrackVolume, strings: inout StringPool
    ) throws(SQLiteError) -> (VolumeIndex, [PathKey: IndexedFile], [PathKey: IndexedPlaylist]) {
        do {
            let index = try VolumeIndex(path: path)
            let files = loadingFiles ? try index.loadFiles(expected: expected, volume: volume, strings: &strings) : [:]
            return (index, files, try index.loadPlaylists())
        } catch let error where error.isCorruption {
            VolumeIndex.deleteFiles(path)
            let index = try VolumeIndex(path: path)
            index.noteRebuilt(after: error)
            return (index, [:], [:])
        }
    }
}
