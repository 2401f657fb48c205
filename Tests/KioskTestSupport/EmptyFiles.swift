// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// Creates `count` empty files `0.mp3`, `1.mp3`… in `folder` (made if missing), each with one
/// open(2), for sticks of tens of thousands of files that would take minutes through the writers.
/// Thread: the caller's.
public func makeEmptyFiles(_ count: Int, in folder: String) throws {
    try Syscalls.mkdirs(folder)
    for n in 0..<count {
        let fd = Glibc.open(folder + "/\(n).mp3", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Errno.current.with("create \(folder)/\(n).mp3") }
        Glibc.close(fd)
    }
}
