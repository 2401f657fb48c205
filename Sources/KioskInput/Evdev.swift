// SPDX-License-Identifier: GPL-3.0-or-later
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
    private let descriptor: FileDescriptor
    var fd: Int32 { descriptor.rawValue }

    private init(fd: consuming FileDescriptor, path: String, name: String, monotonic: Bool) {
        descriptor = fd
        self.path = path
        self.name = name
        self.monotonic = monotonic
    }

    static func open(path: String) throws(Errno) -> EvdevDevice {
        let fd = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK)
        var buffer = [CChar](repeating: 0, count: 256)
        guard kiosk_evdev_name(fd.rawValue, &buffer, buffer.count) == 0 else {
            throw Errno.current.with("\(path) is not an input device")
        }
        let name = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let monotonic = kiosk_evdev_use_monotonic_clock(fd.rawValue) == 0
        return EvdevDevice(fd: fd, path: path, name: name, monotonic: monotonic)
    }

    /// The eventN devices of `directory`, in number order.
    static func devicePaths(in directory: String) -> [String] {
        guard let listing = try? Syscalls.readDirectory(directory) else { return [] }
        let found = listing.entries.compactMap { entry -> (Int, String)? in
            guard entry.name.hasPrefix("event"), let n = Int(entry.name.dropFirst(5)) else { return nil }
            return (n, "\(directory)/\(entry.name)")
        }
        return found.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Opens `spec`: a path, the first device in `directory` whose name is `spec`, or for "*" the
    /// first device with one of `keys` whose name is not in `excluding` (a profile for any USB keypad
    /// or remote; the devices other entries and card readers name are theirs). The error says what
    /// was there instead.
    static func find(
        _ spec: String, in directory: String, keys: [UInt16] = [], excluding: Set<String> = []
    ) -> Result<EvdevDevice, InputError> {
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
                if spec.count > 1, spec.hasPrefix("*"), device.name.hasSuffix(spec.dropFirst()) {
                    return .success(device)
                }
                if spec == "*", !excluding.contains(device.name),
                    keys.contains(where: { device.has(type: UInt16(EV_KEY), code: $0) == true })
                {
                    return .success(device)
                }
                names.append("\"\(device.name)\"")
            } catch {
                if error.rawValue == EACCES || error.rawValue == EPERM { denied.append(path) }
            }
        }
        var message = spec == "*" ? "no input device with the profile's keys" : "no input device named \"\(spec)\""
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
            let n = try Syscalls.retrying("read \(path)") { kiosk_evdev_read(fd, &buffer, Int32(buffer.count)) }
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
