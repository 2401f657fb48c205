// SPDX-License-Identifier: GPL-3.0-or-later
/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320; the one of zlib, PNG and Python's
/// `zlib.crc32`, so the system test's checker can recompute it), for the checksums of records
/// overwritten in place (`SlotFile`). Thread: any (a pure function over a constant table).
public enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The CRC of `bytes`, continuing from `crc` (the CRC of what came before; 0 to start).
    public static func checksum(_ bytes: some Sequence<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
        var c = ~crc
        for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return ~c
    }
}
