// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskDisplay
import KioskModel
import KioskTestSupport
import Testing

@testable import KioskCore

/// The update's news on the SD-card image (`Player.showUpdateNotice`, from `UpdateNoticeWatch`):
/// shown, said, an error on the status light, and the music plays on.
@Suite struct UpdateNoticeTests {
    @Test func newsIsShownAndSaidWithItsDetailWhileTheMusicPlaysOn() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        let heard = HeardFromPlayer(rig)
        try rig.playFirst()
        let track = rig.title
        let notice = MessageState(title: "Update 1.5 installed", detail: "It starts at the next power-on")

        rig.player.showUpdateNotice(notice)
        #expect(rig.player.screenState() == .message(notice))
        try rig.idle(500)
        #expect(heard.said.filter { $0.contains("Update") } == ["Update 1.5 installed. It starts at the next power-on"])
        #expect(heard.lights.last != .error)
        #expect(rig.player.status == .playing && rig.title == track, "the track plays on")
    }

    @Test func aFailedUpdateLightsTheErrorPatternAndSaysItsTitle() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        let heard = HeardFromPlayer(rig)
        try rig.playFirst()

        rig.player.showUpdateNotice(
            MessageState(title: "The update failed its check", detail: "the player did not start", kind: .error))
        #expect(heard.lights.last == .error)
        try rig.idle(500)
        #expect(heard.said.filter { $0.contains("update") } == ["The update failed its check"])
        #expect(rig.player.status == .playing)
    }
}
