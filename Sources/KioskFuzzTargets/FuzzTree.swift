// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskLibrary
import KioskSystem

/// A small tree of what a stick may hold, built from a fuzz input in a folder: the entry format the
/// `scan` and `stick-files` targets share. An input is a sequence of entries: a kind byte (taken
/// modulo the target's number of kinds), a name length byte and the name (bytes as they are, a `/`
/// makes subfolders, NUL ends the name; `..` and `.` are dropped, so nothing is built outside), then
/// for files and links a 16-bit little-endian length and the content (a link's is its target).
///
/// Thread: the fuzzing thread.
enum FuzzTree {
    enum Kind {
        case file, folder, link, fifo
        /// A bound UNIX socket.
        case socket
        /// A link to `outside`, a file out of the tree.
        case linkOut
    }

    /// Builds at most `maxEntries` entries of `kinds` under `root`; the names built, in order.
    @discardableResult
    static func build(
        _ data: [UInt8], under root: String, kinds: [Kind], maxEntries: Int, outside: String = "/dev/null"
    ) -> [String] {
        var i = 0
        var names: [String] = []
        while i + 2 <= data.count, names.count < maxEntries {
            let kind = kinds[Int(data[i]) % kinds.count]
            let nameLength = Int(data[i + 1])
            i += 2
            let nameBytes = data[i..<min(data.count, i + nameLength)].prefix { $0 != 0 }
            i += nameLength
            var name = String(decoding: nameBytes, as: UTF8.self)
            name = name.split(separator: "/").filter { $0 != ".." && $0 != "." }.joined(separator: "/")
            if name.isEmpty { name = "entry\(names.count + 1)" }
            names.append(name)
            let path = root + "/" + name
            if let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) { try? Syscalls.mkdirs(String(path[..<slash])) }
            var content: [UInt8] = []
            if kind == .file || kind == .link {
                guard i + 2 <= data.count else { break }
                let length = Int(data[i]) | Int(data[i + 1]) << 8
                i += 2
                content = Array(data[i..<min(data.count, i + length)])
                i += length
            }
            switch kind {
            case .file: try? SyntheticLibrary.writeFile(path: path, bytes: content)
            case .folder: try? Syscalls.mkdirs(path)
            case .link: _ = symlink(String(decoding: content.prefix { $0 != 0 }, as: UTF8.self), path)
            case .fifo: _ = mkfifo(path, 0o644)
            case .socket: bindSocket(at: path)
            case .linkOut: _ = symlink(outside, path)
            }
        }
        return names
    }

    /// A bound UNIX socket at `path` (closed at once; the name stays).
    private static func bindSocket(at path: String) {
        guard let fd = try? Syscalls.listenUnix(path: path) else { return }
        Syscalls.closeIgnoringErrors(fd)
    }
}
