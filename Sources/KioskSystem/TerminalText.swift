// SPDX-License-Identifier: GPL-3.0-or-later
/// Text from a stick (file names, tags, playlist lines) made safe to print on a terminal or in the
/// journal: control characters (C0, DEL, C1) are written as escapes (`\n`, `\t`, `\r`, `\\x1B`,
/// `\u{9B}`), so an ESC or OSC sequence in a name cannot drive the terminal and a newline cannot
/// forge another line. A backslash stays as it is: the escapes are for a reader, not a parser
/// (`scan --json` gives exact names).
///
/// Thread: pure functions; any.
public enum TerminalText {
    /// `text` with its control characters escaped; the same string when it has none.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += scalar.value < 0x80 ? "\\x" + (hex.count < 2 ? "0" + hex : hex) : "\\u{\(hex)}"
            }
        }
        return out
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
