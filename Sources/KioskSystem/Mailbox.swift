// SPDX-License-Identifier: GPL-3.0-or-later
/// A typed channel from any thread to a handler on the loop thread.
///
/// Unlike `LoopHandle.post`, the handler is not `@Sendable`: it lives on the loop and may touch
/// loop state; only the messages cross threads.
public final class Mailbox<Message: Sendable>: Sendable {
    private final class Queue: Sendable {
        let messages = Locked<[Message]>([])
    }
    private let queue: Queue
    private let handle: LoopHandle
    private let deliver: @Sendable () -> Void

    /// Creates a mailbox whose messages are passed to `handler` on `loop`'s thread, in order.
    public init(loop: any EventLoopProtocol, handler: @escaping (Message) -> Void) {
        let queue = Queue()
        let box = UncheckedBox(handler)
        self.queue = queue
        handle = loop.handle
        deliver = {
            let messages = queue.messages.withLock { q -> [Message] in
                let taken = q
                q.removeAll(keepingCapacity: true)
                return taken
            }
            for message in messages { box.value(message) }
        }
    }

    /// Sends `message` to the loop thread. Thread: any (not audio threads: it locks).
    public func send(_ message: Message) {
        queue.messages.withLock { $0.append(message) }
        handle.post(deliver)
    }
}

/// Carries a non-Sendable value across an isolation boundary where the code guarantees it is
/// only used on one thread (here: a handler created on the loop thread and called only there).
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
