// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// One name in a directory, as `readdir(3)` reports it.
public struct DirectoryEntry: Sendable, Hashable {
    /// What `d_type` says the entry is. `unknown` on file systems that do not fill it in:
    /// the caller then asks `lstat`.
    public enum Kind: Sendable, Hashable {
        case regular, directory, symbolicLink, other, unknown

        /// The kind a `dirent`'s `d_type` says (`DT_UNKNOWN` where the file system does not tell).
        init(direntType: UInt8) {
            switch Int32(direntType) {
            case Int32(DT_REG): self = .regular
            case Int32(DT_DIR): self = .directory
            case Int32(DT_LNK): self = .symbolicLink
            case Int32(DT_UNKNOWN): self = .unknown
            default: self = .other
            }
        }
    }

    /// The name; bytes that are not UTF-8 are decoded as Windows-1252 (see `DiskName`).
    public let name: String
    /// False when the name's bytes are not UTF-8: `name` is then their Windows-1252 decoding, which
    /// the path calls of `Syscalls` (and `DiskName.openable`) turn back into those bytes.
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

/// One directory entry as `readdir(3)` returns it, before any `String` is made.
/// Valid only inside the `Syscalls.visitDirectory` callback that received it. Thread: that callback's.
public struct RawDirectoryEntry: ~Copyable {
    /// The name's bytes (no terminating NUL), possibly not UTF-8.
    public let name: UnsafeBufferPointer<UInt8>
    /// What `d_type` says (`unknown` on file systems that do not fill it in).
    public let kind: DirectoryEntry.Kind
    /// The inode number (`d_ino`).
    public let inode: UInt64
    let directory: Int32
    let cName: UnsafePointer<CChar>

    /// The name as a String, and whether its bytes were valid UTF-8 (they are decoded as
    /// Windows-1252 otherwise, see `DiskName`).
    public var nameString: (name: String, isValidUTF8: Bool) {
        let (text, valid) = DiskName.string(name)
        return (text, valid)
    }

    /// `lstat` of the entry, relative to the open directory (cheaper than a `lstat` of the whole
    /// path); nil when it fails. The corresponding C function is `fstatat(2)`.
    public func status() -> FileMetadata? {
        var st = stat()
        return fstatat(directory, cName, &st, AT_SYMLINK_NOFOLLOW) == 0 ? FileMetadata(st) : nil
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
        let dir = try openDirectory(path)
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
                    let bytes = UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self)
                    let decoded = DiskName.string(UnsafeBufferPointer(start: bytes, count: strlen(raw)))
                    return (decoded.name, decoded.isUTF8)
                }
            }
            if name == "." || name == ".." { continue }
            if entries.count >= limit { return (entries, true) }
            let kind = DirectoryEntry.Kind(direntType: entry.pointee.d_type)
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

    /// Calls `body` with every entry of a directory except `.` and `..`, in the order the file
    /// system returns them, without making a `String` or an array: for walks over many thousand
    /// entries of which most are skipped by name. `body` returns false to stop early.
    /// The corresponding C functions are `opendir(3)`, `readdir(3)` and `closedir(3)`.
    public static func visitDirectory(
        _ path: String, _ body: (borrowing RawDirectoryEntry) -> Bool
    ) throws(Errno) {
        let dir = try openDirectory(path)
        defer { closedir(dir) }
        let fd = dirfd(dir)
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { throw Errno.current.with("readdir \(path)") }
                return
            }
            let keepGoing = withUnsafePointer(to: &entry.pointee.d_name) { tuple -> Bool in
                tuple.withMemoryRebound(to: CChar.self, capacity: 256) { cName -> Bool in
                    let length = strlen(cName)
                    let bytes = UnsafeRawPointer(cName).assumingMemoryBound(to: UInt8.self)
                    if bytes[0] == 0x2E && (length == 1 || (length == 2 && bytes[1] == 0x2E)) { return true }
                    let kind = DirectoryEntry.Kind(direntType: entry.pointee.d_type)
                    return body(
                        RawDirectoryEntry(
                            name: UnsafeBufferPointer(start: bytes, count: length), kind: kind,
                            inode: UInt64(entry.pointee.d_ino), directory: fd, cName: cName))
                }
            }
            if !keepGoing { return }
        }
    }

    /// `opendir(3)` of `path`, through `onDisk`.
    private static func openDirectory(_ path: String) throws(Errno) -> OpaquePointer {
        guard let dir = onDisk(path, failed: { $0 == nil }, { opendir($0) }) else {
            throw Errno.current.with("opendir \(path)")
        }
        return dir
    }

    /// The absolute path with every symbolic link, `.` and `..` resolved (its components shown as
    /// `DiskName` shows names). The corresponding C function is `realpath(3)`.
    public static func canonicalPath(_ path: String) throws(Errno) -> String {
        guard let resolved = onDisk(path, failed: { $0 == nil }, { realpath($0, nil) }) else {
            throw Errno.current.with("realpath \(path)")
        }
        defer { free(resolved) }
        let bytes = UnsafeRawPointer(resolved).assumingMemoryBound(to: UInt8.self)
        return DiskName.path(UnsafeBufferPointer(start: bytes, count: strlen(resolved)))
    }

    /// The corresponding C function is `rmdir(2)`.
    public static func removeDirectory(_ path: String) throws(Errno) {
        _ = try retrying("rmdir \(path)") { Glibc.rmdir(path) }
    }
}
