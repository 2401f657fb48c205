// SPDX-License-Identifier: GPL-3.0-or-later

/// What a terminal receives, split into what the tests' terminal replays need: control sequences
/// (`ESC [ body command`) and everything else, one Unicode scalar at a time. Thread: any (a value).
public enum TerminalStream {
    public enum Piece {
        case control(body: String, command: Unicode.Scalar)
        case scalar(Unicode.Scalar)
    }

    /// Calls `body` with each piece of `text` in order; it returns false to stop early.
    public static func forEach(_ text: String, _ body: (Piece) -> Bool) {
        var scalars = Array(text.unicodeScalars)[...]
        while let s = scalars.popFirst() {
            guard s == "\u{1B}" else {
                if !body(.scalar(s)) { return }
                continue
            }
            guard scalars.first == "[" else { continue }
            scalars = scalars.dropFirst()
            var parameters = ""
            while let c = scalars.first, !("A"..."Z").contains(c) && !("a"..."z").contains(c) {
                parameters.unicodeScalars.append(c)
                scalars = scalars.dropFirst()
            }
            guard let command = scalars.popFirst() else { return }
            if !body(.control(body: parameters, command: command)) { return }
        }
    }
}
