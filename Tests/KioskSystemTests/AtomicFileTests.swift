// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

struct SimulatedCrash: Error {}

@Suite struct AtomicFileTests {
    @Test func replaceWritesTheNewContents() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("state.json")
        try AtomicFile.replace(path, with: "old")
        try AtomicFile.replace(path, with: "new")
        #expect(String(decoding: try Syscalls.readFile(path), as: UTF8.self) == "new")
        #expect(!Syscalls.exists(AtomicFile.temporaryPath(for: path)), "no temporary file is left behind")
    }

    /// A crash before each step leaves the complete old contents or the complete new ones.
    @Test(arguments: AtomicFile.Step.allCases)
    func crashAtAnyStepLeavesOldOrNewContents(step: AtomicFile.Step) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("resume.json")
        let old = Array(repeating: UInt8(ascii: "o"), count: 100_000)
        let new = Array(repeating: UInt8(ascii: "n"), count: 150_000)
        try AtomicFile.replace(path, with: old)
        #expect(throws: SimulatedCrash.self) {
            try AtomicFile.replace(path, with: new) { current in
                if current == step { throw SimulatedCrash() }
            }
        }
        let contents = try Syscalls.readFile(path)
        let expected = step == .syncDirectory ? new : old
        #expect(contents == expected, "after a crash before \(step) the file holds \(contents.count) bytes")
        // The next save after the "reboot" succeeds despite a leftover temporary file.
        try AtomicFile.replace(path, with: Array("after".utf8))
        #expect(String(decoding: try Syscalls.readFile(path), as: UTF8.self) == "after")
    }

    @Test func replaceInAMissingDirectoryNamesThePath() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("missing/state.json")
        do {
            try AtomicFile.replace(path, with: "x")
            Issue.record("expected an error")
        } catch let error as Errno {
            #expect(error.rawValue == ENOENT)
            #expect(error.description.contains("missing/.state.json.tmp"))
        }
    }
}
