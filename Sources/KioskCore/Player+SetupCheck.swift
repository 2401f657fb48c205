import KioskDisplay
import KioskInput

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
    /// The status line while under-voltage lasts, nil otherwise.
    public var powerWarning: String?

    public init() {}
}

extension Player {
    /// The doctor's failed lines (the check runs on a worker at start; KioskDoctor's SetupCheckService).
    public func setSetupProblems(_ problems: [SetupCheckState.Problem]) {
        setupCheck.problems = problems
        refreshScreen()
    }

    /// Shows `warning` in the status line while it is set (under-voltage); nil clears it.
    public func setPowerWarning(_ warning: String?) {
        guard setupCheck.powerWarning != warning else { return }
        setupCheck.powerWarning = warning
        refreshScreen()
    }

    /// "Setup check: 2 problems" before Close in the menu, only when something failed.
    var setupCheckMenuEntry: [String] {
        let count = setupCheck.problems.count
        return count == 0 ? [] : ["Setup check: \(count) problem\(count == 1 ? "" : "s")"]
    }

    /// The page's rows: each failed line with its fix, then Close.
    var setupCheckEntries: [BrowseItem] {
        setupCheck.problems.map { BrowseItem(title: $0.text, subtitle: $0.fix) } + [BrowseItem(title: "Close")]
    }

    /// Setup check page: next/previous move (wrapping); select on Close, back, menu and
    /// play-from-start go back to the menu; play, pause and stop act on playback.
    func handleSetupCheck(_ action: Action, selected: Int) {
        let count = setupCheckEntries.count
        switch action {
        case .next, .down, .nextCollection: mode = .setupCheck(selected: (selected + 1) % count)
        case .previous, .up, .previousCollection: mode = .setupCheck(selected: (selected + count - 1) % count)
        case .select:
            if selected == count - 1 { mode = .menu(selected: 6) }
        case .back, .menu, .playFromStart: mode = .menu(selected: 6)
        case .play, .pause, .stop, .playPause: transport(action)
        default: break
        }
    }
}
