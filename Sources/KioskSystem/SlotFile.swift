// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A small preallocated file of checksummed records overwritten in place, for state saved every
/// few seconds on an SD card: each save rewrites one or two sectors of a file that already has
/// its blocks, instead of making a new file and renaming it (new inode, bitmaps, directory block
/// and two journal commits each time).
///
/// The file is made of regions at fixed offsets; each region has two slots, and the writer puts
/// each record in the slot that does not hold the region's newest one (`records(in:region:)`
/// says which does), with a larger sequence number than any before: so a write torn by a power
/// cut spoils only the record being written, and the other slot still holds the one before. A
/// slot holds: a magic (4 bytes,
/// one per region), the sequence (UInt64), the payload's length (UInt32), the CRC-32 of those 16
/// bytes and the payload (UInt32), all little-endian, then the payload; it is written in whole
/// 512-byte sectors with `O_DIRECT` (so a record of a few bytes costs one sector on the device,
/// not a 4 KiB page) and `fdatasync` (the data is on the device when `write` returns; the file's
/// size and blocks do not change, so no journal commit is needed for it).
///
/// Thread: any; one writer at a time per file (the caller's).
public struct SlotFile: Sendable {
    /// Two slots of `slotBytes` each (a multiple of 512) at `offset` (a multiple of 512).
    public struct Region: Sendable, Equatable {
        public var magic: [UInt8]
        public var offset: Int
        public var slotBytes: Int
        public init(magic: [UInt8], offset: Int, slotBytes: Int) {
            self.magic = magic
            self.offset = offset
            self.slotBytes = slotBytes
        }
    }

    /// What a slot holds.
    public struct Record: Sendable, Equatable {
        public var sequence: UInt64
        public var payload: [UInt8]
        public init(sequence: UInt64, payload: [UInt8]) {
            self.sequence = sequence
            self.payload = payload
        }
    }

    /// The unit of `O_DIRECT` writes: the logical sector of SD cards and of most disks.
    public static let sectorBytes = 512
    static let headerBytes = 20

    public let path: String
    public let regions: [Region]
    /// The file's length: the end of its last region.
    public let size: Int

    public init(path: String, regions: [Region]) {
        self.path = path
        self.regions = regions
        size = regions.map { $0.offset + 2 * $0.slotBytes }.max() ?? 0
    }

    /// The largest payload a slot of `region` takes.
    public func payloadCapacity(region: Int) -> Int { regions[region].slotBytes - Self.headerBytes }

    /// The offset in the file of slot `slot` (0 or 1) of `region`.
    public func slotOffset(region: Int, slot: Int) -> Int {
        regions[region].offset + slot * regions[region].slotBytes
    }

    // MARK: - encoding

    /// A slot's bytes for `record`, zero-padded to whole sectors.
    public static func encode(_ record: Record, magic: [UInt8]) -> [UInt8] {
        var bytes = magic
        append(record.sequence, to: &bytes)
        append(UInt32(record.payload.count), to: &bytes)
        let crc = CRC32.checksum(record.payload, continuing: CRC32.checksum(bytes))
        append(crc, to: &bytes)
        bytes += record.payload
        let padded = (bytes.count + sectorBytes - 1) / sectorBytes * sectorBytes
        bytes += [UInt8](repeating: 0, count: padded - bytes.count)
        return bytes
    }

    /// The record in `slot`, nil when there is none: never written, torn, or damaged (its
    /// magic, length or checksum does not match).
    public static func decode(_ slot: ArraySlice<UInt8>, magic: [UInt8]) -> Record? {
        let start = slot.startIndex
        guard slot.count >= headerBytes, Array(slot[start..<start + 4]) == magic else { return nil }
        let sequence = read(UInt64.self, slot, at: start + 4)
        let length = Int(read(UInt32.self, slot, at: start + 12))
        guard length <= slot.count - headerBytes else { return nil }
        let stored = read(UInt32.self, slot, at: start + 16)
        let payload = slot[start + headerBytes..<start + headerBytes + length]
        guard CRC32.checksum(payload, continuing: CRC32.checksum(slot[start..<start + 16])) == stored else {
            return nil
        }
        return Record(sequence: sequence, payload: Array(payload))
    }

