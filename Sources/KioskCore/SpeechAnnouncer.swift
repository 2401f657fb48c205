// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel

/// Which changes of the screen are spoken, by the `speech.mode`: in `prompts` and `names`, each
/// message when it appears (not progress: "Scanning"); in `names`, also the collection a browse move selects. A message still
/// shown (a refresh, a count that moves) is not said again.
///
/// Thread: the loop thread (`Player` owns it).
struct SpeechAnnouncer {
    var mode = SpeechConfig.Mode.off
    private var lastMessage: String?
    private var lastSelection: String?
    private var lastCategory: String?
    /// A button moved the selection or the category since the last look (`noteMove`): the list
    /// shown next is said even when it is the first one after another screen (next collection
    /// from now playing).
    private var moved = false

    init(mode: SpeechConfig.Mode = .off) {
        self.mode = mode
    }

    /// A move of the browse selection or category (by a button, not a refresh).
    mutating func noteMove() { moved = true }

    /// What to say now that the screen shows `state` (nil: nothing).
    mutating func follow(_ state: ScreenState) -> String? {
        let moved = self.moved
        self.moved = false
        guard mode != .off else { return nil }
        switch state {
        case .message(let message):
            lastSelection = nil
            // "Scanning" at every start would talk over the first track; a stick's state is said
            // when it matters ("No music on this stick", "Insert a USB stick").
            if message.kind == .progress {
                lastMessage = nil
                return nil
            }
            let text = SpokenForm.text(message)
            defer { lastMessage = text }
            return text == lastMessage || text.isEmpty ? nil : text
        case .browse(let list):
            lastMessage = nil
            guard mode == .names, list.items.indices.contains(list.selectedIndex) else { return nil }
            let item = list.items[list.selectedIndex]
            let key = "\(list.categoryLabel)\u{0}\(list.selectedIndex)\u{0}\(item.title)"
            let category = lastCategory
            defer {
                lastSelection = key
                lastCategory = list.categoryLabel
            }
            // The first list shown is not a move, unless a button moved it there.
            guard moved || (lastSelection != nil && lastSelection != key) else { return nil }
            // A move to another category says which.
            if category != list.categoryLabel {
                return "\(SpokenForm.words(list.categoryLabel)). \(SpokenForm.text(item))"
            }
            return SpokenForm.text(item)
        default:
            lastMessage = nil
            lastSelection = nil
            return nil
        }
    }
}
