// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

/// Ends the running test as skipped with `reason`: swift-testing's `Test.cancel` where the toolchain
/// has it (6.3 and later); with older ones (Debian trixie's 6.0.3) the reason is printed and the
/// caller returns, so the test passes having checked nothing. Callers write
/// `guard … else { try skipTest("why"); return }`. Thread: the test's own.
public func skipTest(_ reason: String) throws {
    #if compiler(>=6.3)
        try Test.cancel(Comment(rawValue: reason))
    #else
        print("◇ Test \(Test.current?.name ?? "?") skipped: \(reason)")
    #endif
}
