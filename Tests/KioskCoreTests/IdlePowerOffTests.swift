// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskDisplay
import KioskLibrary
import KioskTestSupport
import Testing

@testable import KioskCore

/// `idlePowerOffMinutes` on the player with the fake engine and virtual time.
@Suite struct IdlePowerOffTests {
    /// A rig with a one-minute idle power-off that counts the shutdown requests.
    private final class Counted {
        let rig: PlayerRig
        var shutdowns = 0
        init(volumes: [String] = [PlayerFixtures.main], configure: (inout Config) -> Void = { _ in }) throws {
            rig = try PlayerRig(volumes: volumes) {
                $0.idlePowerOffMinutes = 1
                configure(&$0)
            }
            rig.player.listen(to: .shutdown) { [unowned self] _ in self.shutdowns += 1 }
        }
    }

    private func showsWarning(_ rig: PlayerRig) -> Bool {
        if case .message(let message) = rig.player.screenState() { return message.title == "Switching off" }
        return false
    }

    @Test func stoppedWithNoInputWarnsThenSwitchesOff() throws {
        let box = try Counted()
        try box.rig.idle(59_000)
        #expect(!box.rig.player.isWarningOfPowerOff)
        try box.rig.idle(2_000)
        #expect(box.rig.player.isWarningOfPowerOff)
        #expect(showsWarning(box.rig))
        #expect(box.shutdowns == 0)
        try box.rig.idle(29_000)
        #expect(box.shutdowns == 1)
    }

    @Test func aPressDuringTheWarningKeepsTheBoxOnAndStartsTheCountdownAgain() throws {
        let box = try Counted()
        try box.rig.idle(61_000)
        #expect(box.rig.player.isWarningOfPowerOff)
        try box.rig.press(.down)
        #expect(!box.rig.player.isWarningOfPowerOff)
        #expect(!showsWarning(box.rig))
        try box.rig.idle(50_000)
        #expect(box.shutdowns == 0 && !box.rig.player.isWarningOfPowerOff)
        try box.rig.idle(11_000)
        #expect(box.rig.player.isWarningOfPowerOff)
    }

    @Test func inputBeforeTheWarningPostponesIt() throws {
        let box = try Counted()
        try box.rig.idle(50_000)
        try box.rig.press(.down)
        try box.rig.idle(50_000)
        #expect(!box.rig.player.isWarningOfPowerOff)
    }

    @Test func playingNeverSwitchesOff() throws {
        let box = try Counted(volumes: [PlayerFixtures.long]) { $0.repeatQueue = true }
        try box.rig.playFirst()
        try box.rig.idle(150_000)
        #expect(box.rig.player.status == .playing)
        #expect(box.shutdowns == 0 && !box.rig.player.isWarningOfPowerOff)
    }

    @Test func pausedCountsAsIdle() throws {
        let box = try Counted(volumes: [PlayerFixtures.long])
        try box.rig.playFirst()
        try box.rig.press(.pause)
        try box.rig.idle(61_000)
        #expect(box.rig.player.isWarningOfPowerOff)
        try box.rig.idle(30_000)
        #expect(box.shutdowns == 1)
    }

    @Test func zeroMinutesNeverSwitchesOff() throws {
        let box = try Counted { $0.idlePowerOffMinutes = 0 }
        try box.rig.idle(600_000)
        #expect(box.shutdowns == 0 && !box.rig.player.isWarningOfPowerOff)
    }
}
