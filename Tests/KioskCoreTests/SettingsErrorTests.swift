// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskDisplay
import KioskTestSupport
import Testing

@testable import KioskCore

/// A settings file the SD-card image could not apply (`Player.showSettingsError`): its error is
/// shown naming the file and the line, lights the error pattern, is said once, and the music plays on.
@Suite struct SettingsErrorTests {
    /// The three kinds of error, as the image's kiosk-settings writes them (deploy/image/test-settings.sh).
    static let errors = [
        ("kiosk-settings.json: parse error: Expected separator between values at line 4, column 10", 4),
        ("kiosk-settings.json line 4: volumeMaximum: unknown key (known keys: audio, board, volumeMax)", 4),
        (#"kiosk-settings.json line 2: board: no board profile "rpi7" (known: rpi3, rpi4)"#, 2),
    ]

    @Test(arguments: errors)
    func theMessageSaysTheLineAndShowsTheWholeErrorWithItsFile(error: String, line: Int) {
        let message = Player.settingsErrorMessage(error)
        #expect(message.kind == .error)
        #expect(message.title == "Settings not applied: error in line \(line)")
        #expect(message.detail == error, "the detail names the file: \(message.detail ?? "nil")")
    }

    @Test func anErrorWithoutALineSaysTheFile() {
        let message = Player.settingsErrorMessage("kiosk-settings.json: cannot read\nsecond line")
        #expect(message.title == "Settings not applied: error in the file")
        #expect(message.detail == "kiosk-settings.json: cannot read", "one line: the first")
    }

    @Test func theErrorShowsLightsAndIsSaidOnceWhileTheMusicPlaysOn() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        let heard = HeardFromPlayer(rig)
        try rig.playFirst()
        let error = Self.errors[1].0
        let track = rig.title
        let position = rig.player.positionSeconds

        rig.player.showSettingsError(error)
        guard case .message(let shown) = rig.player.screenState() else {
            Issue.record("no message on the screen: \(rig.player.screenState())")
            return
        }
        #expect(shown == Player.settingsErrorMessage(error))
        #expect(heard.lights.last == .error)
        try rig.idle(2000)
        rig.player.refreshScreen()
        #expect(heard.said.filter { $0.contains("Settings not applied") } == ["Settings not applied: error in line 4"])
        #expect(rig.player.status == .playing && rig.title == track, "the track plays on")
        #expect(rig.player.positionSeconds > position)

        try rig.idle(Player.settingsErrorSeconds * 1000)
        #expect(rig.player.transientMessage == nil, "the message goes after its time")
        #expect(heard.lights.last != .error)
    }
}
