// SPDX-License-Identifier: GPL-3.0-or-later
/// What a text becomes before it is spoken: one line, no control characters, no runs of the same
/// punctuation, and at most `maxCharacters` characters. Every prompt passes here (`Speaker.say`),
/// whatever made it: a folder, playlist or card name can be any length (a 2 KB album title was
/// 110 s of speech with the track paused), and espeak-ng's memory grows with the text (~15 MB per KB).
///
/// The budgets: a name is cut to `SpokenForm.maxNameCharacters` (80) where a prompt is made; a
/// whole prompt to 240 characters, ~15 s at espeak-ng's 175 words a minute; and what the helper
/// makes to `maxSeconds` (20 s) of audio whatever the text.
///
/// Thread: any (pure functions).
public enum SpokenText {
    /// The longest prompt, in characters (~15 s of speech).
    public static let maxCharacters = 240
    /// The longest prompt, in seconds of audio: the synthesis stops there.
    public static let maxSeconds = 20

    /// `text` as it is spoken: whitespace and control characters become single spaces, a run of
    /// the same punctuation one mark ("!!!" → "!", "..." → "."), and past `maxCharacters` it is cut
    /// at the last space (or there, when the last 40 characters hold none).
    public static func prepared(_ text: String) -> String {
        var out = ""
        var last: Character = " "
        var count = 0
        for character in text {
            let c: Character =
                character.isWhitespace || character.unicodeScalars.contains(where: isControl) ? " " : character
            if c == " " && last == " " { continue }
            if c == last && c.isPunctuation { continue }
            if count == maxCharacters {
                if let space = out.lastIndex(of: " "), out.distance(from: space, to: out.endIndex) <= 40 {
                    out = String(out[..<space])
                }
                return out
            }
            out.append(c)
            last = c
            count += 1
        }
        return last == " " ? String(out.dropLast()) : out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
    }
}
