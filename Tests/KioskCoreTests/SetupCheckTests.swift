// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
import KioskDisplay
import Testing

/// The menu's "Setup check" page (the doctor's failed lines) and the under-voltage warning.
@Suite struct SetupCheckTests {
    @Test func theMenuHasNoSetupCheckEntryWhenNothingFailed() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        rig.player.setSetupCheck([])
        #expect(!rig.player.menuEntries.contains { $0.hasPrefix("Setup check") })
        #expect(rig.player.menuEntries.last == "Close")
    }

    @Test func theSetupCheckPageListsTheFailedLinesWithTheirFixes() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        rig.player.setSetupCheck([
            .init(
                text: "dtoverlay=hifiberry-dac is missing from /boot/firmware/config.txt", fix: "echo … | sudo tee -a …"
            ),
            .init(text: "groups gpio spi missing", fix: "sudo systemd-sysusers"),
        ])
        #expect(rig.player.menuEntries[6] == "Setup check: 2 problems")
        #expect(rig.player.menuEntries[7] == "Close")
        try rig.press(.menu)
        for _ in 0..<6 { try rig.press(.down) }
        try rig.press(.select)
        #expect(rig.player.mode == .setupCheck(selected: 0))
        guard case .browse(let page) = rig.player.screenState() else {
            Issue.record("not a list: \(rig.player.screenState())")
            return
        }
        #expect(page.categoryLabel == "Setup check")
        #expect(page.items.map(\.title).first == "dtoverlay=hifiberry-dac is missing from /boot/firmware/config.txt")
        #expect(page.items.map(\.subtitle)[1] == "sudo systemd-sysusers")
        #expect(page.items.last?.title == "Close")
        try rig.press(.down)
        try rig.press(.down)
        try rig.press(.select)
        #expect(rig.player.mode == .menu(selected: 6))
        try rig.press(.back)
        #expect(rig.player.mode == .nowPlaying)
    }

    @Test func theUnderVoltageWarningShowsWhileItLasts() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        try rig.playFirst()
        rig.player.setPowerWarning("Power supply too weak")
        guard case .nowPlaying(let shown) = rig.player.screenState() else {
            Issue.record("not now playing: \(rig.player.screenState())")
            return
        }
        #expect(shown.statusLine == "Power supply too weak")
        rig.player.setPowerWarning(nil)
        guard case .nowPlaying(let after) = rig.player.screenState() else { return }
        #expect(after.statusLine == nil)
    }
}
