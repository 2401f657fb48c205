// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Testing

/// The index of the first element where `a` and `b` differ; the shorter count when one is a prefix of
/// the other; nil when they are equal. Compares the bytes (8 at a time) and looks at elements only where
/// the bytes differ, so a buffer of millions of samples costs milliseconds in a debug build.
public func firstDifference<Element: Equatable & BitwiseCopyable>(_ a: [Element], _ b: [Element]) -> Int? {
    let n = min(a.count, b.count)
    let stride = MemoryLayout<Element>.stride
    let sameBytes = a.withUnsafeBytes { x in
        b.withUnsafeBytes { y in n == 0 || memcmp(x.baseAddress!, y.baseAddress!, n * stride) == 0 }
    }
    var from = sameBytes ? n : 0
    while from < n {
        let byte = a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in firstDifferingByte(x, y, from: from * stride, to: n * stride) }
        }
        guard let byte else { break }
        let index = byte / stride
        // Different bytes can still be equal values (0.0 and -0.0).
        if a[index] != b[index] { return index }
        from = index + 1
    }
    return a.count == b.count ? nil : n
}

private func firstDifferingByte(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer, from: Int, to end: Int)
    -> Int?
{
    var i = from
    while i + 8 <= end {
        if x.loadUnaligned(fromByteOffset: i, as: UInt64.self) != y.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
            break
        }
        i += 8
    }
    while i < end {
        if x[i] != y[i] { return i }
        i += 1
    }
    return nil
}

/// Expects `actual == expected` for buffers of samples, bytes or pixels: on a difference it records
/// the counts and the first differing index with both values, where `#expect(a == b)` would have the
/// test framework diff two multi-megabyte arrays (once for over seven minutes). Returns whether they
/// were equal. Thread: the test's own.
@discardableResult
public func expectSameSamples<Element: Equatable & BitwiseCopyable>(
    _ actual: [Element], _ expected: [Element], _ comment: @autoclosure () -> String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    guard let index = firstDifference(actual, expected) else { return true }
    let what = comment()
    var message = what.isEmpty ? "" : what + ": "
    message += "\(actual.count) elements, expected \(expected.count); "
    if index < min(actual.count, expected.count) {
        message += "first difference at index \(index): \(actual[index]), expected \(expected[index])"
    } else {
        message += "equal up to index \(index), where the shorter one ends"
    }
    Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    return false
}
