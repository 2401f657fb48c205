// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskLibrary
import KioskModel
import KioskSystem

/// The `scan` target: the input is a small tree of files, folders, links and FIFOs (what a stick
/// made on another system may hold), built in a fresh folder; the scan walks it with an index and
/// the catalog is built from what it found, twice (the second scan reads the index).
///
/// Input: `FuzzTree`'s entries, kinds 0 file, 1 folder, 2 symbolic link, 3 FIFO.
///
/// Thread: the fuzzing thread.
enum ScanFuzz {
    static func run(_ data: [UInt8]) {
        let root = FuzzFiles.directory + "/scan"
        let state = FuzzFiles.directory + "/scan-state"
        _ = Syscalls.runAndWait("/bin/rm", arguments: ["-rf", root, state])
        try? Syscalls.mkdirs(root + "/stick")
        try? Syscalls.mkdirs(state)
        FuzzTree.build(data, under: root + "/stick", kinds: [.file, .folder, .link, .fifo], maxEntries: 64)
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
}
