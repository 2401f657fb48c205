// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc

/// File names on disk are bytes; KioskPlayer's paths are Strings. A name that is not valid UTF-8
/// (ext2/3/4 sticks written by older systems in Latin-1 or Windows-1252) is shown decoded as
/// Windows-1252, as MPD's `filesystem_charset` does, and opened again by re-encoding each path
/// component that does not exist in UTF-8. The decoding is one scalar per byte and the encoding
/// its exact inverse, so a path shown on screen, stored in the index or sent as an MPD URI opens
/// the same file.
///
/// Thread: any (no state).
public enum DiskName {
    /// Windows-1252's 0x80–0x9F. The five bytes it leaves undefined (0x81, 0x8D, 0x8F, 0x90,
    /// 0x9D) keep their Latin-1 (C1 control) code points, so every byte decodes and encodes back.
    private static let high: [UInt32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]

    /// A name's bytes as a String: the UTF-8 text when they are valid UTF-8, else their
    /// Windows-1252 decoding (`isUTF8` false).
    public static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> (name: String, isUTF8: Bool) {
        if let exact = String(validating: bytes, as: UTF8.self) { return (exact, true) }
        return (windows1252(bytes), false)
    }

    /// A path's bytes as a String, each component decoded as `string` decodes a name (so a
    /// Windows-1252 folder may hold UTF-8 names and the other way round).
    public static func path(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if let exact = String(validating: bytes, as: UTF8.self) { return exact }
        return bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { component in
            component.withUnsafeBufferPointer { string($0).name }
        }.joined(separator: "/")
    }

    /// Bytes decoded as Windows-1252, one Unicode scalar per byte.
    public static func windows1252<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            let value = byte >= 0x80 && byte < 0xA0 ? high[Int(byte - 0x80)] : UInt32(byte)
            scalars.append(Unicode.Scalar(value)!)
        }
        return String(scalars)
    }

    /// The Windows-1252 bytes of `text`, nil when a character has none.
    public static func windows1252Bytes(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x80 || (value >= 0xA0 && value <= 0xFF) {
                bytes.append(UInt8(value))
            } else if let index = high.firstIndex(of: value) {
                bytes.append(UInt8(0x80 + index))
            } else {
                return nil
            }
        }
        return bytes
    }

    /// The bytes that open `path` when its UTF-8 does not exist but re-encoding some of its
    /// components in Windows-1252 does (NUL-terminated); nil when there is no such file, or when
    /// `path` is ASCII (its bytes are the same in both).
    ///
    /// Components are resolved from the left: each one in UTF-8 when that exists under the part
    /// resolved so far, else in Windows-1252 when that exists; a component that exists in neither
    /// (a file about to be created) stays UTF-8.
    public static func legacyPath(_ path: String) -> [CChar]? {
        guard path.utf8.contains(where: { $0 >= 0x80 }) else { return nil }
        var resolved: [UInt8] = []
        resolved.reserveCapacity(path.utf8.count + 1)
        var changed = false
        var first = true
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            if !first { resolved.append(UInt8(ascii: "/")) }
            first = false
            let utf8 = Array(component.utf8)
            if !utf8.contains(where: { $0 >= 0x80 }) {
                resolved += utf8
                continue
            }
            if exists(resolved + utf8) {
                resolved += utf8
            } else if let legacy = windows1252Bytes(component), exists(resolved + legacy) {
                resolved += legacy
                changed = true
            } else {
                resolved += utf8
            }
        }
        guard changed else { return nil }
        return resolved.map { CChar(bitPattern: $0) } + [0]
    }

    /// The NUL-terminated bytes a library that opens files by name (TagLib, FFmpeg) is given for
    /// `path`: its UTF-8, or its `legacyPath` when only that exists.
    public static func openable(_ path: String) -> [CChar] {
        if path.utf8.contains(where: { $0 >= 0x80 }), !exists(Array(path.utf8)), let legacy = legacyPath(path) {
            return legacy
        }
        return path.utf8.map { CChar(bitPattern: $0) } + [0]
    }

    /// Whether `bytes` (no NUL) name something, without following a final symbolic link.
    private static func exists(_ bytes: [UInt8]) -> Bool {
        var st = stat()
        return (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer {
            kiosk_lstat($0.baseAddress!, &st) == 0
        }
    }
}
