// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// The spoken form of what the screen shows: the one place a message becomes words for espeak-ng
/// (units written out, quotes and ellipses dropped, a detail spoken only where it helps a listener).
///
/// Thread: any (pure functions).
public enum SpokenForm {
    /// What to say for `message`: "New card. Hold the big button to link it to The Gruffalo",
    /// "Sleep timer set to 30 minutes", "Volume limit 80 percent".
    public static func text(_ message: MessageState) -> String {
        let title = words(message.title)
        if let minutes = number(in: message.title, between: "Sleep in ", and: " min") {
            return "Sleep timer set to \(minutes) minutes"
        }
        if let percent = number(in: message.title, between: "Volume at most ", and: " %") {
            return "Volume limit \(percent) percent"
        }
        // Progress counts change while shown, errors carry file names and library messages: the title.
        guard message.kind == .info, let detail = message.detail.map(words), !detail.isEmpty,
            !silentDetails.contains(message.title)
        else { return title }
        // "No playable music files" + "on the USB stick" reads as one sentence.
        if let first = detail.first, first.isLowercase { return "\(title) \(detail)" }
        return "\(title). \(detail)"
    }

    /// A volume-up press at the ceiling (the screen shows the volume standing at its top).
    public static let volumeLimitReached = "Volume limit reached"

    /// What a browse list's move says in `names` mode: the selected collection's name.
    public static func text(_ item: BrowseItem) -> String { words(item.title) }

    /// Titles whose detail is for the eye only (a card's number).
    private static let silentDetails: Set<String> = ["Card unlinked"]

    /// The longest name spoken, in characters (~5 s at espeak-ng's 175 words a minute): a folder,
    /// playlist or card name can be any length; what a listener can follow is a few words.
    public static let maxNameCharacters = 80

    /// `text` without what a voice should not read: ellipses, quotes around names (an apostrophe
    /// within a word stays), a unit's sign written out; cut to `maxNameCharacters` (at a space
    /// when there is one in its last 20).
    static func words(_ text: String) -> String {
        let text = text.count > maxNameCharacters ? cut(text) : text
        let quotes: Set<Character> = ["'", "\"", "‘", "’", "“", "”"]
        let characters = Array(text.filter { $0 != "…" })
        var kept = ""
        for (i, c) in characters.enumerated() {
            if quotes.contains(c) {
                let before = i > 0 ? characters[i - 1] : " "
                let after = i + 1 < characters.count ? characters[i + 1] : " "
                if before == " " || after == " " || !before.isLetter || !after.isLetter { continue }
            }
            kept.append(c)
        }
        return kept.split(separator: " ").map { $0 == "%" ? "percent" : String($0) }.joined(separator: " ")
    }

    /// `text`'s first `maxNameCharacters` characters, ending at a space where one is near the end.
    private static func cut(_ text: String) -> String {
        let head = text.prefix(maxNameCharacters)
        if let space = head.lastIndex(of: " "), head.distance(from: space, to: head.endIndex) <= 20 {
            return String(head[..<space])
        }
        return String(head)
    }

    /// The number in `text` between `prefix` and `suffix` ("Sleep in 30 min"), when `text` is exactly that.
    private static func number(in text: String, between prefix: String, and suffix: String) -> Int? {
        guard text.hasPrefix(prefix), text.hasSuffix(suffix), text.count > prefix.count + suffix.count else {
            return nil
        }
        return Int(text.dropFirst(prefix.count).dropLast(suffix.count))
    }
}
