// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem

/// Bounds on what a scan will look at. Everything on a stick is untrusted: each limit, when hit,
/// produces a warning naming the place and the limit, never an unbounded allocation.
/// Thread: any (a value).
public struct ScanLimits: Sendable, Hashable {
    /// Folders deeper than this below the volume's top are not entered.
    public var maxDepth = 24
    /// music files, playlists and cover images collected; the walk stops at this many.
    public var maxFiles = 200_000
    /// Directory entries looked at in total (including files that are not music).
    public var maxEntries = 2_000_000
    /// Longest relative path (bytes) of a file that is kept.
    public var maxPathBytes = 1024
    /// Metadata blocks looked at per FLAC file.
    public var maxMetadataBlocks = 1024
    /// A VORBIS_COMMENT block longer than this is ignored (tags fall back), not read.
    public var maxCommentBlockBytes = 4 << 20
    /// Comment fields used per file; more are ignored. A tag holding more items than this (ID3v2
    /// frames, APE items, MP4 ilst items, Ogg comments) is not handed to TagLib at all.
    public var maxComments = 4096
    /// Bytes the compressed ID3v2 frames of one file may inflate to, together; frames past it are skipped.
    public var maxInflatedTagBytes = 1 << 20
    /// Longest tag value kept (longer ones are cut).
    public var maxValueBytes = 2048
    /// A PICTURE block longer than this is not read (the track has no usable embedded art).
    public var maxPictureBytes = 16 << 20
    /// Bytes read after the metadata while looking for the first frame.
    public var maxFirstFrameSearchBytes = 1 << 20
    /// Playlist files longer than this are rejected.
    public var maxPlaylistBytes = 4 << 20
    /// Entries used per playlist.
    public var maxPlaylistEntries = 20_000
    /// A playlist line longer than this is ignored (no path the volume can hold is that long, even
    /// written with another computer's mount point or as a percent-encoded `file://` URL).
    public var maxPlaylistLineBytes = 16 << 10
    /// Entries of all the volume's playlists together, and their files' bytes together: the
    /// playlists that fit are used, in walk order, and the others left out with a problem each, so
    /// that 600 lists of 20 000 entries cannot exhaust memory at every boot (issue 44).
    public var maxStickPlaylistEntries = 100_000
    public var maxStickPlaylistBytes = 16 << 20
    /// Problems kept per volume (more are counted in one summary line).
    public var maxProblems = 2000
    /// Problems kept in a row from one folder (more are counted in one line for that folder), so
    /// one folder of broken files does not hide the problems of the others.
    public var maxProblemsPerFolder = 100

    public init() {}
}

/// A file the walk found: where, how big, when last changed.
struct ScannedFile: Sendable, Hashable {
    let relativePath: String
    let size: Int64
    /// Nanoseconds since the epoch.
    let modificationTime: Int64
}

/// What a walk over a volume found.
struct WalkResult: Sendable {
    var musicFiles: [ScannedFile] = []
    var playlists: [ScannedFile] = []
    /// Cover image files (relative paths), e.g. `Artist/Album/cover.jpg`.
    var coverFiles: [String] = []
    /// Folders (relative; "" for the top) holding a file named `.audiobook`, in walk order.
    var audiobookFolders: [String] = []
    var warnings: [LibraryProblem] = []
    var directories = 0
    var entries = 0
    var cancelled = false
}

/// Walks one volume's folders and collects music files, playlists and cover images.
///
/// - Regular files only; a symbolic link is followed only when its target lies inside the volume
///   and (for a folder) was not walked yet, so links out of the volume and loops are not followed.
/// - Hidden entries (`.name`, which includes `.Trashes`, `.Spotlight-V100`, `._*` AppleDouble
///   files) and system folders (`System Volume Information`, `$RECYCLE.BIN`, …) are skipped.
/// - Other file systems mounted inside the volume are not entered.
/// - Depth, file count, entry count and path length are bounded (`ScanLimits`), with a warning
///   each time a limit cuts something off.
///
/// Thread: any; one walk at a time per instance (the scan worker).
struct VolumeWalker {
    let root: String
    let volume: VolumeID
    let limits: ScanLimits
    /// Threads that list folders ahead of the walk (the calling thread is one of them): on a cold
    /// cache their reads of folders and inodes overlap. 1 lists each folder when the walk gets there.
    var threads = 1

