// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskLibrary
import KioskSystem

/// The `scan` target: the input is a small tree of files, folders, links and FIFOs (what a stick
/// made on another system may hold), built in a fresh folder; the scan walks it with an index and
/// the catalog is built from what it found, twice (the second scan reads the index).
///
/// An input is a sequence of entries: a kind byte (0 file, 1 folder, 2 symbolic link, 3 FIFO), a
/// name length byte and the name (bytes as they are, a `/` makes subfolders; NUL ends the name),
/// then for files and links a 16-bit little-endian length and the content (a link's is its target).
///
/// Thread: the fuzzing thread.
enum ScanFuzz {
    static func run(_ data: [UInt8]) {
        let root = FuzzFiles.directory + "/scan"
        let state = FuzzFiles.directory + "/scan-state"
        _ = Syscalls.runAndWait("/bin/rm", arguments: ["-rf", root, state])
        try? Syscalls.mkdirs(root + "/stick")
        try? Syscalls.mkdirs(state)
        build(data, under: root + "/stick")
        let volume = VolumeID(rawValue: "fuzz")
        let scanner = VolumeScanner(readerThreads: 2)
        var previous: VolumeContents?
        for _ in 0..<2 {
            guard
                let (contents, _) = try? scanner.scan(
                    volume: volume, mountPoint: root + "/stick", indexPath: state + "/index.sqlite", previous: nil)
            else { return }
            _ = Catalog(volumes: [contents])
            previous = contents
        }
        _ = previous
    }

    private static func build(_ data: [UInt8], under stick: String) {
        var i = 0
        var entries = 0
        while i + 2 <= data.count, entries < 64 {
            entries += 1
            let kind = data[i] % 4
            let nameLength = Int(data[i + 1])
            i += 2
            let nameBytes = data[i..<min(data.count, i + nameLength)].prefix { $0 != 0 }
            i += nameLength
            var name = String(decoding: nameBytes, as: UTF8.self)
            // Inside the stick only: no absolute names, no climbing out.
            name = name.split(separator: "/").filter { $0 != ".." && $0 != "." }.joined(separator: "/")
            if name.isEmpty { name = "entry\(entries)" }
            let path = stick + "/" + name
            if let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) { try? Syscalls.mkdirs(String(path[..<slash])) }
            var content: [UInt8] = []
            if kind == 0 || kind == 2 {
                guard i + 2 <= data.count else { break }
                let length = Int(data[i]) | Int(data[i + 1]) << 8
                i += 2
                content = Array(data[i..<min(data.count, i + length)])
                i += length
            }
            switch kind {
            case 0: try? SyntheticLibrary.writeFile(path: path, bytes: content)
            case 1: try? Syscalls.mkdirs(path)
            case 2: _ = symlink(String(decoding: content.prefix { $0 != 0 }, as: UTF8.self), path)
            default: _ = mkfifo(path, 0o644)
            }
        }
    }
}
