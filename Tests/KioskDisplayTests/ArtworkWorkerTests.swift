// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import Testing

@testable import KioskDisplay

/// The artwork worker across its thread: a burst of requests from the loop thread while it
/// decodes, and a stop while it is busy. Each request is answered once (a picture, or "dropped"
/// when too many were queued); the answers arrive on the loop thread; stop returns.
@Suite struct ArtworkWorkerTests {
    /// A 64×64 cover (the encoder's input is fixed: it encodes).
    private static let png = try! ImageEncoder.png(Image(width: 64, height: 64, color: Color(rgb: 0x10C020)))

    @Test func everyRequestOfABurstIsAnsweredOnceOnTheLoopThread() throws {
        let loop = try EventLoop()
        var answers: [String: Int] = [:]
        var decoded = 0
        var dropped = 0
        let mailbox = Mailbox<ArtworkResult>(loop: loop) { result in
            answers[result.key, default: 0] += 1
            if result.dropped { dropped += 1 } else if result.image != nil { decoded += 1 }
        }
        let worker = try ArtworkWorker(limits: .default, deliver: mailbox)
        defer { worker.stop() }
        let total = 500
        for i in 0..<total {
            worker.request(
                ArtworkWorker.Job(key: "cover-\(i)", size: Size(width: 32, height: 32)) { ArtworkWorkerTests.png })
            if i % 50 == 0 { try loop.runOnce(timeoutMilliseconds: 0) }
        }
        let done = try loop.run(until: { answers.count == total }, timeoutNanoseconds: 60_000_000_000)
        #expect(done, "\(answers.count) of \(total) answered")
        #expect(answers.values.allSatisfy { $0 == 1 }, "each request answered once")
        #expect(decoded + dropped == total)
        #expect(decoded >= ArtworkWorker.maxQueued, "the newest requests were decoded")
    }

    @Test func stoppingWhileBusyReturnsAndNothingArrivesAfter() throws {
        let loop = try EventLoop()
        var afterStop = 0
        var stopped = false
        let mailbox = Mailbox<ArtworkResult>(loop: loop) { _ in if stopped { afterStop += 1 } }
        let worker = try ArtworkWorker(limits: .default, deliver: mailbox)
        for i in 0..<40 {
            worker.request(
                ArtworkWorker.Job(key: "cover-\(i)", size: Size(width: 48, height: 48)) { ArtworkWorkerTests.png })
        }
        worker.stop()
        try loop.run(forNanoseconds: 50_000_000)  // what the worker sent before it stopped
        stopped = true
        worker.stop()  // a second stop is harmless
        try loop.run(forNanoseconds: 100_000_000)
        #expect(afterStop == 0)
    }
}