    static let systemFolders: Set<String> = [
        "system volume information", "$recycle.bin", "recycler", "recycled", "lost+found",
        "found.000", "$windows.~bt", "$windows.~ws",
    ]

    enum FileKind {
        case music, playlist, cover, other
    }

    /// The kind of a file by name (case-insensitive extension; covers by base name).
    static func classify(_ name: String) -> FileKind {
        var name = name
        return name.withUTF8 { classify($0) }
    }

    /// The kind of a file by the bytes of its name (case-insensitive extension; covers by base name).
    static func classify(_ bytes: UnsafeBufferPointer<UInt8>) -> FileKind {
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot > 0 else { return .other }
        let ext = bytes[(dot + 1)...]
        func `is`(_ word: StaticString, _ part: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
            guard part.count == word.utf8CodeUnitCount else { return false }
            var i = 0
            for b in part {
                if (b >= 0x41 && b <= 0x5A ? b + 0x20 : b) != word.utf8Start[i] { return false }
                i += 1
            }
            return true
        }
        switch ext.count {
        case 4:
            if `is`("flac", ext) || `is`("opus", ext) || `is`("aiff", ext) || `is`("aifc", ext) || `is`("wave", ext) {
                return .music
            }
            if `is`("m3u8", ext) { return .playlist }
            if `is`("jpeg", ext) { break }
            return .other
        case 3:
            // AudioFileFormat.musicSuffixes; the content decides the format when the file is read.
            if `is`("mp3", ext) || `is`("mp2", ext) || `is`("ogg", ext) || `is`("oga", ext) || `is`("wav", ext)
                || `is`("aif", ext) || `is`("m4a", ext) || `is`("m4b", ext) || `is`("mp4", ext) || `is`("m4p", ext)
            {
                return .music
            }
            if `is`("m3u", ext) { return .playlist }
            if `is`("jpg", ext) || `is`("png", ext) { break }
            return .other
        default:
            return .other
        }
        let base = bytes[..<dot]
        if `is`("cover", base) || `is`("folder", base) || `is`("front", base) || `is`("album", base) {
            return .cover
        }
        return .other
    }

    /// Whether a file name is `.audiobook`, compared without case.
    static func isAudiobookMarker(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let marker: StaticString = ".audiobook"
        guard name.count == marker.utf8CodeUnitCount else { return false }
        for (i, b) in name.enumerated() where (b >= 0x41 && b <= 0x5A ? b + 0x20 : b) != marker.utf8Start[i] {
            return false
        }
        return true
    }

    /// A directory entry kept for a closer look (after the cheap checks on its name).
    struct Listed: Sendable {
        /// The folder's relative path, "/", and the name (the name alone in the top folder).
        let relative: String
        /// Where the name starts in `relative` (UTF-8 offset).
        let nameStart: Int
        let nameIsValidUTF8: Bool
        let kind: DirectoryEntry.Kind
        let fileKind: FileKind
        let status: FileMetadata?

        var name: String { String(relative.utf8.dropFirst(nameStart))! }
    }

    /// The entries of one folder that may matter, sorted by name; `seen` counts every entry
    /// (for the entry limit). Thread: any (a value).
    struct FolderListing: Sendable {
        var entries: [Listed] = []
        var seen = 0
        var truncated = false
        var error: Errno?
        /// Whether the folder holds `.audiobook` (any case: FAT tools upper-case names).
        var audiobookMarker = false
    }

