// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc

/// A POSIX thread running one closure, optionally with real-time (SCHED_FIFO) priority.
///
/// Thread: create and join from one thread (normally the loop thread).
public final class KioskThread: @unchecked Sendable {
    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    private var thread = pthread_t()
    private var joined = false
    /// Whether the thread got the real-time priority it asked for.
    public let isRealtime: Bool
    public let name: String

    /// Starts `body` on a new thread named `name` (at most 15 characters are kept by the kernel).
    ///
    /// - Parameter realtimePriority: SCHED_FIFO priority (1…99) to ask for. When the process may
    ///   not use real-time scheduling (no CAP_SYS_NICE / RLIMIT_RTPRIO), the thread runs with
    ///   normal priority instead, silently; `isRealtime` tells which happened.
    public init(name: String, realtimePriority: Int32? = nil, _ body: @escaping @Sendable () -> Void) throws(Errno) {
        self.name = name
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
            let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
            kiosk_thread_set_name(String(start.name.prefix(15)))
            start.body()
            return nil
        }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        var realtime = false
        if let priority = realtimePriority {
            var param = sched_param()
            param.sched_priority = priority
            pthread_attr_setinheritsched(&attributes, Int32(PTHREAD_EXPLICIT_SCHED))
            pthread_attr_setschedpolicy(&attributes, SCHED_FIFO)
            pthread_attr_setschedparam(&attributes, &param)
            if pthread_create(&thread, &attributes, entry, start) == 0 {
                realtime = true
            } else {
                // Not permitted: fall back to an ordinary thread.
                pthread_attr_setinheritsched(&attributes, Int32(PTHREAD_INHERIT_SCHED))
            }
        }
        if !realtime {
            let rc = pthread_create(&thread, &attributes, entry, start)
            if rc != 0 {
                Unmanaged<Start>.fromOpaque(start).release()
                throw Errno(rawValue: rc, context: "pthread_create \(name)")
            }
        }
        isRealtime = realtime
    }

    /// Waits for the thread to finish. Calling it twice does nothing. Called on the thread itself
    /// (its owner's last reference dropped there), it detaches instead: a thread cannot join itself.
    public func join() {
        if joined { return }
        joined = true
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }

    deinit {
        if !joined { pthread_detach(thread) }
    }
}
