// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskSystem

/// One requested GPIO output line (libgpiod through CKioskShims' kiosk_gpio), consumer
/// "kiosk-player": e.g. the data/command, reset and backlight lines of an SPI panel. Releases the
/// line when it ends (the line keeps its last level).
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
    public init(chip: GPIOChip, offset: Int, activeLow: Bool = false, active: Bool, use: String) throws(HardwareError) {
        self.chip = chip
        self.offset = offset
        self.use = use
        self.activeLow = activeLow
        guard offset >= 0, offset < chip.lineCount else {
            throw HardwareError.request(Errno(rawValue: EINVAL), chip: chip, line: offset, use: use)
        }
        guard
            let handle = kiosk_gpio_output_request(
                chip.path, UInt32(offset), activeLow ? 1 : 0, active ? 1 : 0, "kiosk-player")
        else {
            throw HardwareError.requestFailed(chip: chip, line: offset, use: use)
        }
        self.handle = handle
        isActive = active
    }

    deinit {
        kiosk_gpio_line_release(handle)
    }

    /// Drives the line active (true) or inactive (false).
    public func set(_ active: Bool) throws(HardwareError) {
        if kiosk_gpio_line_set_value(handle, active ? 1 : 0) != 0 {
            let error = Errno.current
            throw HardwareError(message: "set line \(offset) (\(use)) on \(chip.path): \(error.message)")
        }
        isActive = active
    }
}
