// SPDX-License-Identifier: GPL-3.0-or-later
/// Turns the bytes a terminal sends into key names: single characters ("n", "+", "é"), named keys
/// ("up", "enter", "page-down", "f5", "backtab") and control keys ("ctrl-x"). Escape sequences of
/// xterm, the Linux console and VT100 application mode; modifiers on arrows are ignored
/// ("\e[1;5A" is "up"). A sequence split across reads is completed by the next read; a lone ESC
/// at the end of a read is the escape key.
///
/// Thread: a value; owned by the event-loop thread in the player.
public struct KeyboardDecoder: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    /// The keys in `bytes` (plus whatever an earlier call left incomplete).
    public mutating func keys(from bytes: some Collection<UInt8>) -> [String] {
        let input = pending + bytes
        pending = []
        var keys: [String] = []
        var i = 0
        while i < input.count {
            let byte = input[i]
            switch byte {
            case 0x1b:
                if i + 1 >= input.count {
                    keys.append("escape")
                    i += 1
                } else if input[i + 1] == UInt8(ascii: "[") || input[i + 1] == UInt8(ascii: "O") {
                    guard let (key, length) = Self.escapeSequence(input, at: i) else {
                        pending = Array(input[i...])  // incomplete: wait for the rest
                        return keys
                    }
                    if let key { keys.append(key) }
                    i += length
                } else {
                    keys.append("escape")  // ESC then a key: Alt+key, taken as two keys
                    i += 1
                }
            case 0x0d, 0x0a:
                keys.append("enter")
                i += 1
            case 0x09:
                keys.append("tab")
                i += 1
            case 0x7f, 0x08:
                keys.append("backspace")
                i += 1
            case 0x20:
                keys.append("space")
                i += 1
            case 0x01...0x1a:
                keys.append("ctrl-" + String(UnicodeScalar(byte + 0x60)))
                i += 1
            case 0x00...0x1f:
                i += 1
            case 0x21...0x7e:
                keys.append(String(UnicodeScalar(byte)))
                i += 1
            default:
                let length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
                if i + length > input.count {
                    pending = Array(input[i...])
                    return keys
                }
                keys.append(String(decoding: input[i..<(i + length)], as: UTF8.self))
                i += length
            }
        }
        return keys
    }

    /// The key of the CSI or SS3 sequence at `start` and its length; nil when incomplete. The key is
    /// nil for a complete sequence we do not know.
    private static func escapeSequence(_ input: [UInt8], at start: Int) -> (String?, Int)? {
        let introducer = input[start + 1]
        var j = start + 2
        if introducer == UInt8(ascii: "O") {
            guard j < input.count else { return nil }
            let final = input[j]
            let key: String? =
                switch final {
                case UInt8(ascii: "A"): "up"
                case UInt8(ascii: "B"): "down"
                case UInt8(ascii: "C"): "right"
                case UInt8(ascii: "D"): "left"
                case UInt8(ascii: "H"): "home"
                case UInt8(ascii: "F"): "end"
                case UInt8(ascii: "M"): "enter"
                case UInt8(ascii: "P"): "f1"
                case UInt8(ascii: "Q"): "f2"
                case UInt8(ascii: "R"): "f3"
                case UInt8(ascii: "S"): "f4"
                default: nil
                }
            return (key, 3)
        }
        // CSI: parameters (digits and ';'), then a final byte 0x40…0x7e.
        var parameters = ""
        while j < input.count, (0x30...0x3f).contains(input[j]) {
            parameters.unicodeScalars.append(UnicodeScalar(input[j]))
            j += 1
        }
        guard j < input.count else { return nil }
        if j - start > 16 { return (nil, j - start) }
        let final = input[j]
        let length = j - start + 1
        let first = parameters.split(separator: ";").first.map(String.init) ?? ""
        let key: String?
        switch final {
        case UInt8(ascii: "A"): key = "up"
        case UInt8(ascii: "B"): key = "down"
        case UInt8(ascii: "C"): key = "right"
        case UInt8(ascii: "D"): key = "left"
        case UInt8(ascii: "H"): key = "home"
        case UInt8(ascii: "F"): key = "end"
        case UInt8(ascii: "Z"): key = "backtab"
        case UInt8(ascii: "~"):
            switch first {
            case "1", "7": key = "home"
            case "2": key = "insert"
            case "3": key = "delete"
            case "4", "8": key = "end"
            case "5": key = "page-up"
            case "6": key = "page-down"
            case "11": key = "f1"
            case "12": key = "f2"
            case "13": key = "f3"
            case "14": key = "f4"
            case "15": key = "f5"
            case "17": key = "f6"
            case "18": key = "f7"
            case "19": key = "f8"
            case "20": key = "f9"
            case "21": key = "f10"
            case "23": key = "f11"
            case "24": key = "f12"
            default: key = nil
            }
        default: key = nil
        }
        return (key, length)
    }
}
