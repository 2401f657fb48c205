// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import Testing

/// `EmbeddedLoop`: a loop that runs what was scheduled, posted or made ready only when the test
/// says `run()` or `advanceTime(by:)`.
@Suite struct EmbeddedLoopTests {
    @Test func timersRunOnlyWhenTimeIsAdvancedInDeadlineOrderAtTheirDeadline() throws {
        let loop = try EmbeddedLoop()
        let start = loop.nowNanoseconds
        var ran: [(String, UInt64)] = []
        loop.schedule(afterMilliseconds: 30) { ran.append(("late", loop.nowNanoseconds - start)) }
        loop.schedule(afterMilliseconds: 10) { ran.append(("early", loop.nowNanoseconds - start)) }
        loop.run()
        #expect(ran.isEmpty, "nothing is due yet")
        loop.advanceTime(byMilliseconds: 29)
        #expect(ran.map(\.0) == ["early"])
        #expect(ran.first?.1 == 10_000_000, "the clock reads the timer's deadline while it runs")
        loop.advanceTime(byMilliseconds: 1)
        #expect(ran.map(\.0) == ["early", "late"])
        #expect(loop.nowNanoseconds - start == 30_000_000)
    }

    @Test func aTimerScheduledByATimerRunsWithinTheSameAdvanceWhenItFallsDue() throws {
        let loop = try EmbeddedLoop()
        var ticks = 0
        loop.schedule(afterMilliseconds: 5) {
            ticks += 1
            loop.schedule(afterMilliseconds: 5) { ticks += 1 }
        }
        loop.advanceTime(byMilliseconds: 10)
        #expect(ticks == 2)
    }

    @Test func aRepeatingTimerRunsOncePerIntervalAndNotAfterItIsCancelled() throws {
        let loop = try EmbeddedLoop()
        var ticks = 0
        let timer = loop.schedule(afterMilliseconds: 100, repeatingMilliseconds: 100) { ticks += 1 }
        loop.advanceTime(byMilliseconds: 1_000)
        #expect(ticks == 10)
        loop.cancel(timer)
        loop.advanceTime(byMilliseconds: 1_000)
        #expect(ticks == 10)
        #expect(loop.pendingTimers == 0)
    }

    @Test func aSourceRunsAtRunOnlyWhileItsDescriptorIsReady() throws {
        let loop = try EmbeddedLoop()
        let fd = try Syscalls.eventfdCreate()
        defer { close(fd) }
        var reads: [UInt64] = []
        let source = try loop.addSource(fd: fd, events: .readable) { _ in reads.append(Syscalls.readCounter(fd)) }
        loop.run()
        #expect(reads.isEmpty, "not readable")
        Syscalls.eventfdSignal(fd)
        Syscalls.eventfdSignal(fd)
        #expect(reads.isEmpty, "nothing runs until the test says so")
        loop.run()
        #expect(reads == [2])
        loop.removeSource(source)
        Syscalls.eventfdSignal(fd)
        loop.run()
        #expect(reads == [2], "a removed source is not watched")
    }

    @Test func closuresPostedFromAnotherThreadRunAtTheNextRunOnTheLoopThread() throws {
        let loop = try EmbeddedLoop()
        var onLoop: [Bool] = []
        let mailbox = Mailbox<Int>(loop: loop) { _ in onLoop.append(loop.inLoopThread) }
        let thread = try KioskThread(name: "poster") {
            mailbox.send(1)
            mailbox.send(2)
        }
        thread.join()
        #expect(onLoop.isEmpty)
        loop.run()
        #expect(onLoop == [true, true])
    }

    @Test func aSignalHandlerRunsWhenTheTestDeliversTheSignal() throws {
        let loop = try EmbeddedLoop()
        var received: [Int32] = []
        loop.onSignal(SIGTERM) { received.append($0.signal) }
        loop.deliver(signal: SIGTERM)
        #expect(received == [SIGTERM])
    }
}
