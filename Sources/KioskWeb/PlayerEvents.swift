// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// What the page's live streams (server-sent events) tell: each change the player reported, in
/// order, numbered. The watcher thread publishes; each stream's thread waits for a number above
/// the one it sent last. Only the newest `capacity` events are kept: a stream that fell further
/// behind gets a `status` event that makes its page read everything again.
///
/// Thread: any (a `ConditionLock` guards it).
public final class PlayerEvents: @unchecked Sendable {
    public struct Event: Sendable, Equatable {
        public let number: Int
        /// `card`, `status` or `cards`.
        public let name: String
        /// One line of JSON.
        public let data: String
    }

    public static let capacity = 32
    private let lock = ConditionLock()
    private var events: [Event] = []
    private var next = 1
    private var stopped = false

    public init() {}

    public func publish(_ name: String, _ data: String) {
        lock.lock()
        events.append(Event(number: next, name: name, data: data))
        next += 1
        if events.count > Self.capacity { events.removeFirst(events.count - Self.capacity) }
        lock.broadcast()
        lock.unlock()
    }

    /// The number the next event will have (a new stream starts there).
    public var upcoming: Int {
        lock.lock()
        defer { lock.unlock() }
        return next
    }

    /// The events numbered `from` or more, waiting up to `nanoseconds` for one; empty when none came
    /// (the stream sends a keep-alive) and nil once `stop` was called.
    public func wait(from: Int, nanoseconds: UInt64) -> [Event]? {
        lock.lock()
        defer { lock.unlock() }
        var waited = false
        while true {
            if stopped { return nil }
            if let first = events.first, first.number > from {
                // Fell behind the kept window: the page reads everything again.
                return [Event(number: next - 1, name: "status", data: "{}")]
            }
            let ready = events.filter { $0.number >= from }
            if !ready.isEmpty || waited { return ready }
            waited = true
            lock.wait(nanoseconds: nanoseconds)
        }
    }

    /// Ends every stream.
    public func stop() {
        lock.lock()
        stopped = true
        lock.broadcast()
        lock.unlock()
    }
}
