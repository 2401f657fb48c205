// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// A box on a battery (`battery` in config.json): where the charge is read, the two levels at which
/// the box warns ("Battery low") and turns itself off ("Battery almost empty, turning off"), and how
/// long a level must last before it counts. Absent: the box has no battery and reads nothing.
///
/// The gauge is one of two kinds, both read from the kernel's own drivers:
/// - `powerSupply`: a battery of the kernel's `power_supply` class (`/sys/class/power_supply/NAME`,
///   `type` Battery): its `capacity` (%), `status` (Charging, Discharging, Full, Not charging) and
///   `voltage_now`. Fuel gauges such as the Smart Battery System (`sbs-battery`), the TI bq27xxx and
///   the MAX17040/17048 register as one.
/// - `voltage`: a voltmeter on the cell only (an INA219 on a UPS HAT, through the hwmon `ina2xx`
///   driver's `in1_input` in mV, or the IIO `ina2xx-adc` driver's `in_voltage1_raw` times its
///   `in_voltage1_scale`), turned into a percentage by `curve`, a Li-ion discharge table per cell.
///
/// Thread: a value; any.
public struct BatteryConfig: Sendable, Equatable {
    /// Where the charge is read.
    public enum Gauge: Sendable, Equatable {
        /// A `power_supply` battery: this name, or the first of type Battery (nil).
        case powerSupply(String?)
        /// A voltage file: `path`'s number times `scale` is the battery's voltage in millivolts
        /// (nil `scale`: for an IIO `*_raw` file its `*_scale` file, else 1); `cells` in series.
        case voltage(path: String, scale: Double?, cells: Int)
    }

    /// One point of the discharge curve: a cell's voltage and the charge left at it.
    public struct CurvePoint: Sendable, Equatable {
        public var millivolts: Int
        public var percent: Int

        public init(millivolts: Int, percent: Int) {
            self.millivolts = millivolts
            self.percent = percent
        }
    }

    /// A single Li-ion/LiPo cell (3.7 V nominal, 4.2 V full) discharged at a low rate (about 0.2 C, a
    /// Pi playing music from a 2000–3000 mAh cell), the table hobbyist battery monitors use (e.g.
    /// the "LiPo voltage chart" of many UPS projects). Under a heavier load the voltage sags and the
    /// table reads low, which errs on the side of turning off early.
    public static let liIonCurve: [CurvePoint] = [
        (4200, 100), (4150, 95), (4110, 90), (4080, 85), (4020, 80), (3980, 75), (3950, 70), (3910, 65),
        (3870, 60), (3850, 55), (3840, 50), (3820, 45), (3800, 40), (3790, 35), (3770, 30), (3750, 25),
        (3730, 20), (3710, 15), (3690, 10), (3610, 5), (3270, 0),
    ].map { CurvePoint(millivolts: $0.0, percent: $0.1) }

    public var gauge = Gauge.powerSupply(nil)
    /// At or below this the box says "Battery low" (once per discharge).
    public var lowPercent = 20
    /// At or below this, while not charging, the box says so and turns itself off.
    public var emptyPercent = 5
    /// How often the gauge is read.
    public var pollSeconds = 10
    /// How long every reading must stay at or below a level before it counts: one absurd reading
    /// neither warns nor turns the box off.
    public var confirmSeconds = 30
    /// The discharge curve of one cell, highest voltage first (a `voltage` gauge only).
    public var curve = BatteryConfig.liIonCurve
    /// Whether the warnings are spoken even when `speech.mode` is off.
    public var speak = true

    public init() {}

    /// The charge at `millivolts` across `cells` cells in series, by the curve (linear between its
    /// points, 0 below the last, 100 above the first).
    public func percent(millivolts: Int, cells: Int = 1) -> Int {
        let cell = Double(millivolts) / Double(max(1, cells))
        guard let top = curve.first, let bottom = curve.last else { return 0 }
        if cell >= Double(top.millivolts) { return top.percent }
        if cell <= Double(bottom.millivolts) { return bottom.percent }
        for (upper, lower) in zip(curve, curve.dropFirst()) where cell >= Double(lower.millivolts) {
            let span = Double(upper.millivolts - lower.millivolts)
            let share = span > 0 ? (cell - Double(lower.millivolts)) / span : 1
            return Int((Double(lower.percent) + share * Double(upper.percent - lower.percent)).rounded())
        }
        return bottom.percent
    }

