// SPDX-License-Identifier: GPL-3.0-or-later
import KioskApp
import KioskConfig
import KioskCore
import KioskSystem
import KioskTestSupport
import Testing

/// The board's output lines on a gpio-sim chip, read through the simulator's sysfs `value` over
/// virtual time: each state's pattern on the status light, errors on the error light, the power
/// latch held while the lines are, and `power-latch release` driving it inactive. Named like the
/// other gpio-sim suites so that the VM system test runs it (Tests/System/scenarios/90-input-kernel-devices.sh).
@Suite(.tags(.integration), .serialized) struct StatusLightGPIOSimTests {
    private func board(_ sim: SimulatedChip, outputs: String) throws -> BoardProfile {
        try BoardProfile.parse(
            Array(#"{"name": "sim", "gpioChip": ["\#(sim.label)"], "outputs": \#(outputs)}"#.utf8), file: "sim.json")
    }

    /// The line's level every 125 ms (in the middle of each step), as the simulator reads it.
    private func levels(_ sim: SimulatedChip, _ line: Int, clock: VirtualClock, steps: Int) throws -> String {
        var text = ""
        clock.advance(byMilliseconds: 60)
        for step in 0..<steps {
            if step > 0 { clock.advance(byMilliseconds: 125) }
            text += try sim.value(line)
        }
        return text
    }

    @Test(
        .enabled(if: SimulatedChip.unavailableReason == nil, Comment(rawValue: SimulatedChip.unavailableReason ?? "")))
    func eachStateDrivesItsPatternOnTheLines() throws {
        let sim = try SimulatedChip(lines: 8)
        let profile = try board(
            sim,
            outputs:
                #"{"statusLight": {"line": 2}, "errorLight": {"line": 3, "activeLow": true}, "powerLatch": {"line": 4}}"#
        )
        let clock = VirtualClock()
        var lines: BoardOutputLines? = BoardOutputLines(
            outputs: profile.outputs, chips: profile.gpioChips, scheduler: clock)
        #expect(try sim.value(4) == "1", "the latch is held from the start")
        #expect(try sim.value(2) == "0")
        #expect(try sim.value(3) == "1", "an active-low light is off at the high level")

        let expected: [(LightState, String)] = [
            (.playing, "111111111"), (.paused, "111100001"), (.stopped, "000000000"), (.linking, "101010101"),
        ]
        for (state, pattern) in expected {
            lines?.show(state)
            #expect(try levels(sim, 2, clock: clock, steps: 9) == pattern, "\(state)")
            #expect(try sim.value(3) == "1", "no error light in \(state)")
        }
        lines?.show(.playing)
        lines?.show(.error)
        // Active low: lit is the low level.
        #expect(try levels(sim, 3, clock: clock, steps: 5) == "01010")
        #expect(try sim.value(2) == "1", "the status light still shows playing")
        #expect(try sim.value(4) == "1")

        lines?.stop()
        #expect(try sim.value(2) == "0" && sim.value(3) == "1", "the lights go off at stop")
        lines = nil
    }

    @Test(
        .enabled(if: SimulatedChip.unavailableReason == nil, Comment(rawValue: SimulatedChip.unavailableReason ?? "")))
    func releasingThePowerLatchDrivesItInactive() throws {
        let sim = try SimulatedChip(lines: 8)
        let profile = try board(sim, outputs: #"{"powerLatch": {"line": 5}}"#)
        // Pulled up, so that a line let go reads 1: only a line driven low reads 0.
        try sim.pull(5, up: true)
        do {
            let running = BoardOutputLines(
                outputs: profile.outputs, chips: profile.gpioChips, scheduler: VirtualClock())
            #expect(try sim.value(5) == "1")
            #expect {
                _ = try PowerLatch.drive(profile, active: false)
            } throws: { error in
                "\(error)".contains("line 5 (power latch)") && "\(error)".contains("busy")
            }
            withExtendedLifetime(running) {}
        }
        let released = try PowerLatch.drive(profile, active: false)
        #expect(try sim.value(5) == "0")
        _ = released
    }

    @Test func releasingWithoutAPowerLatchNamesTheKey() throws {
        let profile = try BoardProfile.parse(Array(#"{"name": "plain"}"#.utf8), file: "plain.json")
        #expect {
            _ = try PowerLatch.drive(profile, active: false)
        } throws: { error in
            "\(error)" == "the board profile plain has no outputs.powerLatch"
        }
    }
}
