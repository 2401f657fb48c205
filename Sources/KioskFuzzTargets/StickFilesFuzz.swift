// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskLibrary
import KioskSystem

/// The `stick-files` target: a small tree built from the input holds every kind a hostile stick
/// may put where a file is expected (files, folders, links inside and out of the volume, FIFOs,
/// sockets), and `StickFile` reads each entry, and the names the player reads (`exhibit.json`,
/// `kiosk-staff`, `folder.jpg`), by `openat2` and by the walk, then writes the staff export there.
///
/// Checked (a trap is a finding): nothing outside the stick is read (the "state directory" holds a
/// secret that must never come back) or written (it stays as it was); both resolutions agree; a
/// FIFO never waits (a wait is libFuzzer's timeout).
///
/// Input: entries as `scan`'s (a kind byte, a name length byte and the name, and for files and
/// links a 16-bit little-endian length and the content), kinds 0 file, 1 folder, 2 link to the
/// content, 3 FIFO, 4 socket, 5 link out of the volume to the secret.
///
/// Thread: the fuzzing thread.
enum StickFilesFuzz {
    /// What the "state directory" holds: bytes an input cannot guess.
    static let secret: [UInt8] = Array("state-\(UInt64.random(in: 0...UInt64.max))-\(getpid())".utf8)

    static func run(_ data: [UInt8]) {
        let root = FuzzFiles.directory + "/stick-files"
        _ = Syscalls.runAndWait("/bin/rm", arguments: ["-rf", root])
        let stick = root + "/stick"
        let secretFile = root + "/state/cards.json"
        try? Syscalls.mkdirs(stick)
        try? Syscalls.mkdirs(root + "/state")
        try? SyntheticLibrary.writeFile(path: secretFile, bytes: secret)
        var names = ["exhibit.json", "kiosk-staff", "folder.jpg", "Album/cover.jpg", "list.m3u"]
        names += build(data, under: stick, secretFile: secretFile)
        for name in names {
            let kernel = try? StickFile.read(name, beneath: stick, limit: 1 << 16, resolution: .automatic)
            let walked = try? StickFile.read(name, beneath: stick, limit: 1 << 16, resolution: .walk)
            precondition(kernel == walked, "openat2 and the walk disagree on \(name)")
            if let kernel { precondition(!contains(kernel, secret), "\(name) read the state directory's file") }
        }
        _ = try? StickFile.replace("kiosk-play-counts.csv", inVolume: stick, with: Array("date,clip,plays\n".utf8))
        precondition(
            (try? Syscalls.readFile(secretFile)) == secret, "the staff export wrote outside the stick")
    }

    private static func contains(_ bytes: [UInt8], _ part: [UInt8]) -> Bool {
        guard bytes.count >= part.count else { return false }
        return (0...(bytes.count - part.count)).contains { bytes[$0..<$0 + part.count].elementsEqual(part) }
    }

    /// Builds the entries; returns their names.
    private static func build(_ data: [UInt8], under stick: String, secretFile: String) -> [String] {
        var i = 0
        var names: [String] = []
        while i + 2 <= data.count, names.count < 32 {
            let kind = data[i] % 6
            let nameLength = Int(data[i + 1])
            i += 2
            let nameBytes = data[i..<min(data.count, i + nameLength)].prefix { $0 != 0 }
            i += nameLength
            var name = String(decoding: nameBytes, as: UTF8.self)
            // Inside the stick only: no absolute names, no climbing out while building.
            name = name.split(separator: "/").filter { $0 != ".." && $0 != "." }.joined(separator: "/")
            if name.isEmpty { name = "entry\(names.count)" }
            names.append(name)
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
            case 3: _ = mkfifo(path, 0o644)
            case 4: bindSocket(at: path)
            default: _ = symlink(secretFile, path)
            }
        }
        return names
    }

    /// A bound UNIX socket at `path` (closed at once; the name stays).
    private static func bindSocket(at path: String) {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (k, byte) in bytes.enumerated() { raw[k] = byte }
        }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
