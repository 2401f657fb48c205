// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A path as a dictionary or set key by its UTF-8 bytes, hashed and compared byte for byte.
///
/// `String`'s hashing and equality follow Unicode canonical equivalence: a non-ASCII path is
/// normalized (NFC) each time it is hashed or compared, and two names that differ only in their
/// normalization are equal, while on Linux they are two files. Keys by bytes are both cheaper
/// and right. Sorting for display keeps its collation (`SortKey`). Thread: any (a value).
struct PathKey: Hashable, Sendable {
    let path: String

    init(_ path: String) { self.path = path }

    static func == (a: PathKey, b: PathKey) -> Bool { sameBytes(a.path, b.path) }

    func hash(into hasher: inout Hasher) {
        let hashed: Void? = path.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        if hashed == nil {
            for byte in path.utf8 { hasher.combine(byte) }
        }
    }

    /// Whether `a` and `b` have the same UTF-8 bytes.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        let same = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
            }
        }
        if let same, let same { return same }
        return a.utf8.elementsEqual(b.utf8)
    }
}
