// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskConfig
import KioskSystem

/// Check 8: under-voltage and throttling. Two sources, both used when present:
/// - the kernel's `rpi_volt` hwmon device (drivers/hwmon/raspberrypi-hwmon.c in raspberrypi/linux):
///   every 2 s it asks the firmware's GET_THROTTLED with 0xffff, which returns and clears the
///   sticky "has occurred" bits, and raises `in0_lcrit_alarm` from bit 16: under-voltage in the
///   last 2 s, not "now" and not "since boot" (Documentation/hwmon/raspberrypi-hwmon.rst);
/// - the firmware's flags through `vcgencmd get_throttled` (`throttled=0x50005`): bit 0 under-voltage
///   now, 1 ARM frequency capped, 2 throttled, 3 soft temperature limit; bits 16–19 the same "has
///   occurred" (raspberrypi.com documentation, os.html#get_throttled), which rpi_volt's poll clears
///   every 2 s: with it loaded they too mean "in the last 2 s", not "since boot".
///
/// Thread: any (reads files, runs vcgencmd and waits for it).
public enum PowerCheck {
    /// The hwmon directory of `rpi_volt`, nil when there is none.
    public static func hwmon(_ root: SystemRoot) -> String? {
        root.entries("/sys/class/hwmon").map { "/sys/class/hwmon/\($0)" }.first {
            root.value("\($0)/name") == "rpi_volt"
        }
    }

    /// What the throttled flags say, worst first; empty when all is well.
    public static func describe(throttled: UInt32) -> (now: [String], before: [String]) {
        let names = ["under-voltage", "ARM frequency capped", "throttled", "soft temperature limit"]
        let now = names.indices.filter { throttled & (1 << UInt32($0)) != 0 }.map { names[$0] }
        let before = names.indices.filter { throttled & (1 << UInt32($0 + 16)) != 0 }.map { names[$0] }
        return (now, before)
    }

    /// Parses `throttled=0x50005`.
    static func parse(_ output: String) -> UInt32? {
        guard let equals = output.firstIndex(of: "=") else { return nil }
        var value = String(output[output.index(after: equals)...]).trimmingWhitespace()
        if value.hasPrefix("0x") { value = String(value.dropFirst(2)) }
        return UInt32(value, radix: 16)
    }

    public static func lines(_ context: DoctorContext) -> [DoctorLine] {
        let root = context.root
        var lines: [DoctorLine] = []
        let fix = "use the official power supply (5.1 V 3 A for a Pi 4, 5 V 5 A for a Pi 5) and a short, thick cable"
        let tree = DeviceTree(prefix: root.prefix)
        if tree.underVoltageUnmeasurable {
            // No detection hardware: the alarm and the flags stay 0 whatever the supply does.
            return [
                .info(
                    "power",
                    "under-voltage is not measurable on this board (\(tree.model ?? "")): the Pi Zero (W) and the Compute Modules have no detection (raspberrypi/linux#2367)",
                    fix: fix)
            ]
        }
        if let dir = hwmon(root) {
            switch root.value("\(dir)/in0_lcrit_alarm") {
            case "0":
                lines.append(.pass("power", "no under-voltage in the last 2 s (rpi_volt \(dir)/in0_lcrit_alarm = 0)"))
            case "1":
                lines.append(
                    .fail("power", "under-voltage in the last 2 s (rpi_volt \(dir)/in0_lcrit_alarm = 1)", fix: fix))
            case let other:
                lines.append(.info("power", "rpi_volt found but in0_lcrit_alarm reads \(other ?? "nothing")"))
            }
        }
        if let vcgencmd = ["/usr/bin/vcgencmd", "/opt/vc/bin/vcgencmd"].first(where: { root.exists($0) }) {
            if let output = run(root.path(vcgencmd), ["get_throttled"]), let flags = parse(output) {
                let (now, before) = describe(throttled: flags)
                let hex = "0x" + String(flags, radix: 16)
                if !now.isEmpty {
                    lines.append(
                        .fail("power", "vcgencmd get_throttled = \(hex): now \(now.joined(separator: ", "))", fix: fix))
                } else if !before.isEmpty {
                    lines.append(
                        .info(
                            "power",
                            "vcgencmd get_throttled = \(hex): recently \(before.joined(separator: ", ")) (not now)",
                            fix: fix))
                } else {
                    lines.append(
                        .pass(
                            "power", "vcgencmd get_throttled = \(hex): no under-voltage or throttling now or recently"))
                }
            } else {
                lines.append(.info("power", "\(vcgencmd) get_throttled gave no answer (needs the video group)"))
            }
        }
        if lines.isEmpty {
            lines.append(
                .info(
                    "power",
                    "no rpi_volt hwmon (/sys/class/hwmon/*/name) and no vcgencmd: cannot tell (not a Raspberry Pi?)"))
        }
        return lines
    }

    /// Runs a program and returns its standard output, nil when it fails or takes over 5 s.
    static func run(_ program: String, _ arguments: [String]) -> String? {
        var template = Array("/tmp/kiosk-doctor-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { return nil }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer {
            close(fd)
            unlink(path)
        }
        guard
            let pid = try? Syscalls.spawn(
                program, arguments: arguments, stdin: .null(writing: false), stdout: .duplicate(fd),
                stderr: .null(writing: true))
        else { return nil }
        var status: Int32 = 0
        let deadline = Syscalls.monotonicNanoseconds() + 5_000_000_000
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Syscalls.monotonicNanoseconds() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return nil
            }
            Syscalls.sleep(nanoseconds: 10_000_000)
        }
        guard status == 0, let bytes = try? Syscalls.readFile(path, limit: 4096) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
