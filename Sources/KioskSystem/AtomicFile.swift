// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// Replaces a file's contents so that, whatever instant power is lost or the process is killed,
/// the path holds either the complete old contents or the complete new ones.
///
/// Steps: write a temporary file in the same directory, fsync it, rename it over the target,
/// fsync the directory (so the rename itself is durable). Thread: any.
public enum AtomicFile {
    /// The steps of a replace, in order; a test's fault injector may fail at any of them.
    public enum Step: CaseIterable, Sendable {
        case createTemporary, write, syncFile, rename, syncDirectory
    }

    /// The temporary file used for `path`. A leftover one (from a crash) is overwritten next time.
    public static func temporaryPath(for path: String) -> String {
        let (directory, name) = split(path)
        return "\(directory)/.\(name).tmp"
    }

    /// Atomically replaces `path` with `contents`.
    ///
    /// - Parameter fault: called before each step; a thrown error stops the replace there, as a
    ///   crash would (the temporary file is left behind, the target untouched or already replaced).
    public static func replace(
        _ path: String, with contents: [UInt8], mode: mode_t = 0o644,
        fault: ((Step) throws -> Void)? = nil
    ) throws {
        let temporary = temporaryPath(for: path)
        try fault?(.createTemporary)
        let fd = try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_TRUNC, mode: mode)
        try fault?(.write)
        do { try fd.writeAll(contents) } catch { throw error.with("write \(temporary)") }
        try fault?(.syncFile)
        do { try Syscalls.fsync(fd.rawValue) } catch { throw error.with("fsync \(temporary)") }
        _ = consume fd
        try fault?(.rename)
        try Syscalls.rename(temporary, path)
        try fault?(.syncDirectory)
        let directory = try FileDescriptor.open(split(path).directory, O_RDONLY | O_DIRECTORY)
        // Some filesystems refuse fsync on a directory (EINVAL); the rename is then as durable as it gets.
        _ = try? Syscalls.fsync(directory.rawValue)
    }

    /// Atomically replaces `path` with the UTF-8 of `text`.
    public static func replace(_ path: String, with text: String, mode: mode_t = 0o644) throws {
        try replace(path, with: Array(text.utf8), mode: mode)
    }

    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }
}
