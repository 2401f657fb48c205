// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// Hands out one shared copy of equal strings (byte for byte: "é" composed and decomposed stay
/// apart), so the tracks of an album or an artist share their strings instead of each holding a
/// copy. Strings of up to 15 UTF-8 bytes are stored inside the String value and pass through.
/// `shared(bytes:)` makes no String at all for bytes it has seen. Thread: the one that owns the value.
struct StringPool {
    /// Open addressing, at most half full; nil is an empty slot.
    private var slots: [String?] = Array(repeating: nil, count: 64)
    private(set) var count = 0

    /// `string`, or the pooled string with the same bytes.
    mutating func shared(_ string: String) -> String {
        if string.utf8.count <= 15 { return string }
        var copy = string
        return copy.withUTF8 { bytes in find(UnsafeRawBufferPointer(bytes)) } ?? insert(string)
    }

    /// A string of `bytes` (UTF-8; invalid sequences are repaired and not pooled), the pooled one
    /// when there is one.
    mutating func shared(bytes: UnsafeRawBufferPointer) -> String {
        if bytes.count <= 15 { return String(decoding: bytes, as: UTF8.self) }
        if let found = find(bytes) { return found }
        let string = String(decoding: bytes, as: UTF8.self)
        return string.utf8.count == bytes.count && string.utf8.elementsEqual(bytes) ? insert(string) : string
    }

    private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: bytes)
        return hasher.finalize()
    }

    private func find(_ bytes: UnsafeRawBufferPointer) -> String? {
        let mask = slots.count - 1
        var slot = StringPool.hash(bytes) & mask
        while let candidate = slots[slot] {
            let same =
                candidate.utf8.count == bytes.count
                && (candidate.utf8.withContiguousStorageIfAvailable {
                    memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0
                } ?? candidate.utf8.elementsEqual(bytes))
            if same { return candidate }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private mutating func insert(_ string: String) -> String {
        if (count + 1) * 2 > slots.count {
            let old = slots
            slots = Array(repeating: nil, count: old.count * 2)
            count = 0
            for case let member? in old { place(member) }
        }
        place(string)
        return string
    }

    private mutating func place(_ string: String) {
        let mask = slots.count - 1
        var copy = string
        var slot = copy.withUTF8 { StringPool.hash(UnsafeRawBufferPointer($0)) } & mask
        while slots[slot] != nil { slot = (slot + 1) & mask }
        slots[slot] = string
        count += 1
    }
}
