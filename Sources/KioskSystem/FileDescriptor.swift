// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// An open file descriptor that this value owns: it is closed exactly once, when the value ends.
///
/// `~Copyable` so that a leak or a double close cannot compile. Pass `borrowing` to use it,
/// `consuming func release()` to hand the raw number to code that takes ownership.
/// Thread: may move between threads; a borrow must not outlive the owner.
public struct FileDescriptor: ~Copyable, Sendable {
    /// The raw descriptor number; valid while this value lives.
    public let rawValue: Int32

    /// Takes ownership of `rawValue`.
    public init(owning rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// No descriptor (-1): for an owner that has none open yet, or no longer. Closing it does nothing.
    public static var invalid: FileDescriptor { FileDescriptor(owning: -1) }

    /// Whether it names an open descriptor (not `invalid`).
    public var isValid: Bool { rawValue >= 0 }

    deinit {
        if rawValue >= 0 { Syscalls.closeIgnoringErrors(rawValue) }
    }

    /// Gives up ownership without closing.
    public consuming func release() -> Int32 {
        let raw = rawValue
        discard self
        return raw
    }

    /// Opens `path`. The corresponding C function is `open(2)`; `O_CLOEXEC` is always added.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(Errno) -> FileDescriptor {
        FileDescriptor(owning: try Syscalls.open(path, flags, mode: mode))
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try Syscalls.read(rawValue, buffer)
    }

    public func write(_ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try Syscalls.write(rawValue, buffer)
    }

    /// Writes all of `bytes`, looping over short writes.
    public func writeAll(_ bytes: some Collection<UInt8>) throws(Errno) {
        try Syscalls.writeAll(rawValue, Array(bytes))
    }

    /// Reads until end of file, at most `limit` bytes (more is an `EFBIG` error).
    public func readAll(limit: Int = 64 << 20) throws(Errno) -> [UInt8] {
        try Syscalls.readAll(rawValue, limit: limit)
    }
}