    /// Lists a folder: names that cannot matter (hidden entries, files that are not music,
    /// playlists or covers) are counted and dropped before any String is made; music files and
    /// folders get their `lstat`. At most `budget` entries are looked at. Thread: any.
    static func list(absolute: String, relative: String, budget: Int) -> FolderListing {
        var listing = FolderListing()
        var base = relative
        base.withUTF8 { baseBytes in
            do throws(Errno) {
                try Syscalls.visitDirectory(absolute) { entry in
                    if listing.seen >= budget {
                        listing.truncated = true
                        return false
                    }
                    listing.seen += 1
                    if entry.name.first == UInt8(ascii: ".") {
                        if isAudiobookMarker(entry.name) { listing.audiobookMarker = true }
                        return true
                    }
                    var kind = entry.kind
                    var status: FileMetadata?
                    if kind == .unknown {
                        guard let st = entry.status() else { return true }
                        status = st
                        kind = st.kind
                    }
                    var fileKind = FileKind.other
                    if kind == .regular {
                        fileKind = classify(entry.name)
                        if fileKind == .other { return true }
                    }
                    if (kind == .regular || kind == .directory) && status == nil { status = entry.status() }
                    let raw = entry.name
                    let valid = !raw.contains(where: { $0 >= 0x80 }) || String(validating: raw, as: UTF8.self) != nil
                    // A name that is not UTF-8 is shown (and stored) in its Windows-1252 decoding,
                    // which Syscalls' path calls turn back into these bytes (DiskName).
                    var legacy: [UInt8] = []
                    if !valid { legacy = Array(DiskName.windows1252(raw).utf8) }
                    // One allocation for the relative path.
                    let prefix = baseBytes.isEmpty ? 0 : baseBytes.count + 1
                    let joined = legacy.withUnsafeBufferPointer { decoded in
                        let name = valid ? raw : decoded
                        return String(unsafeUninitializedCapacity: prefix + name.count) { out in
                            if prefix > 0 {
                                _ = out.initialize(from: baseBytes)
                                out[baseBytes.count] = UInt8(ascii: "/")
                            }
                            _ = UnsafeMutableBufferPointer(rebasing: out[prefix...]).initialize(from: name)
                            return prefix + name.count
                        }
                    }
                    listing.entries.append(
                        Listed(
                            relative: joined, nameStart: prefix, nameIsValidUTF8: valid, kind: kind,
                            fileKind: fileKind, status: status))
                    return true
                }
            } catch {
                listing.error = error
            }
        }
        if listing.error != nil { return listing }
        // Sorted by name (byte order, the same on every machine) so the result, and what a limit
        // cuts off, does not depend on directory order. Compared by their first 8 bytes first.
        let entries = listing.entries
        let keys = entries.map { entry -> UInt64 in
            var key: UInt64 = 0
            var shift: UInt64 = 56
            for byte in entry.relative.utf8.dropFirst(entry.nameStart).prefix(8) {
                key |= UInt64(byte) << shift
                shift &-= 8
            }
            return key
        }
        var order = Array(entries.indices)
        var sorted = true
        for i in order.dropFirst()
        where keys[i - 1] > keys[i]
            || (keys[i - 1] == keys[i] && !precedes(entries[i - 1].relative, entries[i].relative))
        {
            sorted = false
            break
        }
        if !sorted {
            order.sort { a, b in
                keys[a] != keys[b] ? keys[a] < keys[b] : precedes(entries[a].relative, entries[b].relative)
            }
            listing.entries = order.map { entries[$0] }
        }
        return listing
    }

    /// Byte order of UTF-8 strings (not Unicode order: cheap, and the same everywhere).
    static func precedes(_ a: String, _ b: String) -> Bool {
        if let result = a.utf8.withContiguousStorageIfAvailable({ x in
            b.utf8.withContiguousStorageIfAvailable { y -> Bool in
                let n = min(x.count, y.count)
                let c = n == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, n)
                return c != 0 ? c < 0 : x.count < y.count
            }
        }), let result {
            return result
        }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Whether a folder name is one of `systemFolders` (any case).
    static func isSystemFolder(_ name: String) -> Bool {
        // The longest is "System Volume Information" (25 bytes): longer names need no lowercasing.
        guard name.utf8.count <= 25 else { return false }
        return systemFolders.contains(name.lowercased())
    }

    struct Pending: Sendable {
        let absolute: String
        let relative: String
        let depth: Int
    }

