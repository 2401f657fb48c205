// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import Testing

/// The worker thread the library scans and the artwork loaders run on: jobs one at a time in the
/// order asked for, a bounded queue that says what it dropped, a wait for idle that leaves it
/// ready, and a stop that waits for the running job and runs none of the queued ones.
@Suite struct WorkerThreadTests {
    /// Holds the worker's first job until the test lets it go, so the queue fills behind it.
    private final class Gate: Sendable {
        let entered = EventCount()
        let open = EventCount()
        let state = Locked<(inside: Bool, released: Bool)>((false, false))

        func pass() {
            state.withLock { $0.inside = true }
            entered.signal()
            open.wait(until: { state.withLock { $0.released } })
        }

        func waitInside() { entered.wait(until: { state.withLock { $0.inside } }) }

        func release() {
            state.withLock { $0.released = true }
            open.signal()
        }
    }

    @Test func jobsRunOneAtATimeInTheOrderSubmitted() throws {
        let done = Locked<[Int]>([])
        let worker = try WorkerThread<Int>(name: "test-worker") { n in done.withLock { $0.append(n) } }
        for n in 0..<100 { #expect(worker.submit(n) == nil) }
        worker.waitUntilIdle()
        #expect(done.withLock { $0 } == Array(0..<100))
        worker.stop()
    }

    @Test func newestFirstRunsTheLatestAndReturnsTheOldestDropped() throws {
        let gate = Gate()
        let done = Locked<[Int]>([])
        let worker = try WorkerThread<Int>(name: "test-worker", order: .newestFirst, maxQueued: 3) { n in
            if n == 0 { gate.pass() }
            done.withLock { $0.append(n) }
        }
        worker.submit(0)
        gate.waitInside()
        var dropped: [Int] = []
        for n in 1...5 { if let d = worker.submit(n) { dropped.append(d) } }
        gate.release()
        worker.waitUntilIdle()
        #expect(dropped == [1, 2])
        #expect(done.withLock { $0 } == [0, 5, 4, 3])
        worker.stop()
    }

    @Test func stopWaitsForTheRunningJobAndDropsTheQueued() throws {
        let gate = Gate()
        let done = Locked<[Int]>([])
        let worker = try WorkerThread<Int>(name: "test-worker") { n in
            if n == 0 { gate.pass() }
            done.withLock { $0.append(n) }
        }
        worker.submit(0)
        gate.waitInside()
        worker.submit(1)
        worker.submit(2)
        let releaser = try KioskThread(name: "test-release") {
            Syscalls.sleep(nanoseconds: 20_000_000)
            gate.release()
        }
        worker.stop()
        releaser.join()
        #expect(done.withLock { $0 } == [0], "the running job finished before stop returned; the queued never ran")
        #expect(worker.submit(3) == nil, "a job after stop is discarded")
        worker.stop()  // a second stop is harmless
        #expect(done.withLock { $0 } == [0])
    }

    @Test func aGroupRunsEachBodyOnceOnItsOwnNamedWorkerAndJoinWaitsForThemAll() throws {
        let ran = Locked<[Int: String]>([:])
        let group = WorkerGroup(name: "test-group", count: 3, first: 2) { k in
            let comm = (try? Syscalls.readFile("/proc/thread-self/comm")) ?? []
            let name = String(decoding: comm.prefix { $0 != 10 }, as: UTF8.self)
            ran.withLock { $0[k] = name }
        }
        #expect(group.count == 3)
        group.join()
        #expect(ran.withLock { $0 } == [0: "test-group-2", 1: "test-group-3", 2: "test-group-4"])
        group.join()  // a second join is harmless
    }
}
