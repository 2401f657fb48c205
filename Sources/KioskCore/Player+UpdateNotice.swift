// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// The update's news (the SD-card image's `kiosk-update` and `kiosk-ab`: a bundle found, installed
/// or refused, the new version's check passed or failed): shown over the screen and, with speech
/// on, said; an error also lights the status light's error pattern. The music plays on.
/// Thread: the loop thread, like `Player`.
extension Player {
    /// How long a notice shows: as long as the settings' error, to be read after the box comes on.
    public static let updateNoticeSeconds = settingsErrorSeconds

    /// Shows `notice` for `updateNoticeSeconds` and logs it.
    public func showUpdateNotice(_ notice: MessageState) {
        scheduler.assertInLoop()
        let text = notice.title + (notice.detail.map { ": \($0)" } ?? "")
        if notice.kind == .error { Log.error("updates: \(text)") } else { Log.info("updates: \(text)") }
        showTransient(notice, seconds: Self.updateNoticeSeconds)
        refreshScreen()
    }
}
