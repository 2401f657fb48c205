// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskSystem

/// A GPIO chip as found in /dev: its path and what it says about itself.
///
/// Thread: a value; any thread (`find` and `info` open the chip and close it again).
public struct GPIOChip: Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let name: String
    public let label: String
    public let lineCount: Int

    public init(path: String, name: String, label: String, lineCount: Int) {
        self.path = path
        self.name = name
        self.label = label
        self.lineCount = lineCount
    }

    public var description: String { "\(name) [\(label)]" }

    /// libgpiod's version and API ("libgpiod 1.6.3 (API v1)").
    public static var libraryDescription: String {
        "libgpiod \(String(cString: kiosk_gpio_library_version())) (API v\(kiosk_gpio_api_version()))"
    }

    /// Reads a chip's name, label and line count.
    public static func info(path: String) throws(Errno) -> GPIOChip {
        var info = kiosk_gpio_chip_info()
        guard kiosk_gpio_chip_info(path, &info) == 0 else { throw Errno.current.with("open GPIO chip \(path)") }
        let name = withUnsafeBytes(of: info.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let label = withUnsafeBytes(of: info.label) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return GPIOChip(path: path, name: name, label: label, lineCount: Int(info.num_lines))
    }

    /// The /dev/gpiochipN paths present, in number order (none when `directory` cannot be read).
    public static func devicePaths(in directory: String = "/dev") -> [String] {
        guard let listing = try? Syscalls.readDirectory(directory) else { return [] }
        let found = listing.entries.compactMap { entry -> (Int, String)? in
            guard entry.name.hasPrefix("gpiochip"), let n = Int(entry.name.dropFirst(8)) else { return nil }
            return (n, "\(directory)/\(entry.name)")
        }
        return found.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Finds the first chip of `specs` that exists. A spec is a path ("/dev/gpiochip0"), a name
    /// ("gpiochip0"), a number ("0") or a label ("pinctrl-bcm2711"). The error lists why each
    /// spec failed and which chips there are.
    public static func find(_ specs: [String], in directory: String = "/dev") -> Result<GPIOChip, HardwareError> {
        var reasons: [String] = []
        var scanned: [GPIOChip]?
        var scanProblems: [String] = []
        func scan() -> [GPIOChip] {
            if let scanned { return scanned }
            var chips: [GPIOChip] = []
            for path in devicePaths(in: directory) {
                do throws(Errno) {
                    chips.append(try info(path: path))
                } catch {
                    scanProblems.append(describe(error, path: path))
                }
            }
            scanned = chips
            return chips
        }
        for spec in specs {
            var path: String?
            if spec.hasPrefix("/") {
                path = spec
            } else if Int(spec) != nil {
                path = "\(directory)/gpiochip\(spec)"
            } else if spec.hasPrefix("gpiochip"), Int(spec.dropFirst(8)) != nil {
                path = "\(directory)/\(spec)"
            }
            if let path {
                do throws(Errno) {
                    return .success(try info(path: path))
                } catch {
                    reasons.append("\(spec): \(describe(error, path: path))")
                }
                continue
            }
            if let chip = scan().first(where: { $0.label == spec }) { return .success(chip) }
            reasons.append("\(spec): no chip with this label")
        }
        let chips = scan()
        var message = "no GPIO chip found (\(reasons.joined(separator: "; ")))"
        if chips.isEmpty && scanProblems.isEmpty {
            message += "; there is no \(directory)/gpiochip* on this machine"
        } else {
            let list = chips.map { "\($0.path) \($0.description), \($0.lineCount) lines" }
            message += "; chips here: " + (list + scanProblems).joined(separator: "; ")
        }
        return .failure(HardwareError(message: message))
    }

    static func describe(_ error: Errno, path: String) -> String {
        switch error.rawValue {
        case ENOENT: return "\(path) does not exist"
        case EACCES, EPERM: return "permission denied opening \(path) (the user needs the gpio group, or root)"
        case ENODEV, ENOTTY: return "\(path) is not a GPIO chip"
        default: return "\(path): \(error.message)"
        }
    }
}

extension GPIOChip {
    /// Who holds line `offset`: nil when it is free, the kernel's consumer name otherwise ("" when the
    /// kernel names none). The chip is opened and closed again.
    public func lineUser(_ offset: Int) -> Result<String?, HardwareError> {
        var used: Int32 = 0
        var buffer = [CChar](repeating: 0, count: 64)
        guard kiosk_gpio_line_user(path, UInt32(offset), &used, &buffer, buffer.count) == 0 else {
            return .failure(HardwareError(message: "\(path): \(Errno.current.message)"))
        }
        guard used != 0 else { return .success(nil) }
        return .success(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }
}
