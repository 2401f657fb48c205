import Glibc

/// One name in a directory, as `readdir(3)` reports it.
public struct DirectoryEntry: Sendable, Hashable {
    /// What `d_type` says the entry is. `unknown` on file systems that do not fill it in:
    /// the caller then asks `lstat`.
    public enum Kind: Sendable, Hashable {
        case regular, directory, symbolicLink, other, unknown
    }

    /// The name; invalid UTF-8 bytes are replaced by U+FFFD (see `nameIsValidUTF8`).
    public let name: String
    /// False when the name's bytes are not UTF-8: `name` then does not open the file.
    public let nameIsValidUTF8: Bool
    public let kind: Kind
    /// The inode number (`d_ino`).
    public let inode: UInt64
    /// `lstat` of the entry, when the caller asked for it (and it succeeded).
    public let metadata: FileMetadata?
}

/// What `lstat(2)` says about a file, in Swift types. Thread: any (a value).
public struct FileMetadata: Sendable, Hashable {
    public let kind: DirectoryEntry.Kind
    public let size: Int64
    /// Last modification, nanoseconds since the epoch.
    public let modificationTime: Int64
    public let device: UInt64
    public let inode: UInt64

    public init(_ st: stat) {
        switch st.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        size = Int64(st.st_size)
        modificationTime = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }
}

extension Syscalls {
    /// The entries of a directory except `.` and `..`, in the order the file system returns them.
    /// At most `limit` entries are returned; `truncated` says whether more were there.
    /// Entries for which `wantsMetadata` returns true carry their `lstat` metadata, read relative
    /// to the open directory (cheaper than a `lstat` of the whole path).
    /// The corresponding C functions are `opendir(3)`, `readdir(3)`, `fstatat(2)` and `closedir(3)`.
    public static func readDirectory(
        _ path: String, limit: Int = Int.max,
        wantsMetadata: (_ name: String, _ kind: DirectoryEntry.Kind) -> Bool = { _, _ in false }
    ) throws(Errno) -> (entries: [DirectoryEntry], truncated: Bool) {
        guard let dir = opendir(path) else { throw Errno.current.with("opendir \(path)") }
        defer { closedir(dir) }
        var entries: [DirectoryEntry] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { throw Errno.current.with("readdir \(path)") }
                return (entries, false)
            }
            let (name, valid) = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { raw -> (String, Bool) in
                    if let exact = String(validatingCString: raw) { return (exact, true) }
                    return (String(cString: raw), false)
                }
            }
            if name == "." || name == ".." { continue }
            if entries.count >= limit { return (entries, true) }
            let kind: DirectoryEntry.Kind
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_REG): kind = .regular
            case Int32(DT_DIR): kind = .directory
            case Int32(DT_LNK): kind = .symbolicLink
            case Int32(DT_UNKNOWN): kind = .unknown
            default: kind = .other
            }
            var metadata: FileMetadata?
            if wantsMetadata(name, kind) {
                var st = stat()
                let rc = withUnsafePointer(to: entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 256) {
                        fstatat(dirfd(dir), $0, &st, AT_SYMLINK_NOFOLLOW)
                    }
                }
                if rc == 0 { metadata = FileMetadata(st) }
            }
            entries.append(
                DirectoryEntry(
                    name: name, nameIsValidUTF8: valid, kind: kind, inode: UInt64(entry.pointee.d_ino),
                    metadata: metadata))
        }
    }

    /// The absolute path with every symbolic link, `.` and `..` resolved.
    /// The corresponding C function is `realpath(3)`.
    public static func canonicalPath(_ path: String) throws(Errno) -> String {
        guard let resolved = realpath(path, nil) else { throw Errno.current.with("realpath \(path)") }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The corresponding C function is `rmdir(2)`.
    public static func removeDirectory(_ path: String) throws(Errno) {
        _ = try retrying("rmdir \(path)") { Glibc.rmdir(path) }
    }
}
