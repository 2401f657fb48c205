// SPDX-License-Identifier: GPL-3.0-or-later
/// Bytes as lowercase hexadecimal digits and back: session tokens, and a file carried through MPD's
/// quoting unchanged (the phone page's set given back).
///
/// Thread: stateless; any.
public enum Hex {
    /// Two lowercase digits a byte.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of `digits` (two a byte, either case); nil for an odd count or a non-digit.
    public static func decode(_ digits: some Collection<UInt8>) -> [UInt8]? {
        func value(_ d: UInt8) -> UInt8? {
            switch d {
            case 0x30...0x39: d - 0x30
            case 0x61...0x66: d - 0x61 + 10
            case 0x41...0x46: d - 0x41 + 10
            default: nil
            }
        }
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var high: UInt8?
        for d in digits {
            guard let v = value(d) else { return nil }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return out
    }
}
