// SPDX-License-Identifier: GPL-3.0-or-later
/// A card's identity as the readers give it and `cards.json` keeps it: the RC522's UID bytes in
/// hex ("04A2B3C4D5E6F7"), or the digits a USB reader types ("0004561234"). Upper case, only
/// letters and digits, 1…32 of them, so a value from a file or a reader is either a valid key or
/// refused.
///
/// Thread: a value; any thread.
public struct CardUID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public static let maxLength = 32

    public let rawValue: String

    /// Accepts `text` with its letters in any case and ":", "-" or " " between bytes
    /// ("04:a2:b3:c4"); nil for anything else.
    public init?(_ text: String) {
        var kept: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"): kept.append(byte)
            case UInt8(ascii: "a")...UInt8(ascii: "z"): kept.append(byte - 32)
            case UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: " "): continue
            default: return nil
            }
        }
        guard (1...Self.maxLength).contains(kept.count) else { return nil }
        rawValue = String(decoding: kept, as: UTF8.self)
    }

    /// The hex of an RC522 UID (4, 7 or 10 bytes).
    public init(bytes: [UInt8]) {
        rawValue = bytes.map(Self.hex).joined()
    }

    /// One byte as two upper-case hex digits ("0A"), as UIDs and the reader's registers are written.
    public static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    public var description: String { rawValue }

    public static func < (a: CardUID, b: CardUID) -> Bool { a.rawValue < b.rawValue }
}

/// A card put on a reader or taken off it. Thread: a value; any thread.
public struct CardEvent: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case presented
        /// Only readers that see a card stay (the RC522) report this; USB readers type once.
        case removed
    }

    public let kind: Kind
    public let uid: CardUID
    /// The reader, for logs and `kiosk-player inputs`: "usb reader \"…\"", "rc522 /dev/spidev0.0", "script".
    public let source: String
    /// CLOCK_MONOTONIC nanoseconds.
    public let timestampNs: UInt64

    public init(_ kind: Kind, uid: CardUID, source: String, timestampNs: UInt64) {
        self.kind = kind
        self.uid = uid
        self.source = source
        self.timestampNs = timestampNs
    }

    public var description: String {
        "\(source): card \(uid) \(kind == .presented ? "presented" : "removed")"
    }
}
