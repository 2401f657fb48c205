import CKioskShims
import Glibc
import KioskSystem

/// A GPIO chip as found in /dev: its path and what it says about itself.
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

    /// The /dev/gpiochipN paths present, in number order.
    public static func devicePaths(in directory: String = "/dev") -> [String] {
        var found: [(Int, String)] = []
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasPrefix("gpiochip"), let n = Int(name.dropFirst(8)) { found.append((n, "\(directory)/\(name)")) }
        }
        return found.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Finds the first chip of `specs` that exists. A spec is a path ("/dev/gpiochip0"), a name
    /// ("gpiochip0"), a number ("0") or a label ("pinctrl-bcm2711"). The error lists why each
    /// spec failed and which chips there are.
    public static func find(_ specs: [String], in directory: String = "/dev") -> Result<GPIOChip, InputError> {
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
        return .failure(InputError(message: message))
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

/// A problem with an input device, worded for the person wiring the box: names the chip, the line
/// and its use, or the evdev device.
public struct InputError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    /// The error for a line request that just failed: `errno` now, and for EBUSY the line's
    /// current consumer as the kernel reports it.
    static func requestFailed(chip: GPIOChip, line: Int, use: String) -> InputError {
        let error = Errno.current
        var consumer: String?
        if error.rawValue == EBUSY {
            var used: Int32 = 0
            var buffer = [CChar](repeating: 0, count: 64)
            if kiosk_gpio_line_user(chip.path, UInt32(line), &used, &buffer, buffer.count) == 0 {
                consumer = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            }
        }
        return request(error, chip: chip, line: line, use: use, consumer: consumer)
    }

    /// The message for a failed line request (`errno` from the request).
    public static func request(
        _ errno: Errno, chip: GPIOChip, line: Int, use: String, consumer: String? = nil
    ) -> InputError {
        let what = "line \(line) (\(use)) on \(chip.path) \(chip.description)"
        switch errno.rawValue {
        case EBUSY:
            let holder = consumer.map { $0.isEmpty ? " by the kernel or another program" : " by \"\($0)\"" } ?? ""
            return InputError(
                message:
                    "\(what) is busy: already in use\(holder) (a device-tree overlay or another program holds it)")
        case EACCES, EPERM:
            return InputError(message: "\(what): permission denied (the user needs the gpio group, or root)")
        case EINVAL where line >= chip.lineCount:
            return InputError(
                message: "\(what) does not exist: the chip has \(chip.lineCount) lines (0…\(chip.lineCount - 1))")
        case EINVAL, EOPNOTSUPP:
            return InputError(
                message:
                    "\(what): the kernel refused the request (\(errno.message)); bias or edge events may be unsupported"
            )
        case ENOENT, ENODEV, ENXIO:
            return InputError(message: "\(what): the chip has gone (\(errno.message))")
        default:
            return InputError(message: "\(what): \(errno.message)")
        }
    }
}

/// One requested GPIO input line with edge events (libgpiod through CKioskShims' kiosk_gpio).
/// Releases the line when it ends.
///
/// Thread: the event-loop thread.
final class GPIOLine {
    let chip: GPIOChip
    let offset: Int
    let use: String
    private let handle: OpaquePointer

    /// Requests `offset` as an input with both-edge events, consumer "kiosk-player".
    init(chip: GPIOChip, offset: Int, bias: Bias, activeLow: Bool, use: String) throws(InputError) {
        self.chip = chip
        self.offset = offset
        self.use = use
        let biasValue: Int32 =
            switch bias {
            case .asIs: Int32(KIOSK_GPIO_BIAS_AS_IS.rawValue)
            case .disable: Int32(KIOSK_GPIO_BIAS_DISABLE.rawValue)
            case .pullUp: Int32(KIOSK_GPIO_BIAS_PULL_UP.rawValue)
            case .pullDown: Int32(KIOSK_GPIO_BIAS_PULL_DOWN.rawValue)
            }
        guard offset >= 0, offset < chip.lineCount else {
            throw InputError.request(Errno(rawValue: EINVAL), chip: chip, line: offset, use: use)
        }
        guard
            let handle = kiosk_gpio_line_request(
                chip.path, UInt32(offset), biasValue, activeLow ? 1 : 0, "kiosk-player")
        else {
            throw InputError.requestFailed(chip: chip, line: offset, use: use)
        }
        self.handle = handle
    }

    deinit {
        kiosk_gpio_line_release(handle)
    }

    var fd: Int32 { kiosk_gpio_line_fd(handle) }

    /// The current logical value.
    func value() throws(Errno) -> Bool {
        let v = kiosk_gpio_line_value(handle)
        if v < 0 { throw Errno.current.with("read line \(offset) on \(chip.path)") }
        return v == 1
    }

    /// Appends the pending edges to `edges`. Throws when the line cannot be read (chip gone).
    func readEdges(into edges: inout [(timestampNs: UInt64, offset: Int, active: Bool)]) throws(Errno) {
        var buffer = [kiosk_gpio_edge](repeating: kiosk_gpio_edge(), count: 16)
        while true {
            let n = kiosk_gpio_line_read_edges(handle, &buffer, Int32(buffer.count))
            if n < 0 { throw Errno.current.with("read events of line \(offset) on \(chip.path)") }
            for edge in buffer[0..<Int(n)] {
                edges.append((edge.timestamp_ns, Int(edge.offset), edge.rising != 0))
            }
            if n < Int32(buffer.count) { return }
        }
    }
}

/// One requested GPIO output line (libgpiod through CKioskShims' kiosk_gpio), consumer
/// "kiosk-player": the data/command, reset and backlight lines of an SPI panel. Releases the line
/// when it ends (the line keeps its last level).
///
/// Thread: one thread at a time (the SPI panel's worker once it is handed over).
public final class GPIOOutputLine: @unchecked Sendable {
    public let chip: GPIOChip
    public let offset: Int
    public let use: String
    public let activeLow: Bool
    private let handle: OpaquePointer
    /// The logical level last driven.
    public private(set) var isActive: Bool

    /// Requests `offset` of `chip` as an output, driven to `active` at once.
    /// - Parameter activeLow: the line is active (logical 1) at the low physical level.
    public init(chip: GPIOChip, offset: Int, activeLow: Bool = false, active: Bool, use: String) throws(InputError) {
        self.chip = chip
        self.offset = offset
        self.use = use
        self.activeLow = activeLow
        guard offset >= 0, offset < chip.lineCount else {
            throw InputError.request(Errno(rawValue: EINVAL), chip: chip, line: offset, use: use)
        }
        guard
            let handle = kiosk_gpio_output_request(
                chip.path, UInt32(offset), activeLow ? 1 : 0, active ? 1 : 0, "kiosk-player")
        else {
            throw InputError.requestFailed(chip: chip, line: offset, use: use)
        }
        self.handle = handle
        isActive = active
    }

    deinit {
        kiosk_gpio_line_release(handle)
    }

    /// Drives the line active (true) or inactive (false).
    public func set(_ active: Bool) throws(Errno) {
        if kiosk_gpio_line_set_value(handle, active ? 1 : 0) != 0 {
            throw Errno.current.with("set line \(offset) (\(use)) on \(chip.path)")
        }
        isActive = active
    }
}
