// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

extension Action {
    /// What the action does, in the words a person uses ("rewind", "next track"): the one source of
    /// the help pages, the demo's key panel and the tables in docs/buttons-and-cards.md (a test
    /// checks the document against it). At most 18 characters: the demo's panel has that many a column in an 80-column terminal.
    public var words: String {
        switch self {
        case .playPause: "play / pause"
        case .play: "play"
        case .pause: "pause"
        case .stop: "stop"
        case .next: "next track"
        case .previous: "previous track"
        case .volumeUp: "louder"
        case .volumeDown: "quieter"
        case .nextCategory: "next category"
        case .previousCategory: "previous category"
        case .nextCollection: "next album"
        case .previousCollection: "previous album"
        case .up: "move up"
        case .down: "move down"
        case .select: "choose"
        case .back: "go back"
        case .menu: "menu"
        case .help: "help"
        case .shutdown: "switch off"
        case .shuffle: "shuffle"
        case .sleep: "sleep timer"
        case .playFromStart: "play from start"
        case .lock: "lock the buttons"
        case .seekForward: "fast-forward"
        case .seekBackward: "rewind"
        case .parentOverride: "bedtime rules off"
        case .bluetooth: "headphones or speaker"
        case .bluetoothPair: "pair headphones"
        }
    }
}

extension Keymap {
    /// How a terminal key is written for a person: "Space", "Enter", "←", "⇧Tab" (Shift+Tab).
    public static func keyLabel(_ key: String) -> String {
        switch key {
        case "up": "↑"
        case "down": "↓"
        case "left": "←"
        case "right": "→"
        case "backtab": "⇧Tab"
        case "escape": "Esc"
        case "page-up": "PgUp"
        case "page-down": "PgDn"
        default:
            if key.hasPrefix("ctrl-") {
                "Ctrl+" + key.dropFirst(5).uppercased()
            } else if key.count > 1 {
                key.prefix(1).uppercased() + key.dropFirst()
            } else {
                key
            }
        }
    }

    /// The keyboard `map` for a person, one row per action in the order of `Action.allCases`: its
    /// keys (["←", "Backspace", "Esc"]) and what they do. The demo's panel, its help pages and the
    /// table in docs/buttons-and-cards.md.
    public static func keyboardHelp(_ map: [String: Action]) -> [(keys: [String], words: String)] {
        let order = Dictionary(defaultKeyboard.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { a, _ in a })
        return Action.allCases.compactMap { action in
            let keys = map.filter { $0.value == action }.map(\.key)
                .sorted { (order[$0] ?? .max, $0) < (order[$1] ?? .max, $1) }
            guard !keys.isEmpty else { return nil }
            return (keys: keys.map(keyLabel), words: action.words)
        }
    }
}
