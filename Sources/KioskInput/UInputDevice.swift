// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskSystem

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
        for entry in try Syscalls.readDirectory(directory).entries where entry.name.hasPrefix("event") {
            let text = try Syscalls.readFile("\(directory)/\(entry.name)/dev", limit: 64)
            let device = String(decoding: text, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
            return (entry.name, device)
        }
        throw Errno(rawValue: ENOENT, context: "no event node under \(directory)")
    }

    /// Sends one event (`type` EV_KEY/EV_REL/EV_SYN).
    public func emit(type: UInt16, code: UInt16, value: Int32) throws(Errno) {
        _ = try Syscalls.retrying("write uinput event") { kiosk_uinput_emit(fd, type, code, value) }
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
