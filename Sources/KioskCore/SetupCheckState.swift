// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// What the player shows of `kiosk-player doctor`: the lines that failed when it ran at start (the
/// menu's "Setup check" page, present only when something failed), every line of it for the phone
/// page's full report, and an under-voltage warning in the status line while the power supply sags.
///
/// Thread: loop thread (part of the player's state).
public struct SetupCheckState: Sendable, Equatable {
    /// One line of the check: its group ("sound"), whether it passed, what was found and its fix.
    public struct Line: Sendable, Equatable {
        public enum Status: String, Sendable, Equatable {
            case pass, fail, info
        }
        public var group: String
        public var status: Status
        public var text: String
        public var fix: String?

        public init(group: String, status: Status, text: String, fix: String?) {
            self.group = group
            self.status = status
            self.text = text
            self.fix = fix
        }

        /// A failed line (what the menu's page lists).
        public init(text: String, fix: String?) {
            self.init(group: "", status: .fail, text: text, fix: fix)
        }
    }
    public typealias Problem = Line

    /// Every line of the check at start, in the doctor's order.
    public var lines: [Line] = []
    /// The failed ones.
    public var problems: [Line] { lines.filter { $0.status == .fail } }
    /// Whether the check at start has finished (until then `lines` says nothing).
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
