// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import Testing

/// `Syscalls.retrying`, the one place that retries EINTR: an interrupted call is made again until it
/// answers, and any other failure is thrown once with what was being done.
@Suite struct SyscallRetryTests {
    @Test func anInterruptedCallIsMadeAgainUntilItAnswers() throws {
        var calls = 0
        let result = try Syscalls.retrying("read test") { () -> Int in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 42
        }
        #expect(result == 42)
        #expect(calls == 3)
    }

    @Test func anotherFailureIsThrownOnceWithWhatWasBeingDone() {
        var calls = 0
        #expect(throws: Errno(rawValue: EAGAIN)) {
            _ = try Syscalls.retrying("read test") { () -> Int in
                calls += 1
                errno = EAGAIN
                return -1
            }
        }
        #expect(calls == 1)
        do {
            _ = try Syscalls.retrying("read test") { () -> Int32 in
                errno = EBADF
                return -1
            }
            Issue.record("EBADF was not thrown")
        } catch {
            #expect(error.description.hasPrefix("read test: "))
        }
    }
}
