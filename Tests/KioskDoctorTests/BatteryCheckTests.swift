// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskDoctor
import KioskSystem
import Testing

/// The doctor's battery line: the gauge the config names, its readings, and what is wrong with it.
struct BatteryCheckTests {
    static func battery(_ box: FakeBox, capacity: String = "57", status: String = "Discharging") throws {
        let d = "/sys/class/power_supply/sbs-1-000b"
        try box.write("\(d)/type", "Battery\n")
        try box.write("\(d)/capacity", capacity + "\n")
        try box.write("\(d)/status", status + "\n")
        try box.write("\(d)/voltage_now", "3712000\n")
    }

    @Test func withoutABatteryConfiguredThereIsNoLine() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        #expect(BatteryCheck.lines(try box.context(board: "qemu-gpio-sim")).isEmpty)
    }

    @Test func theGaugeAndItsReadingsAreShown() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try Self.battery(box)
        let lines = BatteryCheck.lines(try box.context(board: "qemu-gpio-sim", config: #"{"battery": {}}"#))
        #expect(
            lines.passed(
                "/sys/class/power_supply/sbs-1-000b: 57%, 3.712 V, Discharging; low at 20%, turns off at 5% (each held 30 s)"
            ) != nil, "\(lines.dump)")
    }

    @Test func anEmptyBatteryOnItsOwnFails() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try Self.battery(box, capacity: "4")
        let lines = BatteryCheck.lines(try box.context(board: "qemu-gpio-sim", config: #"{"battery": {}}"#))
        #expect(lines.failed("4%") != nil, "\(lines.dump)")
    }

    @Test func noGaugeFailsAndSaysWhatToDo() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let lines = BatteryCheck.lines(try box.context(board: "qemu-gpio-sim", config: #"{"battery": {}}"#))
        let line = try #require(lines.failed("no battery in /sys/class/power_supply"), "\(lines.dump)")
        #expect(line.fix?.contains("new_device") == true)
    }

    @Test func aVoltageNoBatteryCanHaveIsAFailureNotALevel() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.write("/sys/class/hwmon/hwmon2/in1_input", "120\n")
        let config = #"{"battery": {"voltage": {"path": "/sys/class/hwmon/hwmon2/in1_input", "cells": 2}}}"#
        let lines = BatteryCheck.lines(try box.context(board: "qemu-gpio-sim", config: config))
        #expect(lines.failed("120 mV, outside 3270…10500 mV for 2 cells") != nil, "\(lines.dump)")
    }

    @Test func aVoltageGivesTheChargeByTheCurve() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.write("/sys/class/hwmon/hwmon2/in1_input", "7600\n")
        let config = #"{"battery": {"voltage": {"path": "/sys/class/hwmon/hwmon2/in1_input", "cells": 2}}}"#
        let lines = BatteryCheck.lines(try box.context(board: "qemu-gpio-sim", config: config))
        #expect(lines.passed("in1_input: 40%, 7.600 V, no status") != nil, "\(lines.dump)")
    }
}