    /// The valid records of `region` in `contents` (the whole file) with their slots, newest first.
    public func records(in contents: [UInt8], region: Int) -> [(slot: Int, record: Record)] {
        let r = regions[region]
        return (0..<2).compactMap { slot -> (slot: Int, record: Record)? in
            let start = slotOffset(region: region, slot: slot)
            guard start + r.slotBytes <= contents.count,
                let record = Self.decode(contents[start..<start + r.slotBytes], magic: r.magic)
            else { return nil }
            return (slot, record)
        }.sorted { $0.record.sequence > $1.record.sequence }
    }

    // MARK: - the file

    /// The whole file; nil when there is none.
    public func read() throws(Errno) -> [UInt8]? {
        guard Syscalls.exists(path) else { return nil }
        return try Syscalls.readFile(path, limit: max(size, 1 << 20))
    }

    /// Whether the file is there with its full length (else `create` it before writing).
    public var isReady: Bool {
        guard let status = try? Syscalls.fileStatus(path) else { return false }
        return status.st_mode & S_IFMT == S_IFREG && Int(status.st_size) == size
    }

    /// Makes the file, all zeros, atomically (`AtomicFile`). Its blocks are written, not
    /// fallocate'd: ext4 marks fallocate'd extents unwritten, and the first write into one
    /// converts it (a metadata change and a journal commit at the next save).
    public func create() throws {
        try AtomicFile.replace(path, with: [UInt8](repeating: 0, count: size))
    }

    /// Writes `record` into slot `slot` of `region` and returns once it is on the device.
    public func write(_ record: Record, region: Int, slot: Int) throws {
        let bytes = Self.encode(record, magic: regions[region].magic)
        guard bytes.count <= regions[region].slotBytes else {
            throw Errno(
                rawValue: EMSGSIZE,
                context: "\(path): a record of \(bytes.count) bytes for a slot of \(regions[region].slotBytes)")
        }
        // O_DIRECT wants the buffer aligned too (to the sector; a page satisfies every device)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 4096)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: bytes)
        let offset = Int64(slotOffset(region: region, slot: slot))
        let raw = UnsafeRawBufferPointer(buffer)
        guard let error = attempt(raw, at: offset, flags: O_RDWR | Syscalls.directIOFlag) else { return }
        // no O_DIRECT here (tmpfs before Linux 6.6) or sectors larger than 512 bytes: the page
        // cache then writes the page, and fdatasync still waits for it
        guard error.rawValue == EINVAL else { throw error }
        if let error = attempt(raw, at: offset, flags: O_RDWR) { throw error }
    }

    /// One open, pwrite, fdatasync and close; the error, if any.
    private func attempt(_ buffer: UnsafeRawBufferPointer, at offset: Int64, flags: Int32) -> Errno? {
        do throws(Errno) {
            try writeAndSync(buffer, at: offset, flags: flags)
            return nil
        } catch {
            return error
        }
    }

    private func writeAndSync(_ buffer: UnsafeRawBufferPointer, at offset: Int64, flags: Int32) throws(Errno) {
        let fd = try FileDescriptor.open(path, flags)
        let written = try Syscalls.pwrite(fd.rawValue, buffer, offset: offset)
        guard written == buffer.count else {
            throw Errno(rawValue: EIO, context: "pwrite \(path): \(written) of \(buffer.count) bytes")
        }
        do { try Syscalls.fdatasync(fd.rawValue) } catch { throw error.with("fdatasync \(path)") }
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    private static func read<T: FixedWidthInteger>(_: T.Type, _ bytes: ArraySlice<UInt8>, at index: Int) -> T {
        var value: T = 0
        for i in 0..<MemoryLayout<T>.size { value |= T(bytes[index + i]) << (8 * i) }
        return value
    }
}
