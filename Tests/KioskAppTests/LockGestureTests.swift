// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskCore
import KioskTestSupport
import Testing

@testable import KioskApp

/// The "Locked" message says how each shipped board unlocks (`Appliance.lockGesture`).
@Suite struct LockGestureTests {
    @Test(arguments: [
        ("rpi4", "Hold down+select 3 s"), ("pirate-audio", "Hold A+Y 3 s"), ("pitft28", "Hold b23+b17 3 s"),
        ("waveshare-144", "Hold key2+key3 3 s"), ("usb-keypad-hdmi", "Hold L"),
    ])
    func eachShippedBoardSaysHowItUnlocks(board: String, gesture: String) throws {
        let profile = try BoardProfile.load(file: TestPaths.repository + "/boards/\(board).json").input
        #expect(Appliance.lockGesture(profile, keyboard: false) == gesture)
    }

}