    // MARK: - parsing

    /// Reads the `battery` object; errors name the key (`battery.curve[2]`).
    public static func parse(_ r: JSONReader) throws(ConfigError) -> BatteryConfig {
        var c = BatteryConfig()
        if r.has("powerSupply") && r.has("voltage") {
            throw r.error("voltage", "expected one gauge: \"powerSupply\" or \"voltage\", not both")
        }
        if let name = try r.string("powerSupply") {
            guard !name.contains("/"), name != ".", name != ".." else {
                throw r.error("powerSupply", "expected \"auto\" or a name in /sys/class/power_supply, got \"\(name)\"")
            }
            c.gauge = .powerSupply(name == "auto" ? nil : name)
        }
        if let v = try r.object("voltage") {
            guard let path = try v.string("path") else { throw v.error("path", "expected the voltage file's path") }
            guard path.hasPrefix("/sys/") else {
                throw v.error(
                    "path", "expected a file under /sys (hwmon in*_input or IIO in_voltage*_raw), got \"\(path)\"")
            }
            let scale = try v.double("scale", range: 0.000_001...1_000_000)
            let cells = try v.int("cells", range: 1...8) ?? 1
            try v.finish()
            c.gauge = .voltage(path: path, scale: scale, cells: cells)
        }
        c.lowPercent = try r.int("lowPercent", range: 1...90) ?? c.lowPercent
        c.emptyPercent = try r.int("emptyPercent", range: 0...50) ?? c.emptyPercent
        guard c.emptyPercent < c.lowPercent else {
            throw r.error("emptyPercent", "expected less than lowPercent (\(c.lowPercent)), got \(c.emptyPercent)")
        }
        c.pollSeconds = try r.int("pollSeconds", range: 1...600) ?? c.pollSeconds
        c.confirmSeconds = try r.int("confirmSeconds", range: 0...600) ?? c.confirmSeconds
        if let points = try r.array("curve", maxCount: 64) {
            var curve: [CurvePoint] = []
            for point in points {
                guard let pair = point.value.array, pair.count == 2, let mv = pair[0].int, let pc = pair[1].int,
                    (1000...5000).contains(mv), (0...100).contains(pc)
                else {
                    throw ConfigError(
                        file: r.file, path: point.path,
                        message:
                            "expected [millivolts 1000…5000, percent 0…100] for one cell, got \(JSONReader.show(point.value))"
                    )
                }
                if let last = curve.last, !(mv < last.millivolts && pc <= last.percent) {
                    throw ConfigError(
                        file: r.file, path: point.path,
                        message:
                            "expected the points highest voltage first, each lower in voltage and not higher in percent"
                    )
                }
                curve.append(CurvePoint(millivolts: mv, percent: pc))
            }
            guard curve.count >= 2 else { throw r.error("curve", "expected at least two points") }
            c.curve = curve
        }
        c.speak = try r.bool("speak") ?? c.speak
        try r.finish()
        return c
    }

    /// The settings as `check-config` prints them.
    public func json() -> JSONValue {
        let gauge: (String, JSONValue)
        switch self.gauge {
        case .powerSupply(let name): gauge = ("powerSupply", .string(name ?? "auto"))
        case .voltage(let path, let scale, let cells):
            gauge = (
                "voltage",
                .object([
                    ("path", .string(path)),
                    ("scale", scale.map { .number($0) } ?? .string("from the *_scale file, else 1")),
                    ("cells", .number(Double(cells))),
                ])
            )
        }
        return .object([
            gauge, ("lowPercent", .number(Double(lowPercent))), ("emptyPercent", .number(Double(emptyPercent))),
            ("pollSeconds", .number(Double(pollSeconds))), ("confirmSeconds", .number(Double(confirmSeconds))),
            ("curve", .array(curve.map { .array([.number(Double($0.millivolts)), .number(Double($0.percent))]) })),
            ("speak", .bool(speak)),
        ])
    }
}
