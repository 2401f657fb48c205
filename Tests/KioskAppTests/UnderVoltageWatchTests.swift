// SPDX-License-Identifier: GPL-3.0-or-later
import KioskDoctor
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskApp

/// `UnderVoltageWatch` over a system tree laid out as the Pi's: `rpi_volt`'s `in0_lcrit_alarm`.
@Suite struct UnderVoltageWatchTests {
    private func tree(alarm: String?) throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory("kiosk-power")
        try dir.write("sys/class/hwmon/hwmon0/name", "cpu_thermal\n")
        if let alarm {
            try dir.write("sys/class/hwmon/hwmon1/name", "rpi_volt\n")
            try dir.write("sys/class/hwmon/hwmon1/in0_lcrit_alarm", alarm + "\n")
        }
        return dir
    }

    @Test func withoutRpiVoltThereIsNothingToWatch() throws {
        let dir = try tree(alarm: nil)
        defer { dir.remove() }
        #expect(UnderVoltageWatch(root: SystemRoot(prefix: dir.path), scheduler: VirtualClock()) { _ in } == nil)
    }

    @Test func theAlarmsChangesReachThePlayerOnceEach() throws {
        let dir = try tree(alarm: "0")
        defer { dir.remove() }
        let clock = VirtualClock()
        var changes: [Bool] = []
        let watch = try #require(
            UnderVoltageWatch(root: SystemRoot(prefix: dir.path), scheduler: clock) { changes.append($0) })
        watch.start()
        #expect(changes.isEmpty, "no alarm at start: nothing to say")
        try dir.write("sys/class/hwmon/hwmon1/in0_lcrit_alarm", "1\n")
        clock.advance(byMilliseconds: UnderVoltageWatch.intervalMilliseconds)
        #expect(changes == [true])
        clock.advance(byMilliseconds: 3 * UnderVoltageWatch.intervalMilliseconds)
        #expect(changes == [true], "the same alarm is not reported again")
        try dir.write("sys/class/hwmon/hwmon1/in0_lcrit_alarm", "0\n")
        clock.advance(byMilliseconds: UnderVoltageWatch.intervalMilliseconds)
        #expect(changes == [true, false])
        watch.stop()
        try dir.write("sys/class/hwmon/hwmon1/in0_lcrit_alarm", "1\n")
        clock.advance(byMilliseconds: 2 * UnderVoltageWatch.intervalMilliseconds)
        #expect(changes == [true, false], "stopped: no more reads")
    }
}
