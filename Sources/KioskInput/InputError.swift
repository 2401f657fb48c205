// SPDX-License-Identifier: GPL-3.0-or-later
/// A problem with an input device, worded for the person wiring the box: names the evdev device
/// or the script and what to do (GPIO chips and lines report `HardwareError`, from KioskHardware).
///
/// Thread: a value; any thread.
public struct InputError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
