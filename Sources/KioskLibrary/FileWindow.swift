// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// One file opened for reading its headers, and a window onto it, so that reading them costs one
/// open and as few reads as their layout allows: a range is served from the bytes read last when
/// it lies in them, else at least `readBytes` are read from its start with one `pread` (the next
/// headers usually follow). The buffer is allocated once and reused for every file opened.
///
/// Thread: one thread at a time (its owner's).
final class FileWindow {
    /// Most bytes one range may have: a longer range is read by the caller into a buffer of its own.
    let capacity: Int
    /// Bytes read at least when a range is not in the window.
    let readBytes: Int
    private let buffer: UnsafeMutableRawPointer
    /// The file's offset of the window's first byte, and how many bytes it holds.
    private var start: Int64 = 0
    private var count = 0
    /// Where the file ends, once a read came back short (`Int64.max` until then).
    private var fileEnd = Int64.max
    private var file = FileDescriptor.invalid

    init(capacity: Int = 32 << 10, readBytes: Int = 4096) {
        self.capacity = capacity
        self.readBytes = min(readBytes, capacity)
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// The open file's descriptor (-1 when none is open).
    var fd: Int32 { file.rawValue }

    /// Opens `path` read-only (closing the file open before), with nothing read yet: a regular
    /// file only, opened without waiting (`StickFile.openMusic`: the files are on sticks).
    func open(_ path: String) throws(Errno) {
        close()
        file = try StickFile.openMusic(path)
    }

    /// Closes the file and forgets its bytes.
    func close() {
        file = .invalid
        start = 0
        count = 0
        fileEnd = .max
    }

    /// The open file's status (`fstat`).
    func status() throws(Errno) -> stat {
        try Syscalls.fileStatus(fd: file.rawValue)
    }

    /// The bytes at `offset..<offset + wanted` (`wanted` at most `capacity`); fewer when the file
    /// ends first. Valid until the next call. Throws the read's error.
    func bytes(at offset: Int64, count wanted: Int) throws(Errno) -> UnsafeRawBufferPointer {
        precondition(wanted >= 0 && wanted <= capacity && offset >= 0, "a range the window cannot hold")
        if offset >= fileEnd { return UnsafeRawBufferPointer(start: buffer, count: 0) }
        let end = min(offset + Int64(wanted), fileEnd)
        if offset >= start && end <= start + Int64(count) {
            return UnsafeRawBufferPointer(start: buffer + Int(offset - start), count: Int(end - offset))
        }
        let asked = max(wanted, readBytes)
        let got = try Syscalls.pread(fd, UnsafeMutableRawBufferPointer(start: buffer, count: asked), offset: offset)
        start = offset
        count = got
        if got < asked { fileEnd = offset + Int64(got) }
        return UnsafeRawBufferPointer(start: buffer, count: min(got, wanted))
    }
}
