// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

/// Processes the player starts (`Syscalls.spawn`).
@Suite struct SpawnTests {
    /// A descriptor opened without O_CLOEXEC (as a library's fopen() opens a file on a stick) is
    /// not inherited by a child: the child would keep the stick busy, so it could not be unmounted.
    @Test func aChildInheritsNoDescriptorButItsStandardStreams() throws {
        let dir = try TemporaryDirectory("kiosk-spawn")
        defer { dir.remove() }
        let leaky = open(dir.file("open.txt"), O_CREAT | O_RDWR, 0o644)
        try #require(leaky > 2)
        defer { close(leaky) }
        let listing = dir.file("fds.txt")
        let pid = try Syscalls.spawn(
            "/bin/sh", arguments: ["-c", "ls /proc/$$/fd > '\(listing)'"], stdin: .null(writing: false))
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        let fds = String(decoding: try Syscalls.readFile(listing), as: UTF8.self).split(separator: "\n")
        #expect(!fds.contains(Substring("\(leaky)")), "the child had our descriptor \(leaky): \(fds)")
        #expect(fds.contains("0") && fds.contains("1") && fds.contains("2"))
    }
}
