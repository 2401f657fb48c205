// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// The open file a library-driven decoder (vorbisfile, opusfile) reads through callbacks: a
/// descriptor with read, seek and tell that retry EINTR (`Syscalls.retrying`) and remember the first read error, so the
/// decoder can name it instead of the library's generic "read failed".
///
/// Thread: that of its decoder.
final class SourceFile {
    private(set) var file = FileDescriptor.invalid
    /// errno of the first failed read since `open`, else 0.
    private(set) var readErrno: Int32 = 0
    /// The file's size when opened.
    private(set) var size: Int64 = 0

    var fd: Int32 { file.rawValue }
    var isOpen: Bool { file.isValid }

    /// Opens `path` read-only and checks it is a non-empty regular file. `O_NONBLOCK` (the
    /// `StickFile.openMusic` rule) so that a FIFO or device put where a track was does not wait
    /// for a writer: the `fstat` below refuses it at once.
    func open(_ path: String) throws(DecodeError) {
        close()
        let opened: Int32
        do throws(Errno) {
            opened = try Syscalls.open(path, O_RDONLY | O_NONBLOCK)
        } catch {
            throw .cannotOpen(errno: error.rawValue)
        }
        file = FileDescriptor(owning: opened)
        var st = stat()
        if fstat(opened, &st) != 0 {
            let e = errno
            close()
            throw .cannotOpen(errno: e)
        }
        if (st.st_mode & S_IFMT) != S_IFREG {
            close()
            throw .notARegularFile
        }
        if st.st_size == 0 {
            close()
            throw .emptyFile
        }
        size = Int64(st.st_size)
        readErrno = 0
        _ = posix_fadvise(opened, 0, 0, POSIX_FADV_SEQUENTIAL)
    }

    func close() {
        file = .invalid
        size = 0
    }

    /// Reads up to `count` bytes; 0 at the end, -1 on an error (kept in `readErrno`).
    func read(_ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        do throws(Errno) {
            return try Syscalls.read(fd, UnsafeMutableRawBufferPointer(start: buffer, count: count))
        } catch {
            return failed(error)
        }
    }

    /// Reads up to `count` bytes at `offset`, without moving the file position.
    func pread(_ buffer: UnsafeMutableRawPointer, _ count: Int, at offset: Int64) -> Int {
        do throws(Errno) {
            return try Syscalls.pread(fd, UnsafeMutableRawBufferPointer(start: buffer, count: count), offset: offset)
        } catch {
            return failed(error)
        }
    }

    /// A read failed: keeps its errno when it is the first since `open`; -1.
    private func failed(_ error: Errno) -> Int {
        if readErrno == 0 { readErrno = error.rawValue }
        return -1
    }

    /// The failed read when there was one (its errno says more than the library's code), else `error`.
    func readFailure(or error: DecodeError) -> DecodeError {
        readErrno != 0 ? .readFailed(errno: readErrno) : error
    }

    /// lseek(2): the new offset, or -1.
    func seek(_ offset: Int64, whence: Int32) -> Int64 {
        Int64(lseek(fd, off_t(offset), whence))
    }

    func tell() -> Int64 { Int64(lseek(fd, 0, SEEK_CUR)) }
}
