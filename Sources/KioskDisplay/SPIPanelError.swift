// SPDX-License-Identifier: GPL-3.0-or-later
/// An SPI panel could not be opened or talked to; the message names the device or line and what
/// to do. Thread: a value.
public struct SPIPanelError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
