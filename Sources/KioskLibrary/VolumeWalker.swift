import Glibc
import KioskSystem

/// Bounds on what a scan will look at. Everything on a stick is untrusted: each limit, when hit,
/// produces a warning naming the place and the limit, never an unbounded allocation.
/// Thread: any (a value).
public struct ScanLimits: Sendable, Hashable {
    /// Folders deeper than this below the volume's top are not entered.
    public var maxDepth = 24
    /// FLAC files, playlists and cover images collected; the walk stops at this many.
    public var maxFiles = 200_000
    /// Directory entries looked at in total (including files that are not music).
    public var maxEntries = 2_000_000
    /// Longest relative path (bytes) of a file that is kept.
    public var maxPathBytes = 1024
    /// Metadata blocks looked at per FLAC file.
    public var maxMetadataBlocks = 1024
    /// A VORBIS_COMMENT block longer than this is ignored (tags fall back), not read.
    public var maxCommentBlockBytes = 4 << 20
    /// Comment fields used per file; more are ignored.
    public var maxComments = 4096
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
    /// Problems kept per volume (more are counted in one summary line).
    public var maxProblems = 2000

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
    var flacFiles: [ScannedFile] = []
    var playlists: [ScannedFile] = []
    /// Cover image files (relative paths), e.g. `Artist/Album/cover.jpg`.
    var coverFiles: [String] = []
    var warnings: [LibraryProblem] = []
    var directories = 0
    var entries = 0
    var cancelled = false
}

/// Walks one volume's folders and collects FLAC files, playlists and cover images.
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

    static let systemFolders: Set<String> = [
        "system volume information", "$recycle.bin", "recycler", "recycled", "lost+found",
        "found.000", "$windows.~bt", "$windows.~ws",
    ]

    enum FileKind {
        case flac, playlist, cover, other
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
            if `is`("flac", ext) { return .flac }
            if `is`("m3u8", ext) { return .playlist }
            if `is`("jpeg", ext) { break }
            return .other
        case 3:
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

    /// A directory entry kept for a closer look (after the cheap checks on its name).
    private struct Listed {
        let name: String
        let nameIsValidUTF8: Bool
        let kind: DirectoryEntry.Kind
        let fileKind: FileKind
        let status: FileMetadata?
    }

    /// Byte order of names (not Unicode order: cheap, and the same on every machine).
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

    private struct Pending {
        let absolute: String
        let relative: String
        let depth: Int
    }

    private struct FileID: Hashable {
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

        func join(_ base: String, _ name: String) -> String { base.isEmpty ? name : base + "/" + name }

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
            if fileKind == .flac { result.flacFiles.append(file) } else { result.playlists.append(file) }
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
            // One pass over the folder: names that cannot matter (hidden entries, files that are
            // not music, playlists or covers) are counted and dropped before any String is made.
            var kept: [Listed] = []
            var truncated = false
            let budget = max(0, limits.maxEntries - result.entries)
            var seen = 0
            do {
                try Syscalls.visitDirectory(folder.absolute) { entry in
                    if seen >= budget {
                        truncated = true
                        return false
                    }
                    seen += 1
                    if entry.name.first == UInt8(ascii: ".") { return true }
                    var kind = entry.kind
                    var status: FileMetadata?
                    if kind == .unknown {
                        guard let st = entry.status() else { return true }
                        status = st
                        kind = st.kind
                    }
                    var fileKind = FileKind.other
                    if kind == .regular {
                        fileKind = Self.classify(entry.name)
                        if fileKind == .other { return true }
                    }
                    if (kind == .regular || kind == .directory) && status == nil { status = entry.status() }
                    let (name, valid) = entry.nameString
                    kept.append(
                        Listed(name: name, nameIsValidUTF8: valid, kind: kind, fileKind: fileKind, status: status))
                    return true
                }
            } catch {
                result.warnings.append(problem(folder.relative, "cannot read the folder: \(error.message)"))
                continue
            }
            result.entries += seen
            // Sorted so the result (and what a limit cuts off) does not depend on directory order;
            // the subfolders pushed are then reversed so the first name is walked first.
            if !zip(kept, kept.dropFirst()).allSatisfy({ Self.precedes($0.name, $1.name) }) {
                kept.sort { Self.precedes($0.name, $1.name) }
            }
            let stackBase = stack.count
            for entry in kept {
                let name = entry.name
                let kind = entry.kind
                if kind != .regular && VolumeWalker.isSystemFolder(name) { continue }
                let relative = join(folder.relative, name)
                if !entry.nameIsValidUTF8 {
                    result.warnings.append(problem(relative, "the name is not valid UTF-8; skipped"))
                    continue
                }
                if kind == .symbolicLink {
                    links.append(
                        Pending(absolute: folder.absolute + "/" + name, relative: relative, depth: folder.depth))
                    continue
                }
                if kind == .regular {
                    if !collect(relative, entry.fileKind, entry.status, absolute: { folder.absolute + "/" + name }) {
                        break walking
                    }
                    continue
                }
                if !visit(name, relative, folder.absolute + "/" + name, kind, entry.status, depth: folder.depth) {
                    break walking
                }
            }
            stack[stackBase...].reverse()
            if truncated || result.entries >= limits.maxEntries {
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
