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
}

extension Syscalls {
    /// The entries of a directory except `.` and `..`, in the order the file system returns them.
    /// At most `limit` entries are returned; `truncated` says whether more were there.
    /// The corresponding C functions are `opendir(3)`, `readdir(3)` and `closedir(3)`.
    public static func readDirectory(_ path: String, limit: Int = Int.max) throws(Errno)
        -> (entries: [DirectoryEntry], truncated: Bool)
    {
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
            entries.append(
                DirectoryEntry(name: name, nameIsValidUTF8: valid, kind: kind, inode: UInt64(entry.pointee.d_ino)))
        }
    }

    /// The absolute path with every symbolic link, `.` and `..` resolved.
    /// The corresponding C function is `realpath(3)`.
    public static func canonicalPath(_ path: String) throws(Errno) -> String {
        guard let resolved = realpath(path, nil) else { throw Errno.current.with("realpath \(path)") }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The target of a symbolic link. The corresponding C function is `readlink(2)`.
    public static func readLink(_ path: String) throws(Errno) -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { raw in
            Glibc.readlink(path, raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count)
        }
        if n < 0 { throw Errno.current.with("readlink \(path)") }
        return String(decoding: buffer[0..<n], as: UTF8.self)
    }

    /// The corresponding C function is `rmdir(2)`.
    public static func removeDirectory(_ path: String) throws(Errno) {
        _ = try retrying("rmdir \(path)") { Glibc.rmdir(path) }
    }
}
