// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import Synchronization

/// A gpio-sim chip made through configfs for one test, removed afterwards (KioskHardwareTests
/// drives its output lines, KioskInputTests its inputs).
///
/// Thread: the test's.
public final class SimulatedChip {
    public static let configfs = "/sys/kernel/config/gpio-sim"
    /// Chips made by this process so far: suites run in parallel, so each chip needs its own name.
    private static let made = Atomic<Int>(0)
    public let directory: String
    /// The chip's label, which `GPIOChip.find` finds it by.
    public let label: String
    /// The sysfs directory of the lines (`sim_gpioN/value`, `sim_gpioN/pull`).
    public private(set) var lineDirectory = ""

    /// Why no chip can be made here (nil: it can); modprobes gpio-sim when it may.
    public static var unavailableReason: String? {
        if Syscalls.exists(configfs) { return nil }
        if let modprobe = ["/usr/sbin/modprobe", "/sbin/modprobe"].first(where: { Syscalls.exists($0) }) {
            _ = run(modprobe, ["-q", "gpio-sim"], timeoutSeconds: 20)
        }
        return Syscalls.exists(configfs)
            ? nil
            : "no gpio-sim here (\(configfs) is missing: the kernel has no gpio-sim module or no configfs); the VM system test runs this"
    }

    public init(lines: Int) throws {
        // Unique per chip, not only per process: two suites' chips of one name collide in configfs.
        label = "kiosk-test-\(getpid())-\(Self.made.wrappingAdd(1, ordering: .relaxed).newValue)"
        directory = "\(Self.configfs)/\(label)"
        try Syscalls.mkdir(directory)
        try Syscalls.mkdir("\(directory)/bank0")
        try write("\(directory)/bank0/num_lines", "\(lines)")
        try write("\(directory)/bank0/label", label)
        try write("\(directory)/live", "1")
        let device = try read("\(directory)/dev_name")
        let chip = try read("\(directory)/bank0/chip_name")
        lineDirectory = "/sys/devices/platform/\(device)/\(chip)"
    }

    deinit {
        try? write("\(directory)/live", "0")
        _ = rmdir("\(directory)/bank0")
        _ = rmdir(directory)
    }

    /// Moves the external pull of `line`: what a button or an encoder contact does.
    public func pull(_ line: Int, up: Bool) throws {
        try write("\(lineDirectory)/sim_gpio\(line)/pull", up ? "pull-up" : "pull-down")
    }

    private func write(_ path: String, _ text: String) throws { try writeSysfsText(path, text) }

    private func read(_ path: String) throws -> String { try readSysfsText(path) }

    /// The level a line drives, as the simulator sees it ("0" or "1").
    public func value(_ line: Int) throws -> String {
        try read("\(lineDirectory)/sim_gpio\(line)/value")
    }
}

/// Writes `text` to a sysfs or configfs attribute (one write, no newline added).
public func writeSysfsText(_ path: String, _ text: String) throws {
    let fd = try FileDescriptor.open(path, O_WRONLY)
    try fd.writeAll(Array(text.utf8))
}

/// The first line of a sysfs or configfs attribute.
public func readSysfsText(_ path: String) throws -> String {
    String(decoding: try Syscalls.readFile(path, limit: 4096), as: UTF8.self).split(separator: "\n").first.map(
        String.init) ?? ""
}
