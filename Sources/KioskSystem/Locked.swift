// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A value behind a pthread mutex: `withLock` is the only way to it. The program's lock for state
/// shared between threads (the loop's pending work, the log's observers, mailboxes, the display
/// workers), used instead of the toolchain's `Synchronization.Mutex` because ThreadSanitizer sees
/// pthread locks and not that one's futex slow path, whose missed acquires it reports as races
/// (`make tsan`).
///
/// Thread: any.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, the lock held.
    public func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
