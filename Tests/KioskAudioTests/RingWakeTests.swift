// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskAudio

private let cd = PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16)

/// How the decoder and output threads wake each other through the ring: at its levels and at the
/// stream's edges, not at every block or write; and how the ring is sized to the stream it holds.
@Suite(.tags(.integration), .serialized, .enabled(if: Fixtures.hasFlac, "needs the flac tool (apt-get install flac)"))
struct RingWakeTests {
    /// A one-track queue shorter than the ring: the decoder queues its end at once and waits idle
    /// while the track plays. The output's writes wake it when the free space crosses the ring's
    /// quarter (once), not at each of its ~40 writes.
    @Test func anIdleDecoderIsNotWokenByEachWriteOfTheOutput() throws {
        let dir = try TemporaryDirectory("kiosk-wake-idle")
        defer { dir.remove() }
        try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 22050, seed: 2)
        let device = CapturingOutput()
        device.paced = true
        let run = try EngineRun(capturingTo: device)
        defer { run.shutdown() }
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { run.finished })
        run.shutdown()
        let counts = run.engine.steadyStateCounts
        #expect(device.captured.count == 22050 * 4, "every frame played")
        // The queue given (from idle) and the pops of the start and end markers; the free space
        // was above the ring's quarter (8192 frames) from the start, so no write crossed it.
        #expect(counts.decoderWakeups <= 6, "decoder woken \(counts.decoderWakeups) times for 43 writes")
    }

    /// FLAC blocks of 192 frames into an output that never waits on its device: the output waits for
    /// frames again and again, and is woken once a batch (`consumerWakeFrames`, 1024) is there, not
    /// for every block the decoder publishes.
    @Test func aWaitingOutputIsWokenForABatchOfFramesNotForEachBlock() throws {
        let dir = try TemporaryDirectory("kiosk-wake-batch")
        defer { dir.remove() }
        let frames = 44100
        let signal = Fixtures.signal(frames: frames, channels: 2, bits: 16, seed: 4)
        try Fixtures.encode(signal, format: cd, to: dir.file("a.flac"), blockSize: 192)
        let device = CapturingOutput()
        let run = try EngineRun(capturingTo: device)
        defer { run.shutdown() }
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { run.finished })
        run.shutdown()
        expectSameSamples(device.captured, Fixtures.bytes(signal, width: 2), "every frame once, in order")
        let wakeups = run.engine.steadyStateCounts.outputWakeups
        // 230 blocks; at most one wake per 1024 frames, and those of the commands and markers.
        #expect(wakeups <= UInt64(frames / 1024 + 8), "output woken \(wakeups) times for 230 blocks")
    }

    /// A last track shorter than the output's batch: the end of the stream wakes the output for
    /// what there is, and every frame plays.
    @Test func aPartialBatchAtTheEndOfTheStreamPlays() throws {
        let dir = try TemporaryDirectory("kiosk-wake-end")
        defer { dir.remove() }
        let signal = Fixtures.signal(frames: 300, channels: 2, bits: 16, seed: 6)
        try Fixtures.encode(signal, format: cd, to: dir.file("a.flac"), blockSize: 192)
        let device = CapturingOutput()
        device.paced = true
        let run = try EngineRun(capturingTo: device)
        defer { run.shutdown() }
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run(seconds: 5) { run.finished })
        run.shutdown()
        expectSameSamples(device.captured, Fixtures.bytes(signal, width: 2))
    }

    /// Gapless CD → 96 kHz/24-bit → CD: the ring is sized to each stream (0.5 s of it, a power of two
    /// of frames), growing for the 96 kHz track and giving that memory back after it, while every
    /// track plays every frame on a device set up for its format.
    @Test func theRingGrowsForALargerFormatMidQueueAndShrinksAfterIt() throws {
        let dir = try TemporaryDirectory("kiosk-ring-grow")
        defer { dir.remove() }
        let hires = PCMFormat(sampleRate: 96000, channels: 2, bitsPerSample: 24)
        // Each longer than its ring (32 768 and 65 536 frames), so each ring is filled all round.
        let tracks = [(cd, 44100), (hires, 96000), (cd, 20000)]
        var expected: [UInt8] = []
        var paths: [String] = []
        for (i, (format, frames)) in tracks.enumerated() {
            let path = dir.file("\(i).flac")
            let samples = try Fixtures.makeTrack(path, format: format, frames: frames, seed: UInt64(10 + i))
            expected += Fixtures.deviceBytes(
                samples, bits: format.bitsPerSample, encoding: format.bitsPerSample > 16 ? .s32 : .s16)
            paths.append(path)
        }
        // 16- and 32-bit containers only: the 24-bit track arrives as the ring holds it.
        let device = CapturingOutput(accepted: [.s16, .s32])
        device.paced = true
        let run = try EngineRun(capturingTo: device)
        defer { run.shutdown() }
        let ring = run.engine.ring
        // The ring's size when each track starts playing (the decoder cannot change it before the
        // output has played the previous format out).
        var sizes: [Int] = []
        run.recorder.after = { event in
            if case .trackStarted = event { sizes.append(ring.usedBytes) }
        }
        run.engine.setQueue(
            paths.enumerated().map { TrackRequest(id: UInt64($0.offset + 1), path: $0.element) }, startAt: 0,
            startFrame: 0)
        run.engine.play()
        #expect(try run.run { run.finished })
        run.shutdown()
        #expect(sizes == [32768 * 4, 65536 * 8, 32768 * 4], "0.5 s of each stream, rounded up to a power of two")
        #expect(ring.byteCapacity == 1 << 20, "reserved once for 0.5 s of 192 kHz 32-bit stereo")
        #expect(device.configurations.map(\.format.sampleRate) == [44100, 96000, 44100])
        expectSameSamples(device.captured, expected, "every frame of every track, in order")
    }
}
