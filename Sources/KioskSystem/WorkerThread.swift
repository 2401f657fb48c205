// SPDX-License-Identifier: GPL-3.0-or-later
/// A named thread that runs submitted jobs one at a time until stopped: the one shape of the
/// workers that keep files and decoders off the loop thread (library scans, artwork for the
/// screen and for MPD clients). Results go back the way the job says (normally a `Mailbox`).
///
/// Thread: `submit` and `stop` from any thread (normally the loop thread); `perform` runs on the
/// worker's own thread, one job at a time. The worker owns its thread: `stop`, or the last release
/// of the worker, drops the queued jobs, waits for the running one and joins the thread.
public final class WorkerThread<Job: Sendable>: Sendable {
    /// Which queued job runs next.
    public enum Order: Sendable {
        case oldestFirst
        /// The newest request matters most (the rows now on screen while scrolling a list).
        case newestFirst
    }

    /// What the thread shares with its owner; the thread holds this, not the worker, so dropping
    /// the worker stops it.
    private final class Core: Sendable {
        let state = Locked<(queue: [Job], busy: Bool, stopping: Bool)>(([], false, false))
        let wake = EventCount()
        /// Signalled after each job, for `waitUntilIdle`.
        let finished = EventCount()
        let order: Order
        let perform: @Sendable (Job) -> Void

        init(order: Order, perform: @escaping @Sendable (Job) -> Void) {
            self.order = order
            self.perform = perform
        }

        func run() {
            while true {
                wake.wait(until: { state.withLock { $0.stopping || !$0.queue.isEmpty } })
                let next: Job? = state.withLock { state in
                    if state.stopping || state.queue.isEmpty { return nil }
                    state.busy = true
                    return order == .oldestFirst ? state.queue.removeFirst() : state.queue.removeLast()
                }
                if let next {
                    perform(next)
                    state.withLock { $0.busy = false }
                    finished.signal()
                } else if state.withLock({ $0.stopping }) {
                    return
                }
            }
        }
    }

    public let name: String
    /// Queued jobs beyond this are dropped, oldest first (`submit` returns them).
    public let maxQueued: Int
    private let core: Core
    private let thread = Locked<KioskThread?>(nil)

    /// Starts the thread `name` (at most 15 characters are kept by the kernel); `perform` runs each job on it.
    public init(
        name: String, order: Order = .oldestFirst, maxQueued: Int = .max, perform: @escaping @Sendable (Job) -> Void
    ) throws(Errno) {
        self.name = name
        self.maxQueued = max(1, maxQueued)
        let core = Core(order: order, perform: perform)
        self.core = core
        let started = try KioskThread(name: name) { core.run() }
        thread.withLock { $0 = started }
    }

    deinit { stop() }

    /// Queues `job`. Returns the job dropped to make room: the oldest queued one when more than
    /// `maxQueued` wait. A job submitted after `stop` is discarded (its owner has stopped too).
    @discardableResult
    public func submit(_ job: Job) -> Job? {
        let dropped: Job? = core.state.withLock { state in
            if state.stopping { return nil }
            state.queue.append(job)
            return state.queue.count > maxQueued ? state.queue.removeFirst() : nil
        }
        core.wake.signal()
        return dropped
    }

    /// Waits until no job is queued or running (the worker stays ready for more).
    public func waitUntilIdle() {
        core.finished.wait(until: { core.state.withLock { $0.queue.isEmpty && !$0.busy } })
    }

    /// Drops the queued jobs, waits for the running one and joins the thread. Safe to call twice.
    public func stop() {
        core.state.withLock { state in
            state.stopping = true
            state.queue.removeAll()
        }
        core.wake.signal()
        let running = thread.withLock { t in
            defer { t = nil }
            return t
        }
        running?.join()
    }
}

/// Worker threads that each run one long job, a pool's own loop that takes its work from shared
/// state until none is left: the scan's file readers, folder listers and playability checkers.
/// Each is a `WorkerThread` (the one shape of a worker), named `name-N`.
///
/// Thread: create and `join` from one thread (the thread that owns the pool); `body` runs on the
/// workers' threads.
public final class WorkerGroup: Sendable {
    private let workers: [WorkerThread<@Sendable () -> Void>]

    /// Starts up to `count` workers named `name-first`, `name-(first+1)`…; worker k (0-based) runs
    /// `body(k)` once. Fewer start when the system refuses threads (`count` says how many did).
    public init(name: String, count: Int, first: Int = 1, _ body: @escaping @Sendable (Int) -> Void) {
        var workers: [WorkerThread<@Sendable () -> Void>] = []
        for k in 0..<max(0, count) {
            guard let worker = try? WorkerThread<@Sendable () -> Void>(name: "\(name)-\(first + k)", perform: { $0() })
            else { break }
            worker.submit { body(k) }
            workers.append(worker)
        }
        self.workers = workers
    }

    /// The workers that started.
    public var count: Int { workers.count }

    /// Waits until every worker's `body` has returned and joins their threads. Safe to call twice.
    public func join() {
        for worker in workers {
            worker.waitUntilIdle()
            worker.stop()
        }
    }
}
