// SPDX-License-Identifier: GPL-3.0-or-later
import KioskTestSupport
import Testing

@testable import KioskApp

/// `SettingsErrorNotice.read`: the error file kiosk-settings writes on the SD-card image.
@Suite struct SettingsErrorNoticeTests {
    @Test func theFirstLineOfTheFileIsTheError() throws {
        let dir = try TemporaryDirectory("kiosk-settings-error")
        defer { dir.remove() }
        try dir.write("error", "kiosk-settings.json line 2: board: no board profile \"rpi7\"\n")
        #expect(
            SettingsErrorNotice.read(path: dir.file("error"))
                == "kiosk-settings.json line 2: board: no board profile \"rpi7\"")
    }

    @Test func noFileOrAnEmptyOneIsNoError() throws {
        let dir = try TemporaryDirectory("kiosk-settings-error")
        defer { dir.remove() }
        #expect(SettingsErrorNotice.read(path: dir.file("error")) == nil)
        try dir.write("error", " \n")
        #expect(SettingsErrorNotice.read(path: dir.file("error")) == nil)
    }
}
