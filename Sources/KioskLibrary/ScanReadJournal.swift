// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskSystem

/// Which files the scan was reading when the player died, so that a file which crashes a reader
/// (a parser bug, a library's) costs one restart, not a box that dies at every start: each reader
/// writes the file it is about to read into its own slot of a small file beside the volume's index
/// and clears it after; a fault handler marks the slot of the thread that faulted. The writes are
/// not synced: they must outlive the process, not a power cut (that leaves at most a suspect).
///
/// At the next start (`open`), a slot marked by the handler, or the slot of the one-at-a-time pass,
/// names a file that crashed the player: the scan stores it as unplayable (the index keeps it so
/// until the file changes). Files merely in flight when the process was killed without a fault (the
/// kernel's OOM killer, a memory ceiling) are suspects: they are read first, one at a time, in slot
/// 0, so a second death names the one file that caused it.
///
/// Thread: `open` and `reading(slot: 1)` on the scanning thread; helper `n` uses slot `n + 2`; slot
/// 0 is the suspects' pass on the scanning thread. Each slot is written by one thread only.
final class ScanReadJournal: @unchecked Sendable {
    /// A slot: state (0 idle, 1 reading, 2 crashed while reading), a pad byte, the path's length
    /// (little-endian 16 bits), the path (a longer one is cut and then names no file).
    static let slotBytes = 4352
    static let suspectSlot = 0
    static let scanningThreadSlot = 1

    /// What the last run left.
    struct Leftovers: Equatable {
        /// Files being read when a reader crashed (or alone in the suspects' pass when killed).
        var crashed: [String] = []
        /// Files being read when the process was killed without a fault.
        var suspects: [String] = []
    }

    private let fd: FileDescriptor
    let slots: Int

    private init(fd: consuming FileDescriptor, slots: Int) {
        self.fd = fd
        self.slots = slots
    }

    /// Opens (or creates) the journal at `path` with `slots` slots, returns what the previous run
    /// left in it, and clears it. Nil when it cannot be written (the scan runs without it).
    static func open(path: String, slots: Int) -> (ScanReadJournal, Leftovers)? {
        guard let fd = try? FileDescriptor.open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode: 0o644) else { return nil }
        var leftovers = Leftovers()
        var old = [UInt8](repeating: 0, count: slots * slotBytes)
        let n = old.withUnsafeMutableBytes { (try? Syscalls.pread(fd.rawValue, $0, offset: 0)) ?? -1 }
        if n > 0 {
            for slot in 0..<min(slots, n / slotBytes) {
                let base = slot * slotBytes
                let state = old[base]
                let length = Int(old[base + 2]) | Int(old[base + 3]) << 8
                guard state == 1 || state == 2, length > 0, length <= slotBytes - 4 else { continue }
                let path = String(decoding: old[base + 4..<base + 4 + length], as: UTF8.self)
                if state == 2 || slot == suspectSlot {
                    leftovers.crashed.append(path)
                } else {
                    leftovers.suspects.append(path)
                }
            }
        }
        let zeros = [UInt8](repeating: 0, count: slots * slotBytes)
        let written = zeros.withUnsafeBytes { (try? Syscalls.pwrite(fd.rawValue, $0, offset: 0)) ?? -1 }
        guard written == zeros.count, (try? Syscalls.truncate(fd.rawValue, length: Int64(zeros.count))) != nil,
            kiosk_read_journal_install_crash_handler() == 0
        else { return nil }
        return (ScanReadJournal(fd: fd, slots: slots), leftovers)
    }

    /// Runs `body` (the read of `relativePath`) with the journal saying so in `slot`.
    func reading<T>(slot: Int, _ relativePath: String, _ body: () -> T) -> T {
        guard slot >= 0, slot < slots else { return body() }
        let offset = slot * Self.slotBytes
        let name = Array(relativePath.utf8.prefix(Self.slotBytes - 4))
        var record: [UInt8] = [1, 0, UInt8(name.count & 0xFF), UInt8(name.count >> 8)]
        record += name
        _ = record.withUnsafeBytes { try? Syscalls.pwrite(fd.rawValue, $0, offset: Int64(offset)) }
        kiosk_read_journal_enter(fd.rawValue, Int64(offset))
        let result = body()
        kiosk_read_journal_leave()
        var idle: UInt8 = 0
        _ = withUnsafeBytes(of: &idle) { try? Syscalls.pwrite(fd.rawValue, $0, offset: Int64(offset)) }
        return result
    }
}
