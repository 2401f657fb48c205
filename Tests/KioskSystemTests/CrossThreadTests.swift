// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Synchronization
import Testing

/// The primitives that cross threads, under load from several threads at once: what `make tsan`
/// checks for races (the same tests pass without it).
@Suite struct CrossThreadTests {
    @Test func anEventCountWaiterSeesEverySignalledChange() throws {
        let events = EventCount()
        let produced = Atomic<Int>(0)
        let total = 20_000
        let producer = try KioskThread(name: "evc-producer") {
            for _ in 0..<total {
                produced.add(1, ordering: .releasing)
                events.signal()
            }
        }
        var seen = 0
        while seen < total {
            let reached = events.wait(
                until: { produced.load(ordering: .acquiring) > seen }, timeoutNanoseconds: 5_000_000_000)
            #expect(reached, "no wake-up after \(seen) of \(total) changes")
            if !reached { break }
            seen = produced.load(ordering: .acquiring)
        }
        producer.join()
        #expect(seen == total)
    }

    @Test func aMailboxDeliversEveryMessageOfManyThreadsInEachThreadsOrder() throws {
        let loop = try EventLoop()
        let threads = 4
        let perThread = 2000
        var received: [[Int]] = Array(repeating: [], count: threads)
        let mailbox = Mailbox<(thread: Int, n: Int)>(loop: loop) { received[$0.thread].append($0.n) }
        var senders: [KioskThread] = []
        for t in 0..<threads {
            senders.append(try KioskThread(name: "mailbox-\(t)") { for n in 0..<perThread { mailbox.send((t, n)) } })
        }
        let done = try loop.run(
            until: { received.allSatisfy { $0.count == perThread } }, timeoutNanoseconds: 20_000_000_000)
        for sender in senders { sender.join() }
        #expect(done)
        for t in 0..<threads { #expect(received[t] == Array(0..<perThread), "thread \(t)'s messages in order") }
    }

    @Test func workPostedFromManyThreadsRunsOnceEachOnTheLoopThread() throws {
        let loop = try EventLoop()
        let handle = loop.handle
        let loopThread = pthread_self()
        let ran = Atomic<Int>(0)
        let offLoop = Atomic<Int>(0)
        var posters: [KioskThread] = []
        for t in 0..<4 {
            posters.append(
                try KioskThread(name: "post-\(t)") {
                    for _ in 0..<1000 {
                        handle.post {
                            if pthread_equal(pthread_self(), loopThread) == 0 { offLoop.add(1, ordering: .relaxed) }
                            ran.add(1, ordering: .relaxed)
                        }
                    }
                })
        }
        let done = try loop.run(until: { ran.load(ordering: .relaxed) == 4000 }, timeoutNanoseconds: 20_000_000_000)
        for poster in posters { poster.join() }
        try loop.run(forNanoseconds: 10_000_000)
        #expect(done)
        #expect(ran.load(ordering: .relaxed) == 4000)
        #expect(offLoop.load(ordering: .relaxed) == 0)
    }
}
