// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskHardware
import KioskSystem

/// A box on a battery (`battery` in config.json): the gauge the config names, read once through
/// the kernel's driver, and what the player makes of it (the charge, on the battery or on a
/// charger, the two levels). The running player's watch (`BatteryWatch` in KioskApp) reads the
/// gauge and interprets it with the same code, `reading(_:_:)`.
///
/// Thread: any (reads sysfs files, which talk to the gauge over I2C).
public enum BatteryCheck {
    /// What one reading means for the player.
    public struct Readout: Sendable, Equatable {
        /// The power_supply directory or the voltage file read.
        public var gauge: String
        public var percent: Int
        public var onExternalPower: Bool
        public var millivolts: Int?
        /// The driver's status (power_supply) or "no status" (a voltage alone).
        public var status: String
    }

    /// The gauge of `config` on `root`.
    public static func gauge(_ config: BatteryConfig, root: SystemRoot = .live) -> BatteryGauge {
        switch config.gauge {
        case .powerSupply(let name): BatteryGauge(.powerSupply(name), root: root.prefix)
        case .voltage(let path, let scale, _): BatteryGauge(.voltage(path: path, scale: scale), root: root.prefix)
        }
    }

    /// Reads the gauge once and interprets it: the charge from the driver's `capacity`, else from
    /// the voltage by the config's curve. A voltage that no battery of the configured cells can
    /// have (below half an empty cell's, above 1.25 times a full one's: a loose sense wire, a wrong
    /// `scale` or `cells`) is a failure, not a level.
    public static func reading(_ gauge: BatteryGauge, _ config: BatteryConfig) -> Result<Readout, GaugeProblem> {
        let sample: BatterySample
        switch gauge.read() {
        case .failure(let problem): return .failure(problem)
        case .success(let read): sample = read
        }
        var cells = 1
        if case .voltage(_, _, let count) = config.gauge { cells = count }
        let percent: Int
        if let reported = sample.percent {
            percent = reported
        } else if let millivolts = sample.millivolts {
            let empty = (config.curve.last?.millivolts ?? 3000) * cells
            let full = (config.curve.first?.millivolts ?? 4200) * cells
            guard millivolts * 2 >= empty, millivolts * 4 <= full * 5 else {
                return .failure(
                    .outOfRange(
                        sample.gauge, "\(millivolts) mV",
                        "\(empty / 2)…\(full * 5 / 4) mV for \(cells) cell\(cells == 1 ? "" : "s")"))
            }
            percent = config.percent(millivolts: millivolts, cells: cells)
        } else {
            return .failure(.missing("\(sample.gauge)/capacity"))
        }
        let status: String
        if case .voltage = config.gauge {
            status = "no status (a voltage alone)"
        } else {
            status = sample.status.rawValue
        }
        return .success(
            Readout(
                gauge: sample.gauge, percent: percent, onExternalPower: sample.status.onExternalPower,
                millivolts: sample.millivolts, status: status))
    }

    /// 3712 → "3.712".
    static func volts(_ millivolts: Int) -> String {
        let rest = String(millivolts % 1000)
        return "\(millivolts / 1000).\(String(repeating: "0", count: 3 - rest.count))\(rest)"
    }

    public static func lines(_ context: DoctorContext) -> [DoctorLine] {
        guard let config = context.resolved.config.battery else { return [] }
        let gauge = gauge(config, root: context.root)
        let levels =
            "low at \(config.lowPercent)%, turns off at \(config.emptyPercent)% (each held \(config.confirmSeconds) s)"
        switch reading(gauge, config) {
        case .success(let r):
            let voltage = r.millivolts.map { ", \(Self.volts($0)) V" } ?? ""
            var text = "\(r.gauge): \(r.percent)%\(voltage), \(r.status); \(levels)"
            if case .voltage = config.gauge { text += "; the percentage from the voltage by the discharge curve" }
            if !r.onExternalPower && r.percent <= config.emptyPercent {
                return [
                    .fail(
                        "battery", text, fix: "charge the battery: the player turns the box off at this level")
                ]
            }
            return [.pass("battery", text)]
        case .failure(let problem):
            var found = ""
            if case .powerSupply = config.gauge {
                let names = gauge.batteries()
                found =
                    names.isEmpty
                    ? " (no battery in /sys/class/power_supply)" : " (batteries: \(names.joined(separator: ", ")))"
            }
            return [
                .fail(
                    "battery", "\(problem)\(found); the player cannot warn or turn off in time",
                    fix:
                        "load the gauge's driver (e.g. dtoverlay=... in config.txt, or echo DRIVER 0xADDR > /sys/bus/i2c/devices/i2c-N/new_device) and check battery in config.json (docs/configuration.md)"
                )
            ]
        }
    }
}
