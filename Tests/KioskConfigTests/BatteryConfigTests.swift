// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem
import Testing

/// The `battery` object of config.json: docs/configuration.md's examples, the discharge curve, and
/// bad values refused with a message that names the key.
struct BatteryConfigTests {
    static let gaugeExample = #"{"battery": {"powerSupply": "auto", "lowPercent": 20, "emptyPercent": 5}}"#
    static let voltageExample = #"""
        {"battery": {"voltage": {"path": "/sys/bus/iio/devices/iio:device0/in_voltage1_raw", "cells": 2}}}
        """#

    @Test func anEmptyObjectReadsTheFirstPowerSupplyBatteryWithTheDefaultLevels() throws {
        let battery = try #require(try ConfigText.parse(#"{"battery": {}}"#).battery)
        #expect(battery.gauge == .powerSupply(nil))
        #expect(battery.lowPercent == 20 && battery.emptyPercent == 5)
        #expect(battery.pollSeconds == 10 && battery.confirmSeconds == 30 && battery.speak)
    }

    @Test func noBatteryObjectMeansNoBattery() throws {
        #expect(try ConfigText.parse("{}").battery == nil)
    }

    @Test func theDocumentedExamplesParse() throws {
        let gauge = try #require(try ConfigText.parse(Self.gaugeExample).battery)
        #expect(gauge.gauge == .powerSupply(nil))
        let voltage = try #require(try ConfigText.parse(Self.voltageExample).battery)
        #expect(
            voltage.gauge == .voltage(path: "/sys/bus/iio/devices/iio:device0/in_voltage1_raw", scale: nil, cells: 2))
    }

    @Test func aNamedPowerSupplyIsKept() throws {
        let battery = try #require(try ConfigText.parse(#"{"battery": {"powerSupply": "sbs-1-000b"}}"#).battery)
        #expect(battery.gauge == .powerSupply("sbs-1-000b"))
    }

    @Test func theLiIonCurveGivesTheChargeOfACellAndOfCellsInSeries() {
        let c = BatteryConfig()
        #expect(c.percent(millivolts: 4200) == 100 && c.percent(millivolts: 4300) == 100)
        #expect(c.percent(millivolts: 3800) == 40)
        #expect(c.percent(millivolts: 3700) == 13)
        #expect(c.percent(millivolts: 3270) == 0 && c.percent(millivolts: 3000) == 0)
        #expect(c.percent(millivolts: 7600, cells: 2) == 40)
    }

    @Test func bothGaugesAtOnceAreRefused() {
        let text = #"{"battery": {"powerSupply": "auto", "voltage": {"path": "/sys/class/hwmon/hwmon2/in1_input"}}}"#
        #expect(ConfigText.error(text)?.contains("battery.voltage") == true)
    }

    @Test func theEmptyLevelMustLieBelowTheLowOne() {
        let error = ConfigText.error(#"{"battery": {"lowPercent": 10, "emptyPercent": 10}}"#)
        #expect(error?.contains("battery.emptyPercent") == true, "\(error ?? "taken")")
    }

    @Test func aVoltageFileOutsideSysIsRefused() {
        let error = ConfigText.error(#"{"battery": {"voltage": {"path": "/tmp/volts"}}}"#)
        #expect(error?.contains("battery.voltage.path") == true, "\(error ?? "taken")")
    }

    @Test func aCurveOutOfOrderIsRefusedAtItsPoint() {
        let error = ConfigText.error(#"{"battery": {"curve": [[4200, 100], [4250, 50]]}}"#)
        #expect(error?.contains("battery.curve[1]") == true, "\(error ?? "taken")")
    }

    @Test func aPowerSupplyNameWithASlashIsRefused() {
        let error = ConfigText.error(#"{"battery": {"powerSupply": "../../etc"}}"#)
        #expect(error?.contains("battery.powerSupply") == true, "\(error ?? "taken")")
    }
}
