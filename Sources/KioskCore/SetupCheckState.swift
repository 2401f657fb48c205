// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// What the player shows of `kiosk-player doctor`: the lines that failed when it ran at start (the
/// menu's "Setup check" page, present only when something failed) and an under-voltage warning in
/// the status line while the power supply sags.
///
/// Thread: loop thread (part of the player's state).
public struct SetupCheckState: Sendable, Equatable {
    /// One failed line: what is wrong and its fix.
    public struct Problem: Sendable, Equatable {
        public var text: String
        public var fix: String?

        public init(text: String, fix: String?) {
            self.text = text
            self.fix = fix
        }
    }

    public var problems: [Problem] = []
    /// Whether the check at start has finished (until then `problems` says nothing).
    public var checked = false
    /// The status line while under-voltage lasts, nil otherwise.
    public var powerWarning: String?

    public init() {}
}

extension SetupCheckState {
    /// "Setup check: 2 problems" before Close in the menu, only when something failed.
    var menuEntry: [String] {
        problems.isEmpty ? [] : ["Setup check: \(problems.count) problem\(problems.count == 1 ? "" : "s")"]
    }

    /// The page's rows: each failed line with its fix, then Close.
    var entries: [BrowseItem] {
        problems.map { BrowseItem(title: $0.text, subtitle: $0.fix) } + [BrowseItem(title: "Close")]
    }
}
