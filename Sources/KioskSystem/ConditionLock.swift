// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A mutex with one condition variable, for worker threads that wait on shared state (the scan's
/// reader pool and folder prefetch). Thread: any; `wait` only with the lock held.
public final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    /// Releases the lock until signalled, then holds it again.
    public func wait() { pthread_cond_wait(condition, mutex) }
    /// Releases the lock until signalled or `nanoseconds` have passed (on the realtime clock, the
    /// condition's own), then holds it again; false when the time ran out.
    @discardableResult
    public func wait(nanoseconds: UInt64) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let total = UInt64(now.tv_nsec) + nanoseconds % 1_000_000_000
        var deadline = timespec()
        deadline.tv_sec = now.tv_sec + Int(nanoseconds / 1_000_000_000) + Int(total / 1_000_000_000)
        deadline.tv_nsec = Int(total % 1_000_000_000)
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }
    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }
}