    struct FileID: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
    }

    func walk(isCancelled: () -> Bool = { false }) -> WalkResult {
        var result = WalkResult()
        let rootStatus: stat
        do {
            rootStatus = try Syscalls.fileStatus(root)
        } catch {
            result.warnings.append(problem("", "cannot read the volume: \(error.message)"))
            return result
        }
        let rootDevice = UInt64(rootStatus.st_dev)
        let canonicalRoot = (try? Syscalls.canonicalPath(root)) ?? root
        var visitedFolders: Set<FileID> = [FileID(device: rootDevice, inode: UInt64(rootStatus.st_ino))]
        var seenFiles: Set<FileID> = []
        var stack = [Pending(absolute: root, relative: "", depth: 0)]
        // Symbolic links wait until the real folders are walked, so a file or folder reached both
        // directly and through a link is listed under its real path.
        var links: [Pending] = []
        var collected = 0
        var stopReason: String?
        // Folders listed ahead by several threads, then taken by the walk below in its own order.
        let prefetched =
            threads > 1
            ? FolderPrefetch.run(
                root: root, rootDevice: rootDevice, rootInode: UInt64(rootStatus.st_ino), limits: limits,
                threads: threads, isCancelled: isCancelled) : nil

        /// Keeps a music file, playlist or cover (`fileKind` is not `.other`). Returns false when
        /// the walk must stop.
        func collect(
            _ relative: String, _ fileKind: FileKind, _ status: FileMetadata?, absolute: () -> String
        ) -> Bool {
            if relative.utf8.count > limits.maxPathBytes {
                result.warnings.append(
                    problem(
                        String(relative.prefix(120)) + "…",
                        "path longer than \(limits.maxPathBytes) bytes; skipped",
                        .warning))
                return true
            }
            if collected >= limits.maxFiles {
                stopReason = "more than \(limits.maxFiles) music files; the rest of the volume was not scanned"
                return false
            }
            guard let st = status ?? (try? Syscalls.linkStatus(absolute())).map(FileMetadata.init) else {
                return true
            }
            if !seenFiles.insert(FileID(device: st.device, inode: st.inode)).inserted {
                return true  // the same file reached again through a link
            }
            collected += 1
            if fileKind == .cover {
                result.coverFiles.append(relative)
                return true
            }
            let file = ScannedFile(relativePath: relative, size: st.size, modificationTime: st.modificationTime)
            if fileKind == .music { result.musicFiles.append(file) } else { result.playlists.append(file) }
            return true
        }

        /// Handles one directory entry of kind `kind` (status known for links and unknown kinds).
        /// Returns false when the walk must stop.
        func visit(
            _ name: String, _ relative: String, _ absolute: String, _ kind: DirectoryEntry.Kind,
            _ status: FileMetadata?, depth: Int
        ) -> Bool {
            switch kind {
            case .directory:
                if depth + 1 > limits.maxDepth {
                    result.warnings.append(
                        problem(relative, "folder deeper than \(limits.maxDepth) levels; not scanned", .warning))
                    return true
                }
                guard let st = status ?? (try? Syscalls.linkStatus(absolute)).map(FileMetadata.init) else {
                    return true
                }
                // Another file system mounted inside the volume is not entered (it is a volume
                // of its own when it lies under a media root).
                if st.device != rootDevice { return true }
                if !visitedFolders.insert(FileID(device: st.device, inode: st.inode)).inserted {
                    result.warnings.append(
                        problem(
                            relative, "links to a folder already scanned (a loop or a duplicate); not followed",
                            .warning))
                    return true
                }
                stack.append(Pending(absolute: absolute, relative: relative, depth: depth + 1))
            case .regular:
                let fileKind = Self.classify(name)
                if fileKind == .other { return true }
                return collect(relative, fileKind, status, absolute: { absolute })
            default:
                break
            }
            return true
        }

        walking: while true {
            if isCancelled() {
                result.cancelled = true
                break
            }
            guard let folder = stack.popLast() else {
                guard !links.isEmpty else { break }
                let link = links.removeFirst()
                guard let target = followLink(link.absolute, link.relative, canonicalRoot: canonicalRoot, into: &result)
                else { continue }
                let name = String(link.relative.split(separator: "/").last ?? "")
                let metadata = FileMetadata(target)
                if !visit(name, link.relative, link.absolute, metadata.kind, metadata, depth: link.depth) {
                    break walking
                }
                continue
            }
            result.directories += 1
            let budget = max(0, limits.maxEntries - result.entries)
            let listing =
                prefetched?.take(folder.absolute, budget: budget)
                ?? Self.list(absolute: folder.absolute, relative: folder.relative, budget: budget)
            if let error = listing.error {
                result.warnings.append(problem(folder.relative, "cannot read the folder: \(error.message)"))
                continue
            }
            result.entries += listing.seen
            if listing.audiobookMarker { result.audiobookFolders.append(folder.relative) }
            let stackBase = stack.count
            for entry in listing.entries {
                let kind = entry.kind
                if kind != .regular && VolumeWalker.isSystemFolder(entry.name) { continue }
                let relative = entry.relative
                if !entry.nameIsValidUTF8
                    && listing.entries.contains(where: { $0.nameIsValidUTF8 && $0.relative == relative })
                {
                    result.warnings.append(
                        problem(
                            relative, "the name is not UTF-8 and, read as Windows-1252, is another file's name; skipped"
                        ))
                    continue
                }
                if kind == .regular {
                    if !collect(relative, entry.fileKind, entry.status, absolute: { root + "/" + relative }) {
                        break walking
                    }
                    continue
                }
                let absolute = folder.absolute + "/" + entry.name
                if kind == .symbolicLink {
                    links.append(Pending(absolute: absolute, relative: relative, depth: folder.depth))
                    continue
                }
                if !visit(entry.name, relative, absolute, kind, entry.status, depth: folder.depth) { break walking }
            }
            stack[stackBase...].reverse()
            if listing.truncated || result.entries >= limits.maxEntries {
                stopReason = "more than \(limits.maxEntries) folder entries; the rest of the volume was not scanned"
                break
            }
        }
        if let reason = stopReason {
            result.warnings.append(problem("", reason, .warning))
        }
        return result
    }

    /// The status of a link's target when the link may be followed; otherwise records why not.
    private func followLink(
        _ absolute: String, _ relative: String, canonicalRoot: String, into result: inout WalkResult
    )
        -> stat?
    {
        guard let target = try? Syscalls.canonicalPath(absolute) else {
            if Self.classify(relative) != .other {
                result.warnings.append(problem(relative, "symbolic link to a missing file; skipped"))
            }
            return nil
        }
        guard target.hasPrefix(canonicalRoot + "/") || canonicalRoot == "/" else {
            result.warnings.append(
                problem(
                    relative,
                    target == canonicalRoot
                        ? "symbolic link to the volume's top folder (a loop); not followed"
                        : "symbolic link leads outside the volume; not followed", .warning))
            return nil
        }
        return try? Syscalls.fileStatus(target)
    }

    private func problem(_ relative: String, _ reason: String, _ severity: LibraryProblem.Severity = .excluded)
        -> LibraryProblem
    {
        LibraryProblem(volume: volume, relativePath: relative, reason: reason, severity: severity)
    }
}

