// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskSystem

/// A GPIO chip, a line or an SPI device could not be found, requested or used. The message is
/// worded for the person wiring the box: it names the chip, the line and its use, or the device,
/// and what to do.
///
/// Thread: a value; any thread.
public struct HardwareError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(message: String) { self.message = message }
    public var description: String { message }

    /// The error for a line request that just failed: `errno` now, and for EBUSY the line's
    /// current consumer as the kernel reports it.
    static func requestFailed(chip: GPIOChip, line: Int, use: String) -> HardwareError {
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
    ) -> HardwareError {
        let what = "line \(line) (\(use)) on \(chip.path) \(chip.description)"
        switch errno.rawValue {
        case EBUSY:
            let holder = consumer.map { $0.isEmpty ? " by the kernel or another program" : " by \"\($0)\"" } ?? ""
            return HardwareError(
                message:
                    "\(what) is busy: already in use\(holder) (a device-tree overlay or another program holds it)")
        case EACCES, EPERM:
            return HardwareError(message: "\(what): permission denied (the user needs the gpio group, or root)")
        case EINVAL where line >= chip.lineCount:
            return HardwareError(
                message: "\(what) does not exist: the chip has \(chip.lineCount) lines (0…\(chip.lineCount - 1))")
        case EINVAL, EOPNOTSUPP:
            return HardwareError(
                message:
                    "\(what): the kernel refused the request (\(errno.message)); bias or edge events may be unsupported"
            )
        case ENOENT, ENODEV, ENXIO:
            return HardwareError(message: "\(what): the chip has gone (\(errno.message))")
        default:
            return HardwareError(message: "\(what): \(errno.message)")
        }
    }
}
