// SPDX-License-Identifier: GPL-3.0-or-later
@preconcurrency import CVorbisFile
import Glibc
import KioskSystem

/// The links of a chained Ogg file, checked before libvorbisfile opens it seekable: vorbisfile 1.3.7
/// leaks the serial-number list of a later link whose headers it cannot read
/// (`_bisect_forward_serialno` returns on `_fetch_headers`' failure without freeing it; an Opus link
/// after a Vorbis one is enough), and no call of ours can free it afterwards. So such a file is
/// refused here, before vorbisfile bisects it; each later link is tried with `ov_test_callbacks` on a
/// non-seekable view starting at it, a path that frees what it allocates.
///
/// Thread: stateless; any (reads the descriptor with pread only).
enum OggLinks {
    /// Whether every link after the first opens in vorbisfile (true also for a file of one link).
    static func laterLinksOpen(fd: Int32, size: Int64) -> Bool {
        guard let first = page(fd: fd, at: 0, size: size) else { return true }
        var firstSerials: Set<UInt32> = []
        var position: Int64 = 0
        var current = first
        while current.isBOS {
            firstSerials.insert(current.serial)
            position = current.end
            guard let next = page(fd: fd, at: position, size: size) else { break }
            current = next
        }
        // vorbisfile bisects only when the file's last page is not of the first link's streams.
        if let last = lastPageSerial(fd: fd, size: size), firstSerials.contains(last) { return true }
        var serials = firstSerials
        var links = 1
        while let page = page(fd: fd, at: position, size: size) {
            if !serials.contains(page.serial) {
                links += 1
                guard linkOpens(fd: fd, at: position, size: size) else { return false }
                serials = [page.serial]
                var next = page
                while next.isBOS, let following = self.page(fd: fd, at: next.end, size: size), following.isBOS {
                    serials.insert(following.serial)
                    next = following
                }
            }
            position = page.end
        }
        return true
    }

    struct Page {
        let serial: UInt32
        let isBOS: Bool
        /// Where the next page starts.
        let end: Int64
    }

    /// The page at `offset`, or nil when there is none (the end, or not a page).
    static func page(fd: Int32, at offset: Int64, size: Int64) -> Page? {
        var header = [UInt8](repeating: 0, count: 27 + 255)
        let n = header.withUnsafeMutableBytes { (try? Syscalls.pread(fd, $0, offset: offset)) ?? -1 }
        guard n >= 27, header[0] == 0x4F, header[1] == 0x67, header[2] == 0x67, header[3] == 0x53 else { return nil }
        let segments = Int(header[26])
        guard n >= 27 + segments else { return nil }
        let body = header[27..<27 + segments].reduce(0) { $0 + Int($1) }
        let serial = UInt32(header[14]) | UInt32(header[15]) << 8 | UInt32(header[16]) << 16 | UInt32(header[17]) << 24
        let end = offset + Int64(27 + segments + body)
        guard end <= size else { return nil }
        return Page(serial: serial, isBOS: header[5] & 0x02 != 0, end: end)
    }

    /// The serial number of the last page in the file's last 64 KiB (where vorbisfile looks first).
    static func lastPageSerial(fd: Int32, size: Int64) -> UInt32? {
        let start = max(0, size - 65536)
        var tail = [UInt8](repeating: 0, count: Int(size - start))
        let n = tail.withUnsafeMutableBytes { (try? Syscalls.pread(fd, $0, offset: start)) ?? -1 }
        guard n == tail.count, n >= 27 else { return nil }
        var i = n - 27
        while i >= 0 {
            if tail[i] == 0x4F, tail[i + 1] == 0x67, tail[i + 2] == 0x67, tail[i + 3] == 0x53,
                let page = page(fd: fd, at: start + Int64(i), size: size)
            {
                return page.serial
            }
            i -= 1
        }
        return nil
    }

    /// The non-seekable view `ov_test_callbacks` reads a link through.
    private final class View {
        let fd: Int32
        var position: Int64
        init(fd: Int32, position: Int64) {
            self.fd = fd
            self.position = position
        }
    }

    /// Whether vorbisfile finds a Vorbis stream with readable headers in the link at `offset`.
    static func linkOpens(fd: Int32, at offset: Int64, size: Int64) -> Bool {
        let view = View(fd: fd, position: offset)
        let callbacks = ov_callbacks(
            read_func: { buffer, size, count, client in
                let view = Unmanaged<View>.fromOpaque(client!).takeUnretainedValue()
                let wanted = UnsafeMutableRawBufferPointer(start: buffer, count: size * count)
                let n = (try? Syscalls.pread(view.fd, wanted, offset: view.position)) ?? -1
                if n <= 0 { return 0 }
                view.position += Int64(n)
                return n / max(size, 1)
            },
            seek_func: nil, close_func: nil, tell_func: nil)
        var vf = OggVorbis_File()
        let status = withExtendedLifetime(view) {
            ov_test_callbacks(Unmanaged.passUnretained(view).toOpaque(), &vf, nil, 0, callbacks)
        }
        // On failure vorbisfile has cleared `vf` itself.
        if status == 0 { ov_clear(&vf) }
        return status == 0
    }
}
