// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// A box on a battery, end to end on the fake engine and virtual time: readings as the app's watch
/// hands them over, the level on now playing, "Battery low" on screen, aloud and on the light, and
/// the turning off with the resume point on the device.
struct PlayerBatteryTests {
    final class Box {
        let rig: PlayerRig
        let said = Locked<[String]>([])
        var shutdowns = 0
        var lights: [LightState] = []

        init(battery: Bool = true) throws {
            rig = try PlayerRig(volumes: [PlayerFixtures.main]) { config in
                if battery { config.battery = BatteryConfig() }
            }
            rig.player.listen(to: .speech) { [said] change in
                if case .speak(let words) = change { said.withLock { $0.append(words) } }
            }
            rig.player.listen(to: .shutdown) { [unowned self] _ in self.shutdowns += 1 }
            rig.player.listen(to: .light) { [unowned self] change in
                if case .light(let state) = change { self.lights.append(state) }
            }
        }

        /// The same reading every 10 s for `seconds` (the first at once, the last at the end), as
        /// the watch would hand them over.
        func read(_ percent: Int, charging: Bool = false, for seconds: Int = 30) throws {
            for i in 0...(seconds / 10) {
                if i > 0 { try rig.idle(10_000) }
                rig.player.batteryRead(BatteryLevel(percent: percent, onExternalPower: charging, millivolts: 3700))
            }
        }

        var category: String? {
            if case .nowPlaying(let state) = rig.player.screenState() { return state.categoryLabel }
            return nil
        }

        var message: MessageState? {
            if case .message(let message) = rig.player.screenState() { return message }
            return nil
        }
    }

    @Test func theLevelShowsBesideTheCategoryOnNowPlaying() throws {
        let box = try Box()
        defer { box.rig.shutdown() }
        try box.rig.playFirst()
        try box.read(64, for: 0)
        #expect(box.category?.hasSuffix(" · battery 64%") == true, "\(box.category ?? "no now playing")")
        try box.read(70, charging: true, for: 0)
        #expect(box.category?.hasSuffix(" · charging 70%") == true, "\(box.category ?? "no now playing")")
    }

    @Test func aLowBatteryIsShownSaidAndLit() throws {
        let box = try Box()
        defer { box.rig.shutdown() }
        try box.rig.playFirst()
        try box.read(18)
        #expect(box.message == Player.batteryLowMessage(percent: 18))
        #expect(box.said.withLock { $0 } == ["Battery low"])
        #expect(box.lights.last == .batteryLow)
        #expect(box.shutdowns == 0)
    }

    @Test func anEmptyBatteryIsSaidThenTheBoxShutsDownWithItsResumePointSaved() throws {
        let box = try Box()
        defer { box.rig.shutdown() }
        // 4% from t = 0 on; playing from t = 29 s; the reading after 30 s at 4% turns it off.
        try box.read(4, for: 20)
        try box.rig.idle(9_000)
        try box.rig.playFirst()
        try box.rig.waitForPosition(seconds: 2)
        let track = box.rig.player.currentTrack?.relativePath
        try box.read(4, for: 0)
        #expect(box.said.withLock { $0 }.contains("Battery almost empty, turning off"))
        #expect(box.shutdowns == 1)
        let saved = try #require(box.rig.saved())
        #expect(saved.relativePath == track && track != nil)
        #expect(saved.positionSeconds >= 2)
    }

    @Test func readingsGoingOnAfterTheShutdownRequestAskNothingMore() throws {
        let box = try Box()
        defer { box.rig.shutdown() }
        try box.read(3, for: 80)
        #expect(box.shutdowns == 1)
    }

    @Test func withoutABatteryConfiguredReadingsChangeNothing() throws {
        let box = try Box(battery: false)
        defer { box.rig.shutdown() }
        try box.rig.playFirst()
        try box.read(1, for: 60)
        #expect(box.shutdowns == 0 && box.said.withLock { $0 }.isEmpty)
        #expect(box.category?.contains("battery") == false)
    }

    @Test func theLightShowsALowBatteryBeforeAnErrorAndPlayback() {
        let view = PlayerView()
        let error = MessageState(title: "Battery low", kind: .error)
        #expect(
            Player.lightState(view, screen: .message(error), message: error, linking: false, batteryLow: true)
                == .batteryLow)
        #expect(
            Player.lightState(
                view, screen: .message(error), message: error, linking: false, lowPower: true, batteryLow: true)
                == .lowPower)
    }
}
