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
        return name.withUTF8 { bytes in
            guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot > 0 else { return .other }
            let ext = bytes[(dot + 1)...]
            func `is`(_ word: StaticString, _ part: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
                guard part.count == word.utf8CodeUnitCount else { return false }
                for (i, b) in part.enumerated() where (b >= 0x41 && b <= 0x5A ? b + 0x20 : b) != word.utf8Start[i] {
                    return false
                }
                return true
            }
            if `is`("flac", ext) { return .flac }
            if `is`("m3u", ext) || `is`("m3u8", ext) { return .playlist }
            if `is`("jpg", ext) || `is`("jpeg", ext) || `is`("png", ext) {
                let base = bytes[..<dot]
                if `is`("cover", base) || `is`("folder", base) || `is`("front", base) || `is`("album", base) {
                    return .cover
                }
            }
            return .other
        }
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
                guard let st = status ?? (try? Syscalls.linkStatus(absolute)).map(FileMetadata.init) else {
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
            let listing: (entries: [DirectoryEntry], truncated: Bool)
            do {
                listing = try Syscalls.readDirectory(
                    folder.absolute, limit: max(0, limits.maxEntries - result.entries),
                    wantsMetadata: { name, kind in
                        switch kind {
                        case .directory, .unknown: return !name.hasPrefix(".")
                        case .regular:
                            let fileKind = Self.classify(name)
                            return fileKind == .flac || fileKind == .playlist
                        default: return false
                        }
                    })
            } catch {
                result.warnings.append(problem(folder.relative, "cannot read the folder: \(error.message)"))
                continue
            }
            result.entries += listing.entries.count
            // Sorted so the result (and what a limit cuts off) does not depend on directory order;
            // the subfolders pushed are then reversed so the first name is walked first.
            let stackBase = stack.count
            for entry in listing.entries.sorted(by: { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }) {
                let name = entry.name
                if name.utf8.first == UInt8(ascii: ".") { continue }
                var kind = entry.kind
                let status = entry.metadata
                if kind == .unknown {
                    guard let status else { continue }
                    kind = status.kind
                }
                // Most entries are files that are not music: decide on the name alone, cheaply.
                if kind == .regular && Self.classify(name) == .other { continue }
                if kind != .regular && VolumeWalker.systemFolders.contains(name.lowercased()) { continue }
                let relative = join(folder.relative, name)
                if !entry.nameIsValidUTF8 {
                    result.warnings.append(problem(relative, "the name is not valid UTF-8; skipped"))
                    continue
                }
                let absolute = folder.absolute + "/" + name
                if kind == .symbolicLink {
                    links.append(Pending(absolute: absolute, relative: relative, depth: folder.depth))
                    continue
                }
                if !visit(name, relative, absolute, kind, status, depth: folder.depth) { break walking }
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
