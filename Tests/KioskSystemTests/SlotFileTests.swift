// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

@Suite struct SlotFileTests {
    static let magic: [UInt8] = Array("TEST".utf8)

    func makeFile(_ dir: TemporaryDirectory) throws -> SlotFile {
        let file = SlotFile(
            path: dir.file("state.slots"),
            regions: [
                SlotFile.Region(magic: Array("SMAL".utf8), offset: 0, slotBytes: 512),
                SlotFile.Region(magic: Self.magic, offset: 4096, slotBytes: 4096),
            ])
        try file.create()
        return file
    }

    /// A payload of `count` bytes that differs with `seed`.
    func payload(_ count: Int, seed: UInt8) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0) &+ seed } }

    /// The whole file (empty when it cannot be read).
    func contents(_ file: SlotFile) -> [UInt8] { ((try? file.read()) ?? nil) ?? [] }

    /// Writes `bytes` at `offset` of the file as a torn write leaves them.
    func overwrite(_ file: SlotFile, at offset: Int, with bytes: [UInt8]) throws {
        let fd = try FileDescriptor.open(file.path, O_RDWR)
        _ = try bytes.withUnsafeBytes { try Syscalls.pwrite(fd.rawValue, $0, offset: Int64(offset)) }
    }

    @Test func crc32IsZlibs() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum(Array("6789".utf8), continuing: CRC32.checksum(Array("12345".utf8))) == 0xCBF4_3926)
    }

    @Test func aNewFileIsPreallocatedAndHoldsNoRecord() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try makeFile(dir)
        #expect(file.isReady)
        #expect((try? Syscalls.fileStatus(file.path))?.st_size == 4096 + 2 * 4096)
        let bytes = contents(file)
        #expect(file.records(in: bytes, region: 0).isEmpty)
        #expect(file.records(in: bytes, region: 1).isEmpty)
    }

    @Test func recordsReadBackNewestFirstWhateverTheirSlot() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try makeFile(dir)
        try file.write(.init(sequence: 9, payload: payload(700, seed: 1)), region: 1, slot: 0)
        try file.write(.init(sequence: 4, payload: payload(30, seed: 2)), region: 1, slot: 1)
        try file.write(.init(sequence: 5, payload: [1, 2, 3]), region: 0, slot: 1)
        let bytes = contents(file)
        let records = file.records(in: bytes, region: 1)
        #expect(records.map(\.slot) == [0, 1])
        #expect(records.map(\.record.sequence) == [9, 4])
        #expect(records[0].record.payload == payload(700, seed: 1))
        #expect(file.records(in: bytes, region: 0).map(\.record) == [.init(sequence: 5, payload: [1, 2, 3])])
        #expect(file.isReady, "writes in place leave the length as it was")
    }

    /// A power cut in the middle of writing a record into either slot: some of its sectors are
    /// new, the others still the record before. The torn record is rejected; the other slot's stays.
    @Test(arguments: [0, 1])
    func aTornWriteLeavesTheOtherSlotsRecord(slot: Int) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try makeFile(dir)
        let older = SlotFile.Record(sequence: 1, payload: payload(3000, seed: 10))
        let kept = SlotFile.Record(sequence: 2, payload: payload(2500, seed: 20))
        try file.write(older, region: 1, slot: slot)
        try file.write(kept, region: 1, slot: 1 - slot)
        let new = SlotFile.encode(.init(sequence: 3, payload: payload(3500, seed: 30)), magic: Self.magic)
        let sectors = new.count / SlotFile.sectorBytes
        let oldBytes = SlotFile.encode(older, magic: Self.magic)
        let offset = file.slotOffset(region: 1, slot: slot)
        for torn in 1..<sectors {
            // the first `torn` sectors new, the rest old; then the other way round
            for newFirst in [true, false] {
                try overwrite(
                    file, at: offset, with: oldBytes + [UInt8](repeating: 0, count: new.count - oldBytes.count))
                let cut = torn * SlotFile.sectorBytes
                if newFirst {
                    try overwrite(file, at: offset, with: Array(new[..<cut]))
                } else {
                    try overwrite(file, at: offset + cut, with: Array(new[cut...]))
                }
                let records = file.records(in: contents(file), region: 1)
                #expect(
                    records.first?.record == kept, "torn after \(torn) of \(sectors) sectors, new first: \(newFirst)")
                #expect(!records.contains { $0.record.sequence == 3 })
            }
        }
    }

    @Test func aBadChecksumIsRejected() {
        let record = SlotFile.Record(sequence: 7, payload: payload(100, seed: 3))
        let good = SlotFile.encode(record, magic: Self.magic)
        #expect(SlotFile.decode(good[...], magic: Self.magic) == record)
        // one bit anywhere in the header or the payload
        for index in [4, 11, 12, 16, 20, 60, 119] {
            var bad = good
            bad[index] ^= 0x10
            #expect(SlotFile.decode(bad[...], magic: Self.magic) == nil, "bit flipped in byte \(index)")
        }
        #expect(SlotFile.decode(good[...], magic: Array("ELSE".utf8)) == nil, "another region's magic")
        #expect(SlotFile.decode([UInt8](repeating: 0, count: 512)[...], magic: Self.magic) == nil)
        var tooLong = good
        tooLong[12] = 0xFF
        tooLong[13] = 0xFF
        #expect(SlotFile.decode(tooLong[...], magic: Self.magic) == nil, "a length past the slot")
    }

    @Test func aRecordLargerThanItsSlotIsRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try makeFile(dir)
        #expect(file.payloadCapacity(region: 0) == 492)
        #expect(throws: Errno.self) {
            try file.write(.init(sequence: 1, payload: payload(493, seed: 0)), region: 0, slot: 0)
        }
        try file.write(.init(sequence: 1, payload: payload(492, seed: 0)), region: 0, slot: 0)
    }
}
