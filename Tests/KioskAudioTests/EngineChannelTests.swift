// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem
import KioskTestSupport
import Synchronization
import Testing

@testable import KioskAudio

private let cd = PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16)

/// The engine's typed channel: commands to the audio threads and events back, each a value through
/// a preallocated queue (EngineChannel.swift).
@Suite struct EngineChannelTests {
    private final class Tracked {
        let onRelease: () -> Void
        init(onRelease: @escaping () -> Void) { self.onRelease = onRelease }
        deinit { onRelease() }
    }

    @Test func aQueueOfReferencesHandsEachOverOnceAndReleasesWhatItStillHoldsWhenDropped() {
        var released = 0
        var queue: SPSCQueue<Tracked>? = SPSCQueue(capacity: 4)
        for _ in 0..<3 { queue?.push(Tracked { released += 1 }) }
        var taken = queue?.pop()
        #expect(taken != nil)
        #expect(released == 0, "a popped element is the taker's")
        taken = nil
        #expect(released == 1)
        queue = nil
        #expect(released == 3, "the two left in the queue go with it")
    }

    @Test func commandsThatFindTheQueueFullWaitOnTheLoopSideAndArriveInOrder() {
        let commands = CommandQueue<Int>(capacity: 2, wake: EventCount())
        #expect(commands.send(0))
        #expect(commands.send(1))
        #expect(!commands.send(2), "the queue is full: the command waits in the backlog")
        #expect(!commands.send(3))
        #expect(commands.hasBacklog)
        var received: [Int] = []
        while let command = commands.receive() { received.append(command) }
        #expect(commands.flush(), "the backlog fits now")
        while let command = commands.receive() { received.append(command) }
        #expect(received == [0, 1, 2, 3])
        #expect(!commands.hasBacklog)
    }

    /// A device that hangs keeps the output thread from its commands: the loop goes on (the test
    /// thread is the loop; it would hang here otherwise), and once the device takes audio again every
    /// command takes effect in the order given: the fade sent after 600 volume changes silences the rest.
    @Test func commandsSentWhileTheOutputIsStuckAllTakeEffectInOrderAfterIt() throws {
        let dir = try TemporaryDirectory("kiosk-channel")
        defer { dir.remove() }
        _ = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 44100)
        let device = CapturingOutput()
        // Paced: the commands arrive while the track still plays.
        device.paced = true
        device.stallAfterFrames.store(4096, ordering: .releasing)
        var settings = EngineRun.settings(device: "capture")
        settings.makeOutput = { _ in device }
        let run = try EngineRun(settings: settings)
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        // The stall wakes no loop: a tick looks for it.
        let tick = run.loop.schedule(afterMilliseconds: 1, repeatingMilliseconds: 1) {}
        #expect(try run.run { device.stalled.load(ordering: .acquiring) })
        run.loop.cancel(tick)
        for step in 0..<600 { run.engine.setVolume(100 - step % 50) }
        run.engine.fadeOut(overMilliseconds: 1)
        device.stallAfterFrames.store(Int.max, ordering: .releasing)
        #expect(try run.run { run.finished })
        run.shutdown()
        let captured = Fixtures.parse(device.captured, width: 2, significantBits: 32)
        #expect(captured.count == 44100 * 2, "every frame went out")
        #expect(
            captured.suffix(44100 * 2 - 20000).allSatisfy { $0 == 0 },
            "the fade came after the volumes (last sound at \(captured.lastIndex { $0 != 0 } ?? -1) of \(captured.count))"
        )
    }
}
