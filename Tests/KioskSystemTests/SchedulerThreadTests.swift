// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import KioskTestSupport
import Testing

/// `Scheduler.inLoopThread`, what `assertInLoop()` checks at the entries of loop-thread types: true
/// on the scheduler's thread, false on any other, for the event loop, the embedded loop and the test's
/// virtual clock.
@Suite struct SchedulerThreadTests {
    private static func fromAnotherThread(_ scheduler: any Scheduler) throws -> Bool {
        final class Box: @unchecked Sendable {
            let scheduler: any Scheduler
            var answer = true
            init(_ scheduler: any Scheduler) { self.scheduler = scheduler }
        }
        let box = Box(scheduler)
        let thread = try KioskThread(name: "test-other") { box.answer = box.scheduler.inLoopThread }
        thread.join()
        return box.answer
    }

    @Test func theEventLoopIsInItsThreadOnlyOnTheThreadThatMadeIt() throws {
        let loop = try EventLoop()
        #expect(loop.inLoopThread)
        #expect(try !Self.fromAnotherThread(loop))
        loop.assertInLoop()  // passes on the loop thread
    }

    @Test func theEmbeddedLoopIsInItsThreadOnlyOnTheThreadThatMadeIt() throws {
        let loop = try EmbeddedLoop()
        #expect(loop.inLoopThread)
        #expect(try !Self.fromAnotherThread(loop))
        loop.assertInLoop()
    }

    @Test func theVirtualClockBelongsToTheThreadThatAskedFirst() throws {
        let clock = VirtualClock()
        #expect(clock.inLoopThread)
        #expect(try !Self.fromAnotherThread(clock))
        clock.assertInLoop()
    }
}
