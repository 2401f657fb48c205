// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// What shows over the screens (`Overlays`): messages, the doctor's findings at start and the
/// under-voltage warning. Thread: the loop thread, like `Player`.
extension Player {
    /// The doctor's lines (the check runs on a worker at start; KioskApp's SetupCheckService): the
    /// failed ones for the menu, all of them for the phone page.
    public func setSetupCheck(_ lines: [SetupCheckState.Line]) {
        scheduler.assertInLoop()
        apply(overlays.handle(.setupChecked(lines)))
        refreshScreen()
    }

    /// Shows `warning` in the status line while it is set (under-voltage); nil clears it.
    public func setPowerWarning(_ warning: String?) {
        scheduler.assertInLoop()
        apply(overlays.handle(.powerWarning(warning)))
    }

    /// The menu's setup-check entry (only when something failed) and the page's rows.
    var setupCheckMenuEntry: [String] { overlays.setupCheck.menuEntry }
    var setupCheckEntries: [BrowseItem] { overlays.setupCheck.entries }

    /// Shows a message for `seconds` over the screen.
    func showTransient(_ message: MessageState, seconds: Int) {
        scheduler.assertInLoop()
        apply(overlays.handle(.show(message, seconds: seconds)))
    }

    /// Takes the message off the screen.
    func clearTransient() { apply(overlays.handle(.clearMessage)) }

    /// The message showing now, nil when none.
    var transientMessage: MessageState? { overlays.message }
}
