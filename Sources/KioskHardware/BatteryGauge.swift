// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// A battery's charge as the kernel's drivers report it, read from sysfs: a `power_supply` battery
/// (`/sys/class/power_supply/NAME`: `capacity` in %, `status`, `voltage_now` in µV; the drivers of
/// fuel gauges such as `sbs-battery`, `bq27xxx_battery`, `max17040_battery` register one), or a
/// voltage file alone (hwmon `in*_input` in mV, or IIO `in_voltage*_raw` times `in_voltage*_scale`,
/// as the `ina2xx` and `ina2xx-adc` drivers give an INA219's bus voltage).
///
/// Every file is read whole (at most 64 bytes) and checked: a value that is not a number, out of
/// its range, or a file that is missing or fails to read gives a `GaugeProblem` naming the file,
/// never a number made up. Reading a gauge's file makes its driver talk to the chip over I2C
/// (milliseconds, up to the adapter's timeout when the chip is gone), so the player reads it on a
/// worker thread, never on its loop.
///
/// Thread: any (a value; `read` does blocking file reads).
public struct BatteryGauge: Sendable, Equatable {
    /// What is read.
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        /// The `power_supply` battery of this name, or the first of type Battery that is not a
        /// device's own (nil: `scope` Device is a wireless mouse's or headset's battery).
        case powerSupply(String?)
        /// A voltage file; its number times `scale` is millivolts (nil: an IIO `*_raw` file's
        /// `*_scale`, else 1).
        case voltage(path: String, scale: Double?)

