// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskCore
import KioskMPD
import KioskSystem
import KioskTestSupport
import Synchronization
import Testing

/// Many clients that hold the server's time or slots: command lists that never end, clients that
/// never send a whole line, never read, or never say anything. A fresh client is still answered at
/// once and the loop keeps turning. What is asserted is counted (answers, steps in a turn, turns put
/// off, the loop thread's CPU); the waits and stalls in milliseconds are printed, for a reader and
/// `make bench`, and judged nowhere: a busy machine stretches them.
@Suite(.tags(.integration), .serialized, Emulation.cpuBoundStress) struct MPDFairnessTests {
    /// The longest time between two ticks of a 1 ms timer on the loop while `body` runs.
    final class StallWatch {
        private(set) var longestGapNs: UInt64 = 0
        private var last = Syscalls.monotonicNanoseconds()
        private var timer: TimerID?
        private let loop: EventLoop

        init(_ loop: EventLoop) {
            self.loop = loop
            timer = loop.schedule(afterMilliseconds: 1, repeatingMilliseconds: 1) { [unowned self] in
                let now = Syscalls.monotonicNanoseconds()
                longestGapNs = max(longestGapNs, now - last)
                last = now
            }
        }

        func stop() {
            if let timer { loop.cancel(timer) }
            timer = nil
        }
    }

    /// `command_list_begin` and `count` commands, never ended (the tester's abusive client).
    static func unterminatedList(_ count: Int) -> [UInt8] {
        Array(("command_list_begin\n" + String(repeating: "add \"USBSTICK/Loose/untagged.flac\"\n", count: count)).utf8)
    }

    /// Milliseconds a fresh client waits for its `status`.
    static func freshStatusMilliseconds(_ path: String) throws -> Double {
        let start = Syscalls.monotonicNanoseconds()
        let client = try TestClient(unix: path)
        let answer = try client.command("status")
        guard answer.last == "OK" else { throw TestFailure("status: \(answer)") }
        return Double(Syscalls.monotonicNanoseconds() - start) / 1e6
    }

    /// CPU time `thread` has used, in milliseconds (its `pthread_getcpuclockid` clock).
    static func cpuMilliseconds(of thread: pthread_t) -> Double {
        var clock = clockid_t()
        var now = timespec()
        guard pthread_getcpuclockid(thread, &clock) == 0, clock_gettime(clock, &now) == 0 else { return 0 }
        return Double(now.tv_sec) * 1e3 + Double(now.tv_nsec) / 1e6
    }

    /// Sends what the socket takes now of `bytes[offset...]`; returns the new offset.
    static func sendSome(_ fd: Int32, _ bytes: [UInt8], from offset: Int) -> Int {
        let n = bytes.withUnsafeBytes { raw in
            Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
        }
        return n > 0 ? offset + n : offset
    }

    @Test func sixtyThreeUnterminatedCommandListsNeitherStallTheLoopNorDelayAFreshClient() throws {
        // 63 abusers, the fresh client, and the fresh client before it: the loop can take the next
        // connect before it sees that one's close (CI once refused a fresh client at 64).
        let h = try Harness { $0.maxClients = 65 }
        let path = h.socketPath
        let watch = StallWatch(h.loop)
        let (slowest, absorbedMs, held, fresh) = try h.client(timeoutSeconds: 300) {
            let abusers = try (0..<63).map { _ in try TestClient(unix: path) }
            let list = MPDFairnessTests.unterminatedList(4000)
            var sent = [Int](repeating: 0, count: abusers.count)
            var slowest = 0.0
            var fresh = 0
            let start = Syscalls.monotonicNanoseconds()
            // All 63 at once, as fast as the server takes them; a fresh client asks between rounds.
            while sent.contains(where: { $0 < list.count }) {
                for (i, abuser) in abusers.enumerated() where sent[i] < list.count {
                    sent[i] = MPDFairnessTests.sendSome(abuser.fd, list, from: sent[i])
                }
                slowest = max(slowest, try MPDFairnessTests.freshStatusMilliseconds(path))
                fresh += 1
            }
            // The last bytes are taken once a fresh client is answered after them.
            slowest = max(slowest, try MPDFairnessTests.freshStatusMilliseconds(path))
            let absorbedMs = Double(Syscalls.monotonicNanoseconds() - start) / 1e6
            for _ in 0..<10 {
                slowest = max(slowest, try MPDFairnessTests.freshStatusMilliseconds(path))
                Syscalls.sleep(nanoseconds: 20_000_000)
            }
            return (slowest, absorbedMs, abusers.count, fresh)
        }
        watch.stop()
        let gap = Double(watch.longestGapNs) / 1e6
        print(
            "mpd fairness: 63 unterminated lists of 4000 commands taken in \(absorbedMs) ms; loop stalled at most \(gap) ms, fresh status at most \(slowest) ms"
        )
        #expect(held == 63)
        // A fresh client was answered in every round while the lists were still coming in, and no
        // turn of the loop took more than its share of steps: the loop kept turning.
        #expect(fresh > 0)
        #expect(h.server.statistics.mostStepsInOneTurn <= h.server.settings.maxStepsPerTurn)
    }

    @Test func clientsWithQueuedWorkTogetherTakeOnlyTheirShareOfTheLoop() throws {
        // Turns of up to 5 ms each: 40 clients with work queued would hold the loop 200 ms a round
        // without the share; with it they take 10 ms of every 25 ms together.
        let h = try Harness {
            $0.maxClients = 64
            $0.maxStepsPerTurn = 1_000_000
            $0.maxMicrosecondsPerTurn = 5000
            $0.backlogWindowMilliseconds = 25
            $0.backlogMillisecondsPerWindow = 10
        }
        let path = h.socketPath
        let watch = StallWatch(h.loop)
        try h.client(timeoutSeconds: 300) {
            let clients = try (0..<40).map { _ in try TestClient(unix: path) }
            let list = MPDFairnessTests.unterminatedList(4000)
            var sent = [Int](repeating: 0, count: clients.count)
            while sent.contains(where: { $0 < list.count }) {
                for (i, client) in clients.enumerated() where sent[i] < list.count {
                    sent[i] = MPDFairnessTests.sendSome(client.fd, list, from: sent[i])
                }
                Syscalls.sleep(nanoseconds: 1_000_000)
            }
            // Everything taken once a ping behind all of it is answered on each.
            for client in clients { try client.send("ping\n") }
            _ = try MPDFairnessTests.freshStatusMilliseconds(path)
            Syscalls.sleep(nanoseconds: 500_000_000)
        }
        watch.stop()
        let gap = Double(watch.longestGapNs) / 1e6
        print(
            "mpd fairness: 40 lists with 5 ms turns: loop late at most \(gap) ms, \(h.server.statistics.deferredTurns) turns put off"
        )
        // The share engaged: turns of the backlog were put off for the loop's other work.
        #expect(h.server.statistics.deferredTurns > 0)
    }

    @Test func collectingACommandListCostsTheSameForEachLineHoweverLongTheListIs() throws {
        let h = try Harness {
            $0.maxCommandListCommands = 40_000
            $0.maxCommandListBytes = 4 << 20
        }
        // The loop thread's CPU time, not the wall clock's: another process's load does not add to it.
        let loopThread = pthread_self()
        let (short, long) = try h.withClient(timeoutSeconds: 300) { c in
            func milliseconds(_ count: Int) throws -> Double {
                let start = Self.cpuMilliseconds(of: loopThread)
                let answer = try c.command(
                    "command_list_begin\n" + String(repeating: "ping\n", count: count) + "command_list_end")
                guard answer == ["OK"] else { throw TestFailure("a list of \(count) pings: \(answer.suffix(2))") }
                return Self.cpuMilliseconds(of: loopThread) - start
            }
            _ = try milliseconds(4000)  // warm up
            return (try milliseconds(4000), try milliseconds(32_000))
        }
        print("mpd fairness: a list of 4000 pings in \(short) ms of the loop's CPU, of 32000 in \(long) ms")
        // Eight times the lines: about eight times the time when linear, 64 times when quadratic.
        #expect(long < max(short, 5) * 20, "4000 lines: \(short) ms, 32000 lines: \(long) ms")
    }

    @Test func aBurstOfThousandsOfLinesIsTakenAFewStepsPerTurnOfTheLoop() throws {
        let h = try Harness()
        let answers = try h.withClient { c in
            try c.send(String(repeating: "ping\n", count: 3000))
            return try (0..<3000).map { _ in try c.response() }.filter { $0 == ["OK"] }.count
        }
        #expect(answers == 3000)
        #expect(h.server.statistics.mostStepsInOneTurn <= h.server.settings.maxStepsPerTurn)
        print("mpd fairness: 3000 pipelined pings, at most \(h.server.statistics.mostStepsInOneTurn) steps in one turn")
    }

    @Test func aClientTricklingALineByteByByteIsDroppedAtTheTimeout() throws {
        let h = try Harness { $0.idleTimeoutSeconds = 1 }
        let droppedAfterMs = try h.withClient { c in
            let start = Syscalls.monotonicNanoseconds()
            // One byte every 150 ms of a line that never ends, for up to 6 s.
            for i in 0..<40 {
                _ = try sendAll(c.fd, [Array("status".utf8)[i % 6]], timeoutMs: 100)
                var pfd = pollfd(fd: c.fd, events: Int16(POLLIN), revents: 0)
                if poll(&pfd, 1, 150) > 0 {
                    var byte: UInt8 = 0
                    if recv(c.fd, &byte, 1, 0) <= 0 { return Double(Syscalls.monotonicNanoseconds() - start) / 1e6 }
                }
            }
            return -1.0
        }
        #expect(droppedAfterMs > 900, "dropped after \(droppedAfterMs) ms")
        #expect(h.server.statistics.closedTimeout == 1)
        print("mpd fairness: a trickling client was dropped after \(droppedAfterMs) ms (timeout 1 s)")
    }

    @Test func aClientWaitingInIdleIsKeptPastTheTimeoutAndAnsweredAfterIt() throws {
        let h = try Harness { $0.idleTimeoutSeconds = 1 }
        let answer = try h.withClient { c in
            try c.send("idle\n")
            Syscalls.sleep(nanoseconds: 2_500_000_000)
            return try c.command("noidle") + c.command("ping")
        }
        #expect(answer == ["OK", "OK"])
        #expect(h.server.statistics.closedTimeout == 0)
    }

    @Test func newClientsTakeTheSlotsOfTheClientsInactiveLongestAndTricklingIsNotActivity() throws {
        let h = try Harness(maxClients: 4, evictInactiveAfterMilliseconds: 300)
        let path = h.socketPath
        let (statuses, stillThere) = try h.client {
            // Trickling (never a whole line), silent, an unterminated list, and one that never reads.
            let trickle = try TestClient(unix: path)
            let silent = try TestClient(unix: path)
            let list = try TestClient(unix: path)
            let deaf = try TestClient(unix: path)
            try list.send("command_list_begin\n")
            for step in 0..<5 {
                try trickle.send("s")
                if step == 2 {
                    try list.send("status\n")
                    try deaf.send("status\n")
                }
                Syscalls.sleep(nanoseconds: 100_000_000)
            }
            // The trickler, then the silent client, have been inactive longest: two newcomers take
            // their places.
            let newcomers = try (0..<2).map { _ in try TestClient(unix: path) }
            let statuses = try newcomers.map { try $0.command("status").last }
            return (statuses, [trickle, silent, list, deaf].map { !$0.isClosedByServer(waitingMs: 200) })
        }
        #expect(statuses == ["OK", "OK"])
        #expect(stillThere == [false, false, true, true])
        #expect(h.server.statistics.evicted == 2)
        #expect(h.server.statistics.refused == 0)
    }

    @Test func clientsWaitingInIdleKeepTheirSlotsAndANewcomerIsRefused() throws {
        let h = try Harness(maxClients: 2, evictInactiveAfterMilliseconds: 100)
        let path = h.socketPath
        let (refused, answers) = try h.client {
            let idlers = try (0..<2).map { _ in try TestClient(unix: path) }
            for idler in idlers { try idler.send("idle\n") }
            Syscalls.sleep(nanoseconds: 400_000_000)
            let newcomer = try TestClient(unix: path, readGreeting: false)
            let refused = newcomer.isClosedByServer(waitingMs: 2000)
            return (refused, try idlers.map { try $0.command("noidle") })
        }
        #expect(refused)
        #expect(answers == [["OK"], ["OK"]])
        #expect(h.server.statistics.evicted == 0)
    }
}

extension Harness {
    /// A harness whose server takes `maxClients` and may evict one inactive that long.
    convenience init(maxClients: Int, evictInactiveAfterMilliseconds: Int) throws {
        try self.init {
            $0.maxClients = maxClients
            $0.evictInactiveAfterMilliseconds = evictInactiveAfterMilliseconds
        }
    }
}
