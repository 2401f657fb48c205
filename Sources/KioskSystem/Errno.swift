// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A POSIX error number, thrown by every wrapper in `Syscalls`.
///
/// `description` is the C library's text (`strerror`), prefixed by the operation that failed when
/// one was recorded, e.g. `open /dev/fb0: No such file or directory`.
public struct Errno: Error, Equatable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    /// What was being done, e.g. "open /dev/fb0". Empty when unknown.
    public let context: String
    /// Said instead of the C library's text when that would mislead: a stick's `exhibit.json` that
    /// is a FIFO is refused with EINVAL, but "Invalid argument" does not say why ("a FIFO, not a
    /// regular file" does). nil: `strerror`'s text.
    public let reason: String?

    public init(rawValue: Int32, context: String = "", reason: String? = nil) {
        self.rawValue = rawValue
        self.context = context
        self.reason = reason
    }

    /// The calling thread's current `errno`.
    public static var current: Errno { Errno(rawValue: errno) }

    public static let interrupted = Errno(rawValue: EINTR)
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    public static let noEntry = Errno(rawValue: ENOENT)
    public static let permissionDenied = Errno(rawValue: EACCES)
    public static let busy = Errno(rawValue: EBUSY)
    public static let invalid = Errno(rawValue: EINVAL)
    public static let noDevice = Errno(rawValue: ENODEV)

    /// The same error number with a description of what failed.
    public func with(_ context: String) -> Errno { Errno(rawValue: rawValue, context: context, reason: reason) }

    /// The C library's text for this error number, or the `reason` given instead.
    public var message: String { reason ?? String(cString: strerror(rawValue)) }

    public var description: String { context.isEmpty ? message : "\(context): \(message)" }

    public static func == (lhs: Errno, rhs: Errno) -> Bool { lhs.rawValue == rhs.rawValue }
}