/// Lists a volume's folders ahead of the walk on several threads, so that on a cold cache (a
/// stick just plugged in) the reads of folders and inodes overlap instead of waiting one after
/// another. The walk then takes each listing in its own order, so the result is the same as a walk
/// on one thread: same order, same cut-offs at limits, same handling of links (which are not
/// followed here; the walk lists what they lead to itself). Folders are entered as the walk would
/// (not hidden, not system folders, same file system, within the depth limit, each inode once);
/// listing stops once `maxEntries` entries were seen in all. Thread: built and read by the walk's
/// thread; the helper threads share it only inside `run`.
final class FolderPrefetch: @unchecked Sendable {
    private let lock = ConditionLock()
    private let rootDevice: UInt64
    private let limits: ScanLimits
    // Guarded by `lock` while the threads run.
    private var queue: [VolumeWalker.Pending]
    private var busy = 0
    private var stopped = false
    private var entries = 0
    /// Music files, playlists and covers listed: past `maxFiles` the walk stops anyway.
    private var files = 0
    private var folders: Set<VolumeWalker.FileID>
    /// By the folder's absolute path (its bytes).
    private var listings: [PathKey: VolumeWalker.FolderListing] = [:]

    private init(root: String, rootDevice: UInt64, rootInode: UInt64, limits: ScanLimits) {
        self.rootDevice = rootDevice
        self.limits = limits
        queue = [VolumeWalker.Pending(absolute: root, relative: "", depth: 0)]
        folders = [VolumeWalker.FileID(device: rootDevice, inode: rootInode)]
    }

