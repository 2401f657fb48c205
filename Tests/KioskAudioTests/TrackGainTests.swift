// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

private let cd = PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16)

/// A 16-bit sample at `scale`, worked out by hand: the scale in 1/65536 steps, the product rounded
/// down, held within 16 bits.
private func byHand(_ sample: Int32, scale: Float) -> Int32 {
    let steps = Int64((Double(scale) * 65536).rounded())
    let product = Int64(sample) * steps
    let floored = product >= 0 ? product / 65536 : -((-product + 65535) / 65536)
    return Int32(max(-32768, min(32767, floored)))
}

/// The track's gain (`TrackRequest.gain`, the player's ReplayGain) as the engine applies it.
@Suite(.tags(.integration), .serialized, .enabled(if: Fixtures.hasFlac, "needs the flac tool (apt-get install flac)"))
struct TrackGainTests {
    private func play(_ tracks: [TrackRequest], on device: CapturingOutput) throws -> EngineRun {
        let run = try EngineRun(capturingTo: device)
        defer { run.shutdown() }
        run.engine.setQueue(tracks, startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { run.finished })
        return run
    }

    @Test func aTracksGainScalesEverySampleAsWorkedOutByHand() throws {
        let dir = try TemporaryDirectory("kiosk-gain")
        defer { dir.remove() }
        let samples = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 20000)
        let device = CapturingOutput()
        _ = try play([TrackRequest(id: 1, path: dir.file("a.flac"), gain: 0.3)], on: device)
        expectSameSamples(device.captured, Fixtures.bytes(samples.map { byHand($0, scale: 0.3) }, width: 2))
    }

    @Test func aGainAboveOneHoldsSamplesAtFullScaleInsteadOfWrappingAround() throws {
        let dir = try TemporaryDirectory("kiosk-gain")
        defer { dir.remove() }
        let samples = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 20000)
        let device = CapturingOutput()
        _ = try play([TrackRequest(id: 1, path: dir.file("a.flac"), gain: 5)], on: device)
        let expected = samples.map { byHand($0, scale: 5) }
        #expect(expected.contains(32767) && expected.contains(-32768), "the signal does reach full scale")
        expectSameSamples(device.captured, Fixtures.bytes(expected, width: 2))
    }

    @Test func aGainOfOneLeavesTheSamplesBitPerfect() throws {
        let dir = try TemporaryDirectory("kiosk-gain")
        defer { dir.remove() }
        let samples = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 20000)
        let device = CapturingOutput()
        _ = try play([TrackRequest(id: 1, path: dir.file("a.flac"), gain: 1)], on: device)
        expectSameSamples(device.captured, Fixtures.bytes(samples, width: 2))
    }

    @Test func theNextTracksGainStartsOnItsFirstFrameOfAGaplessJoin() throws {
        let dir = try TemporaryDirectory("kiosk-gain")
        defer { dir.remove() }
        let signal = Fixtures.signal(frames: 60000, channels: 2, bits: 16, seed: 5)
        let cut = 22050 + 777
        try Fixtures.encode(Array(signal[..<(cut * 2)]), format: cd, to: dir.file("1.flac"))
        try Fixtures.encode(Array(signal[(cut * 2)...]), format: cd, to: dir.file("2.flac"))
        let device = CapturingOutput()
        let run = try play(
            [
                TrackRequest(id: 1, path: dir.file("1.flac"), gain: 1),
                TrackRequest(id: 2, path: dir.file("2.flac"), gain: 0.5),
            ], on: device)
        #expect(run.deviceFormats == ["S16_LE 44100 Hz 2 ch"], "one device set-up for both tracks")
        let expected = Array(signal[..<(cut * 2)]) + signal[(cut * 2)...].map { byHand($0, scale: 0.5) }
        expectSameSamples(device.captured, Fixtures.bytes(expected, width: 2))
    }

    /// Through the resampler, which still holds the end of the first track when the second one's
    /// marker is read: the change waits for those frames.
    @Test func theNextTracksGainWaitsForTheFramesTheResamplerStillHolds() throws {
        let dir = try TemporaryDirectory("kiosk-gain")
        defer { dir.remove() }
        let level: Int32 = 8192
        let frames = 44100
        let constant = [Int32](repeating: level, count: frames * 2)
        try Fixtures.encode(constant, format: cd, to: dir.file("1.flac"))
        try Fixtures.encode(constant, format: cd, to: dir.file("2.flac"))
        let device = CapturingOutput(rates: [48000])
        _ = try play(
            [
                TrackRequest(id: 1, path: dir.file("1.flac"), gain: 1),
                TrackRequest(id: 2, path: dir.file("2.flac"), gain: 0.5),
            ], on: device)
        let out = Fixtures.parse(device.captured, width: 4, significantBits: 32).map { Double($0) / 65536 }
        let border = 48000  // the first track's length at the device's rate
        #expect(abs(out.count / 2 - 2 * border) <= 64)
        // The level falls through its midpoint (the filter's step response centres on the change).
        let crossing = stride(from: 0, to: out.count, by: 2).first { out[$0] < Double(level) * 0.75 }.map { $0 / 2 }
        #expect(crossing.map { abs($0 - border) <= 2 } == true, "crossing at \(crossing ?? -1), border \(border)")
        let after = stride(from: 2 * (border + 2000), to: 2 * (border + 3000), by: 2).map { out[$0] }
        #expect(after.allSatisfy { abs($0 - Double(level) / 2) < 8 }, "the second track at its gain")
    }
}
