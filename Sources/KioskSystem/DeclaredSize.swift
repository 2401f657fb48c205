// SPDX-License-Identifier: GPL-3.0-or-later
/// Arithmetic on offsets and lengths a file declares about itself (chunk, box and frame sizes read
/// from its headers). Those numbers are untrusted: a sum of them may not fit in 64 bits, and Swift
/// traps on an overflow, which in the scan's thread would stop the box at every start. Every such
/// sum goes through here and comes back `nil` when it does not fit, so the caller names the file
/// as damaged instead.
///
/// Thread: pure functions; any.
public enum DeclaredSize {
    /// `offset + length`, or nil when `length` is negative or the sum does not fit in 64 bits.
    public static func end(_ offset: Int64, plus length: Int64) -> Int64? {
        guard offset >= 0, length >= 0 else { return nil }
        let (sum, overflow) = offset.addingReportingOverflow(length)
        return overflow ? nil : sum
    }

    /// Whether the `length` bytes at `offset` lie within a file (or enclosing box) of `size` bytes.
    public static func fits(_ offset: Int64, length: Int64, within size: Int64) -> Bool {
        guard let end = end(offset, plus: length) else { return false }
        return end <= size
    }

    /// An unsigned 64-bit size as a signed one, nil when it is 2^63 or more.
    public static func signed(_ value: UInt64) -> Int64? {
        value <= UInt64(Int64.max) ? Int64(value) : nil
    }
}
