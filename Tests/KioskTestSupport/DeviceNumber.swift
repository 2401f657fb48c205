// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// glibc's makedev() (a macro Swift cannot call): the 64-bit dev_t of a major and minor number, for
/// tests that make device nodes with mknod. Thread: any.
public func makeDeviceNumber(major: UInt64, minor: UInt64) -> dev_t {
    // One typed term per line: Swift 6.0's type checker gives up on the single expression.
    let low: UInt64 = (minor & 0xff) | ((major & 0xfff) << 8)
    let high: UInt64 = ((minor & ~0xff) << 12) | ((major & ~0xfff) << 32)
    return dev_t(low | high)
}