    /// Lists every folder the walk will enter, on `threads` threads (this one included), and
    /// returns when all are done (or `isCancelled`, checked by this thread between folders).
    static func run(
        root: String, rootDevice: UInt64, rootInode: UInt64, limits: ScanLimits, threads: Int,
        isCancelled: () -> Bool
    ) -> FolderPrefetch {
        let prefetch = FolderPrefetch(root: root, rootDevice: rootDevice, rootInode: rootInode, limits: limits)
        // The first folders alone: a volume of one or two folders needs no helper threads.
        for _ in 0..<4 where prefetch.queue.count == 1 { prefetch.work(isCancelled: isCancelled, once: true) }
        let helpers = WorkerGroup(name: "kiosk-walk", count: min(threads - 1, prefetch.queue.count - 1)) { _ in
            Syscalls.setThreadNiceness(VolumeScanner.niceness)
            prefetch.work(isCancelled: { false })
        }
        prefetch.work(isCancelled: isCancelled)
        helpers.join()
        return prefetch
    }

    /// Takes folders from the queue until none is left and no thread can add more.
    private func work(isCancelled: () -> Bool, once: Bool = false) {
        lock.lock()
        while true {
            while queue.isEmpty && busy > 0 && !stopped { lock.wait() }
            if stopped || queue.isEmpty { break }
            let folder = queue.removeLast()
            busy += 1
            lock.unlock()
            let cancelled = isCancelled()
            let listing =
                cancelled
                ? VolumeWalker.FolderListing()
                : VolumeWalker.list(absolute: folder.absolute, relative: folder.relative, budget: limits.maxEntries)
            var subfolders: [(VolumeWalker.Pending, VolumeWalker.FileID)] = []
            if folder.depth + 1 <= limits.maxDepth {
                for entry in listing.entries where entry.kind == .directory {
                    guard let st = entry.status, st.device == rootDevice,
                        !VolumeWalker.isSystemFolder(entry.name)
                    else { continue }
                    subfolders.append(
                        (
                            VolumeWalker.Pending(
                                absolute: folder.absolute + "/" + entry.name, relative: entry.relative,
                                depth: folder.depth + 1),
                            VolumeWalker.FileID(device: st.device, inode: st.inode)
                        ))
                }
            }
            lock.lock()
            busy -= 1
            if cancelled {
                stopped = true
            } else {
                listings[PathKey(folder.absolute)] = listing
                entries += listing.seen
                files += listing.entries.count - subfolders.count
                if entries >= limits.maxEntries || files >= limits.maxFiles { stopped = true }
                // Reversed, so the first subfolder is taken next (the walk's order: its folders'
                // inodes tend to lie together on the disk).
                for (pending, id) in subfolders.reversed() where folders.insert(id).inserted { queue.append(pending) }
            }
            lock.broadcast()
            if once { break }
        }
        lock.unlock()
    }

    /// The listing of `absolute` made ahead, unless it looked at more entries than the walk has
    /// left (then the walk lists the folder again, to cut it off where a walk on one thread would).
    func take(_ absolute: String, budget: Int) -> VolumeWalker.FolderListing? {
        guard let listing = listings.removeValue(forKey: PathKey(absolute)), listing.seen <= budget else { return nil }
        return listing
    }
}
