// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// A settings file that could not be applied (the SD-card image's `kiosk-settings`, which keeps the
/// last good settings in force): its error shows over the screen, lights the status light's error
/// pattern and, with speech on, is said once, while the player plays on with the settings it has.
/// Thread: the loop thread, like `Player`.
extension Player {
    /// How long the error shows: long enough to be read after the box comes on.
    public static let settingsErrorSeconds = 30

    /// The message for `error`, the settings check's one line ("kiosk-settings.json line 3: ..."):
    /// the title says the line (an error's title is what is spoken), the detail the whole error.
    public static func settingsErrorMessage(_ error: String) -> MessageState {
        let text = error.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let line = lineNumber(in: text)
        return MessageState(
            title: "Settings not applied: error in " + (line.map { "line \($0)" } ?? "the file"),
            detail: text.isEmpty ? nil : text, kind: .error)
    }

    /// Shows `error` (the settings file's) for `settingsErrorSeconds` and logs it.
    public func showSettingsError(_ error: String) {
        scheduler.assertInLoop()
        let message = Self.settingsErrorMessage(error)
        Log.error("settings: \(message.detail ?? message.title); the last good settings stay in force")
        showTransient(message, seconds: Self.settingsErrorSeconds)
        refreshScreen()
    }

    /// The number after the first "line " in `text` (jq's "at line 3, column 5", the check's
    /// "kiosk-settings.json line 3:"), nil when there is none.
    static func lineNumber(in text: String) -> Int? {
        let words = text.split { !$0.isLetter && !$0.isNumber }
        for (word, next) in zip(words, words.dropFirst()) where word == "line" {
            if let number = Int(next) { return number }
        }
        return nil
    }
}
