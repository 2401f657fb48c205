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
/// Input: `FuzzTree`'s entries, kinds 0 file, 1 folder, 2 link to the content, 3 FIFO, 4 socket,
/// 5 link out of the volume to the secret.
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
        names += FuzzTree.build(
            data, under: stick, kinds: [.file, .folder, .link, .fifo, .socket, .linkOut], maxEntries: 32,
            outside: secretFile)
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
}
