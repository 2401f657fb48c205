// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// The engine's events reach the loop, every one and in order, even when the loop is off the CPU
/// while an unpaced device takes audio as fast as the decoder makes it (ALSA's file and null
/// plugins; a real card's clock paces the threads, but a loop starved by the real-time audio
/// threads is the same case). A lost `queueFinished` left `kiosk-player play` waiting forever.
@Suite(.tags(.integration), .serialized) struct EngineEventDeliveryTests {
    /// A 16-bit mono WAV of `frames` frames at `rate` (a ramp, so no two blocks are alike).
    private func writeWAV(_ path: String, frames: Int, rate: Int) throws {
        var bytes: [UInt8] = []
        func le32(_ v: Int) { for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        func le16(_ v: Int) { for i in 0..<2 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        bytes += Array("RIFF".utf8)
        le32(36 + frames * 2)
        bytes += Array("WAVEfmt ".utf8)
        le32(16)
        le16(1)
        le16(1)
        le32(rate)
        le32(rate * 2)
        le16(2)
        le16(16)
        bytes += Array("data".utf8)
        le32(frames * 2)
        bytes.reserveCapacity(bytes.count + frames * 2)
        for i in 0..<frames { le16(i % 20000 - 10000) }
        try AtomicFile.replace(path, with: bytes)
    }

    /// Holds the loop thread, on the first track start, until the device has taken `frames` frames or
    /// has taken nothing new for 300 ms (an output that waits for the loop), at most 20 s.
    private func holdLoop(_ run: EngineRun, until device: CapturingOutput, hasTaken frames: Int) {
        var held = false
        run.recorder.after = { event in
            guard case .trackStarted = event, !held else { return }
            held = true
            var last = -1
            var still = 0
            for _ in 0..<2000 {
                let taken = device.framesTaken.load(ordering: .relaxed)
                if taken >= frames { return }
                still = taken == last ? still + 1 : 0
                if still >= 30 { return }
                last = taken
                usleep(10_000)
            }
        }
    }

    @Test func aLongTrackOnAnUnpacedDeviceEndsWithItsEventsWhileTheLoopIsBusy() throws {
        let dir = try TemporaryDirectory("kiosk-events")
        defer { dir.remove() }
        // 300 s at 8 kHz: 1 200 position reports (one per 250 ms of audio), more than the queue holds.
        let frames = 300 * 8000
        try writeWAV(dir.file("long.wav"), frames: frames, rate: 8000)
        let device = CapturingOutput()
        let run = try EngineRun(capturingTo: device)
        defer { run.shutdown() }
        holdLoop(run, until: device, hasTaken: frames)
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("long.wav"))], startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run(seconds: 60) { run.finished }, "the queue's end reached the loop")
        #expect(run.started() == [1])
        #expect(run.events.filter { $0 == .trackFinished(id: 1) }.count == 1)
        #expect(device.framesTaken.load(ordering: .relaxed) == frames)
    }

    @Test func shortTracksBackToBackReportEveryStartAndEndInOrderWhileTheLoopIsBusy() throws {
        let dir = try TemporaryDirectory("kiosk-events")
        defer { dir.remove() }
        // 1 500 tracks of 10 ms: 3 000 starts and ends, three times what the queue holds.
        let count = 1500
        try writeWAV(dir.file("short.wav"), frames: 80, rate: 8000)
        let device = CapturingOutput()
        let run = try EngineRun(capturingTo: device)
        defer { run.shutdown() }
        holdLoop(run, until: device, hasTaken: count * 80)
        let tracks = (1...count).map { TrackRequest(id: UInt64($0), path: dir.file("short.wav")) }
        run.engine.setQueue(tracks, startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run(seconds: 60) { run.finished }, "the queue's end reached the loop")
        var expected: [String] = []
        for id in 1...count { expected += ["start \(id)", "end \(id)"] }
        expected.append("done")
        let order = run.events.compactMap { event -> String? in
            switch event {
            case .trackStarted(let id, _, _, _): "start \(id)"
            case .trackFinished(let id): "end \(id)"
            case .queueFinished: "done"
            default: nil
            }
        }
        let firstDifference = Array(zip(order, expected)).firstIndex { $0 != $1 } ?? min(order.count, expected.count)
        #expect(
            order.count == expected.count && firstDifference == expected.count, "first difference at \(firstDifference)"
        )
        #expect(device.framesTaken.load(ordering: .relaxed) == count * 80)
    }

    @Test(arguments: [UInt64(7), 11, 13])
    func skipsAndSeeksDuringTheDrainsBetweenFormatsLeaveTheEngineToFinishTheQueue(seed: UInt64) throws {
        let dir = try TemporaryDirectory("kiosk-events")
        defer { dir.remove() }
        // Every track changes the format, so each ends in a drain of the device (the clock sink plays
        // a drain out in real time): the commands below land in those drains as well as in playback.
        try writeWAV(dir.file("a.wav"), frames: 4410, rate: 44100)
        try writeWAV(dir.file("b.wav"), frames: 4800, rate: 48000)
        let tracks = (1...12).map { TrackRequest(id: UInt64($0), path: dir.file($0 % 2 == 0 ? "a.wav" : "b.wav")) }
        let run = try EngineRun(settings: EngineRun.settings(device: "none"))
        defer { run.shutdown() }
        var random = seed &* 0x9E37_79B9_7F4A_7C15
        var commands = 0
        let storm = run.loop.schedule(afterMilliseconds: 23, repeatingMilliseconds: 23) {
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            switch random % 4 {
            case 0: run.engine.next()
            case 1: run.engine.previous()
            case 2: run.engine.seek(toFrame: Int64(random % 4000))
            default: break
            }
            commands += 1
        }
        run.engine.setQueue(tracks, startAt: 0, startFrame: 0)
        run.engine.play()
        try run.idle(1.5)
        run.loop.cancel(storm)
        #expect(commands > 30)
        // Then the rest plays out: the queue's end must come (at most 12 × 0.1 s of audio and drains).
        #expect(try run.run(seconds: 60) { run.finished }, "the queue finished after \(commands) commands")
        #expect(run.errors.isEmpty)
    }
}
