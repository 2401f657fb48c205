// SPDX-License-Identifier: GPL-3.0-or-later
/// The part of an `EventLoop` other threads may use: post closures to run on the loop thread.
///
/// Thread: any. `post` takes a lock and allocates, so audio threads must not call it; they use
/// their own preallocated queue plus an eventfd registered as a source.
public final class LoopHandle: Sendable {
    private let wakeFD: FileDescriptor
    private let pending = Locked<[@Sendable () -> Void]>([])

    init() throws(Errno) {
        wakeFD = FileDescriptor(owning: try Syscalls.eventfdCreate())
    }

    /// The eventfd the loop watches; valid while the handle lives.
    var eventFD: Int32 { wakeFD.rawValue }

    /// Queues `body` to run on the loop thread and wakes the loop.
    public func post(_ body: @escaping @Sendable () -> Void) {
        pending.withLock { $0.append(body) }
        Syscalls.eventfdSignal(eventFD)
    }

    /// Wakes the loop without work (it re-checks its conditions).
    public func wake() {
        Syscalls.eventfdSignal(eventFD)
    }

    func drain() {
        let work = pending.withLock { queue -> [@Sendable () -> Void] in
            let taken = queue
            queue.removeAll(keepingCapacity: true)
            return taken
        }
        for body in work { body() }
    }
}
