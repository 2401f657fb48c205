import CKioskShims
import Glibc
import KioskSystem

/// An open evdev input device (/dev/input/eventN), non-blocking, with monotonic timestamps when
/// the kernel allows (EVIOCSCLOCKID). Closes the device when it ends.
///
/// Thread: the event-loop thread.
final class EvdevDevice {
    let path: String
    let name: String
    /// Whether event timestamps are on CLOCK_MONOTONIC (else the reader uses the time of reading).
    let monotonic: Bool
    let fd: Int32

    private init(fd: Int32, path: String, name: String, monotonic: Bool) {
        self.fd = fd
        self.path = path
        self.name = name
        self.monotonic = monotonic
    }

    deinit {
        Syscalls.closeIgnoringErrors(fd)
    }

    static func open(path: String) throws(Errno) -> EvdevDevice {
        let fd = try Syscalls.open(path, O_RDONLY | O_NONBLOCK)
        var buffer = [CChar](repeating: 0, count: 256)
        guard kiosk_evdev_name(fd, &buffer, buffer.count) == 0 else {
            let error = Errno.current
            Syscalls.closeIgnoringErrors(fd)
            throw error.with("\(path) is not an input device")
        }
        let name = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let monotonic = kiosk_evdev_use_monotonic_clock(fd) == 0
        return EvdevDevice(fd: fd, path: path, name: name, monotonic: monotonic)
    }

    /// The eventN devices of `directory`, in number order.
    static func devicePaths(in directory: String) -> [String] {
        var found: [(Int, String)] = []
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasPrefix("event"), let n = Int(name.dropFirst(5)) { found.append((n, "\(directory)/\(name)")) }
        }
        return found.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Opens `spec`: a path, or the first device in `directory` whose name is `spec`. The error
    /// says what was there instead.
    static func find(_ spec: String, in directory: String) -> Result<EvdevDevice, InputError> {
        if spec.hasPrefix("/") {
            do throws(Errno) {
                return .success(try open(path: spec))
            } catch {
                let reason =
                    error.rawValue == ENOENT
                    ? "\(spec) does not exist"
                    : error.rawValue == EACCES
                        ? "permission denied opening \(spec) (the user needs the input group, or root)"
                        : error.description
                return .failure(InputError(message: reason))
            }
        }
        var names: [String] = []
        var denied: [String] = []
        for path in devicePaths(in: directory) {
            do throws(Errno) {
                let device = try open(path: path)
                if device.name == spec { return .success(device) }
                names.append("\"\(device.name)\"")
            } catch {
                if error.rawValue == EACCES || error.rawValue == EPERM { denied.append(path) }
            }
        }
        var message = "no input device named \"\(spec)\""
        if names.isEmpty && denied.isEmpty {
            message += " (no \(directory)/event* here)"
        } else {
            if !names.isEmpty { message += " (devices: \(names.joined(separator: ", ")))" }
            if !denied.isEmpty {
                message += "; permission denied on \(denied.joined(separator: ", ")) (the user needs the input group)"
            }
        }
        return .failure(InputError(message: message))
    }

    /// Reads the pending events (none: empty). Throws ENODEV when the device was unplugged.
    func read() throws(Errno) -> [kiosk_input_event] {
        var result: [kiosk_input_event] = []
        var buffer = [kiosk_input_event](repeating: kiosk_input_event(), count: 64)
        while true {
            let n = kiosk_evdev_read(fd, &buffer, Int32(buffer.count))
            if n < 0 { throw Errno.current.with("read \(path)") }
            result.append(contentsOf: buffer[0..<Int(n)])
            if n < Int32(buffer.count) { return result }
        }
    }

    /// Whether the device can send `code` of `type` (nil when the kernel would not say).
    func has(type: UInt16, code: UInt16) -> Bool? {
        let r = kiosk_evdev_has_code(fd, UInt32(type), UInt32(code))
        return r < 0 ? nil : r == 1
    }

    func keyIsDown(_ code: UInt16) -> Bool {
        kiosk_evdev_key_is_down(fd, UInt32(code)) == 1
    }
}

/// A virtual input device made through /dev/uinput: the kernel shows it as a real evdev device.
/// For tests and the system test (a keypad or encoder without hardware). Destroyed when it ends.
///
/// Thread: any one thread at a time.
public final class UInputDevice {
    public let name: String
    private var fd: Int32

    /// Whether `path` exists and can be opened for writing (root, or the uinput group).
    public static func isAvailable(_ path: String = "/dev/uinput") -> Bool { access(path, W_OK) == 0 }

    /// Creates a device called `name` that can send `keys` (EV_KEY codes) and `relativeAxes` (EV_REL).
    public init(name: String, keys: [UInt16], relativeAxes: [UInt16] = [], path: String = "/dev/uinput") throws(Errno) {
        self.name = name
        let fd = kiosk_uinput_create(path, name, keys, Int32(keys.count), relativeAxes, Int32(relativeAxes.count))
        if fd < 0 { throw Errno.current.with("create uinput device \(name) through \(path)") }
        self.fd = fd
    }

    deinit { destroy() }

    /// Removes the device (as if unplugged). Safe to call twice.
    public func destroy() {
        if fd >= 0 { _ = kiosk_uinput_destroy(fd) }
        fd = -1
    }

    /// The device's name in sysfs ("input7"): /sys/devices/virtual/input/<sysName>.
    public func sysName() throws(Errno) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        if kiosk_uinput_sysname(fd, &buffer, buffer.count) != 0 { throw Errno.current.with("UI_GET_SYSNAME") }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// The evdev node of the device: its "eventN" name and "major:minor" device number, from sysfs.
    public func eventNode() throws(Errno) -> (name: String, device: String) {
        let directory = "/sys/devices/virtual/input/\(try sysName())"
        guard let dir = opendir(directory) else { throw Errno.current.with("open \(directory)") }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasPrefix("event") {
                let text = try Syscalls.readFile("\(directory)/\(name)/dev", limit: 64)
                let device = String(decoding: text, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
                return (name, device)
            }
        }
        throw Errno(rawValue: ENOENT, context: "no event node under \(directory)")
    }

    /// Sends one event (`type` EV_KEY/EV_REL/EV_SYN).
    public func emit(type: UInt16, code: UInt16, value: Int32) throws(Errno) {
        if kiosk_uinput_emit(fd, type, code, value) != 0 { throw Errno.current.with("write uinput event") }
    }

    /// Sends SYN_REPORT: the end of a frame of events.
    public func sync() throws(Errno) {
        try emit(type: UInt16(EV_SYN), code: UInt16(SYN_REPORT), value: 0)
    }

    /// Presses (`down`) or releases key `code`, then syncs.
    public func key(_ code: UInt16, down: Bool) throws(Errno) {
        try emit(type: UInt16(EV_KEY), code: code, value: down ? 1 : 0)
        try sync()
    }

    /// Moves relative axis `code` by `delta`, then syncs.
    public func move(_ code: UInt16, by delta: Int32) throws(Errno) {
        try emit(type: UInt16(EV_REL), code: code, value: delta)
        try sync()
    }
}
