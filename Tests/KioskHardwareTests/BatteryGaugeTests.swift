// SPDX-License-Identifier: GPL-3.0-or-later
import KioskHardware
import KioskSystem
import KioskTestSupport
import Testing

/// `BatteryGauge` on a fake sysfs: what a power_supply battery and a voltage file read as, and
/// every bad value a problem naming its file, never a number.
struct BatteryGaugeTests {
    final class FakeSysfs {
        let dir: TemporaryDirectory
        init() throws { dir = try TemporaryDirectory("kiosk-gauge") }
        deinit { dir.remove() }
        func write(_ path: String, _ text: String) throws { try dir.write(String(path.dropFirst()), text) }

        /// A battery as sbs-battery registers it.
        func battery(_ name: String, capacity: String = "57\n", status: String = "Discharging\n") throws {
            let d = "/sys/class/power_supply/\(name)"
            try write("\(d)/type", "Battery\n")
            try write("\(d)/present", "1\n")
            try write("\(d)/capacity", capacity)
            try write("\(d)/status", status)
            try write("\(d)/voltage_now", "3712000\n")
        }

        func read(_ source: BatteryGauge.Source) -> Result<BatterySample, GaugeProblem> {
            BatteryGauge(source, root: dir.path).read()
        }
    }

    @Test func aPowerSupplyBatteryGivesItsCapacityStatusAndVoltage() throws {
        let sys = try FakeSysfs()
        try sys.battery("sbs-1-000b")
        let sample = try sys.read(.powerSupply(nil)).get()
        #expect(sample.percent == 57 && sample.status == .discharging && sample.millivolts == 3712)
        #expect(sample.gauge == "/sys/class/power_supply/sbs-1-000b")
    }

    @Test func aDevicesOwnBatteryIsNotTheBoxs() throws {
        let sys = try FakeSysfs()
        try sys.battery("hid-mouse-battery", capacity: "3\n")
        try sys.write("/sys/class/power_supply/hid-mouse-battery/scope", "Device\n")
        try sys.write("/sys/class/power_supply/AC/type", "Mains\n")
        #expect(sys.read(.powerSupply(nil)) == .failure(.noBattery("/sys/class/power_supply")))
        try sys.battery("sbs-1-000b")
        #expect(try sys.read(.powerSupply(nil)).get().percent == 57)
    }

    @Test func aCapacityThatIsNotANumberIsGarbage() throws {
        let sys = try FakeSysfs()
        try sys.battery("b", capacity: "\u{7f}ELF\n")
        #expect(sys.read(.powerSupply("b")) == .failure(.garbage("/sys/class/power_supply/b/capacity", "\u{7f}ELF")))
    }

    @Test func aCapacityOver100IsOutOfRange() throws {
        let sys = try FakeSysfs()
        try sys.battery("b", capacity: "65535\n")
        #expect(
            sys.read(.powerSupply("b")) == .failure(.outOfRange("/sys/class/power_supply/b/capacity", "65535", "0…100"))
        )
    }

    @Test func aHugeFileIsCutAndRefusedNotRead() throws {
        let sys = try FakeSysfs()
        try sys.battery("b", capacity: String(repeating: "9", count: 100_000))
        guard case .failure(.garbage) = sys.read(.powerSupply("b")) else {
            Issue.record("a 100 kB capacity was taken")
            return
        }
    }

    @Test func aGaugeThatWentAwayIsMissing() throws {
        let sys = try FakeSysfs()
        #expect(sys.read(.powerSupply("sbs-1-000b")) == .failure(.missing("/sys/class/power_supply/sbs-1-000b")))
    }

    @Test func aBatteryTheDriverSeesNoMoreIsNotPresent() throws {
        let sys = try FakeSysfs()
        try sys.battery("b")
        try sys.write("/sys/class/power_supply/b/present", "0\n")
        #expect(sys.read(.powerSupply("b")) == .failure(.notPresent("/sys/class/power_supply/b")))
    }

    @Test func anUnknownStatusIsUnknownNotAnError() throws {
        let sys = try FakeSysfs()
        try sys.battery("b", status: "Exploding\n")
        #expect(try sys.read(.powerSupply("b")).get().status == .unknown)
    }

    @Test func anIIORawVoltageIsScaledByItsScaleFile() throws {
        let sys = try FakeSysfs()
        let raw = "/sys/bus/iio/devices/iio:device0/in_voltage1_raw"
        try sys.write(raw, "2960\n")
        try sys.write("/sys/bus/iio/devices/iio:device0/in_voltage1_scale", "4.000000000\n")
        #expect(try sys.read(.voltage(path: raw, scale: nil)).get().millivolts == 11840)
    }

    @Test func aHwmonVoltageIsMillivoltsAsRead() throws {
        let sys = try FakeSysfs()
        try sys.write("/sys/class/hwmon/hwmon2/in1_input", "7412\n")
        #expect(try sys.read(.voltage(path: "/sys/class/hwmon/hwmon2/in1_input", scale: nil)).get().millivolts == 7412)
    }

    @Test func aNegativeVoltageIsOutOfRange() throws {
        let sys = try FakeSysfs()
        try sys.write("/sys/class/hwmon/hwmon2/in1_input", "-5\n")
        guard case .failure(.outOfRange) = sys.read(.voltage(path: "/sys/class/hwmon/hwmon2/in1_input", scale: 1))
        else {
            Issue.record("a negative voltage was taken")
            return
        }
    }

    @Test func theExternalPowerStatesAreChargingFullAndNotCharging() {
        #expect(ChargeStatus.allCases.filter(\.onExternalPower) == [.charging, .full, .notCharging])
    }
}