        public var description: String {
            switch self {
            case .powerSupply(let name?): "power_supply \(name)"
            case .powerSupply(nil): "the first power_supply battery"
            case .voltage(let path, let scale?): "\(path) × \(scale) mV"
            case .voltage(let path, nil): path.hasSuffix("_raw") ? "\(path) × its _scale" : "\(path) (mV)"
            }
        }
    }

    public let source: Source
    /// Prepended to every absolute path (a test's fake sysfs; "" for the real one).
    public let root: String

    public init(_ source: Source, root: String = "") {
        self.source = source
        self.root = root
    }

    /// Where `power_supply` devices are listed.
    public static let powerSupplyClass = "/sys/class/power_supply"

    /// Reads the gauge once.
    public func read() -> Result<BatterySample, GaugeProblem> {
        do throws(GaugeProblem) {
            switch source {
            case .powerSupply(let name): return .success(try readPowerSupply(name))
            case .voltage(let path, let scale): return .success(try readVoltage(path, scale: scale))
            }
        } catch {
            return .failure(error)
        }
    }

    /// The `power_supply` batteries of the system (names), in sysfs order; a device's own battery
    /// (`scope` Device: a wireless mouse, keyboard or headset) left out.
    public func batteries() -> [String] {
        let listing = (try? Syscalls.readDirectory(root + Self.powerSupplyClass))?.entries.map(\.name) ?? []
        return listing.filter { $0 != "." && $0 != ".." }.sorted().filter { name in
            let dir = "\(Self.powerSupplyClass)/\(name)"
            return text("\(dir)/type") == "Battery" && text("\(dir)/scope") != "Device"
        }
    }

    private func readPowerSupply(_ wanted: String?) throws(GaugeProblem) -> BatterySample {
        let name: String
        if let wanted {
            name = wanted
        } else {
            guard let first = batteries().first else { throw .noBattery(Self.powerSupplyClass) }
            name = first
        }
        let dir = "\(Self.powerSupplyClass)/\(name)"
        guard Syscalls.exists(root + dir) else { throw .missing(dir) }
        if let present = text("\(dir)/present"), present == "0" { throw .notPresent(dir) }
        let status = text("\(dir)/status").map { ChargeStatus(rawValue: $0) ?? .unknown } ?? .unknown
        var sample = BatterySample(gauge: dir, status: status)
        if Syscalls.exists(root + "\(dir)/capacity") {
            sample.percent = try integer("\(dir)/capacity", range: 0...100)
        }
        if Syscalls.exists(root + "\(dir)/voltage_now") {
            // µV; a cell or a pack up to 60 V. A gauge that has a capacity may fail this one alone.
            let microvolts = try? integer("\(dir)/voltage_now", range: 1...60_000_000)
            sample.millivolts = microvolts.map { ($0 + 500) / 1000 }
        }
        guard sample.percent != nil || sample.millivolts != nil else {
            throw .missing("\(dir)/capacity")
        }
        return sample
    }

    private func readVoltage(_ path: String, scale: Double?) throws(GaugeProblem) -> BatterySample {
        guard Syscalls.exists(root + path) else { throw .missing(path) }
        let raw = try integer(path, range: -1_000_000_000...1_000_000_000)
        var factor = 1.0
        if let scale {
            factor = scale
        } else if path.hasSuffix("_raw") {
            let scalePath = String(path.dropLast(4)) + "_scale"
            guard let text = text(scalePath) else { throw .missing(scalePath) }
            guard let value = Double(text), value.isFinite, value > 0 else { throw .garbage(scalePath, text) }
            factor = value
        }
        let millivolts = Double(raw) * factor
        guard millivolts.isFinite, millivolts >= 1, millivolts <= 60_000 else {
            throw .outOfRange(path, "\(raw) × \(factor) = \(millivolts) mV", "1…60000 mV")
        }
        return BatterySample(gauge: path, millivolts: Int(millivolts.rounded()), status: .unknown)
    }

    /// The file's first line, trimmed; nil when it cannot be read.
    private func text(_ path: String) -> String? {
        guard let bytes = try? Syscalls.readFile(root + path, limit: 64) else { return nil }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map {
            $0.trimmingWhitespace()
        } ?? ""
    }

    /// The file's integer within `range`.
    private func integer(_ path: String, range: ClosedRange<Int>) throws(GaugeProblem) -> Int {
        let bytes: [UInt8]
        do {
            bytes = try Syscalls.readFile(root + path, limit: 64)
        } catch {
            if error == .noEntry { throw .missing(path) }
            // A sysfs value is a few bytes: more is no value at all.
            if error.rawValue == EFBIG { throw .garbage(path, "more than 64 bytes") }
            throw .unreadable(path, error.description)
        }
        let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
        guard let value = Int(text) else { throw .garbage(path, text) }
        guard range.contains(value) else {
            throw .outOfRange(path, text, "\(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }
}

/// The `status` of a `power_supply` battery (Documentation/ABI/testing/sysfs-class-power).
/// Thread: any (a value).
public enum ChargeStatus: String, Sendable, Equatable, CaseIterable {
    case charging = "Charging"
    case discharging = "Discharging"
    case full = "Full"
    /// A charger is there but does not charge (full, too warm, a UPS's hold).
    case notCharging = "Not charging"
    case unknown = "Unknown"

    /// Whether the box runs from something other than the battery: charging, full or held.
    public var onExternalPower: Bool { self == .charging || self == .full || self == .notCharging }
}

/// One reading of a gauge. Thread: any (a value).
public struct BatterySample: Sendable, Equatable {
    /// What was read: the power_supply's directory or the voltage file.
    public var gauge: String
    /// The charge the driver reports, when it reports one.
    public var percent: Int?
    /// The battery's voltage, when known.
    public var millivolts: Int?
    public var status: ChargeStatus

    public init(gauge: String, percent: Int? = nil, millivolts: Int? = nil, status: ChargeStatus) {
        self.gauge = gauge
        self.percent = percent
        self.millivolts = millivolts
        self.status = status
    }
}

/// Why a gauge gave no reading. Thread: any (a value).
public enum GaugeProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// No `power_supply` of type Battery (other than a device's own).
    case noBattery(String)
    /// The file or directory is not there (the driver is not bound, or the chip went away).
    case missing(String)
    /// The driver says no battery is in place (`present` 0).
    case notPresent(String)
    /// Reading the file failed (the driver's I2C transfer, typically).
    case unreadable(String, String)
    /// Not a number.
    case garbage(String, String)
    /// A number outside what a battery can be.
    case outOfRange(String, String, String)

    public var description: String {
        switch self {
        case .noBattery(let dir): "no battery in \(dir) (none of type Battery but a device's own)"
        case .missing(let path): "\(path) is missing (driver not bound, or the gauge is gone)"
        case .notPresent(let dir): "\(dir)/present is 0: the driver sees no battery"
        case .unreadable(let path, let why): "\(path) cannot be read: \(why)"
        case .garbage(let path, let text): "\(path) reads \"\(text.prefix(40))\", not a number"
        case .outOfRange(let path, let text, let range): "\(path) reads \(text), outside \(range)"
        }
    }
}
