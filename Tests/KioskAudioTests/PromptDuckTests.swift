// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// A prompt spoken with `duckDb` while a track plays: the track goes on under it, lowered, and the
/// prompt is added to its samples (`speech.duck`). Each capture is checked against the gain and the
/// sum worked out by hand.
@Suite struct PromptDuckTests {
    static let cd = PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16)
    /// −15 dB in the engine's Q16 gain.
    static let duck = SampleConverter.gain(scale: Float(pow(10, -15.0 / 20)))
    /// The duck's ramp down and up (30 ms at 44.1 kHz) and a block of slack.
    static let rampFrames = 1323 + 8

    /// A track sample lowered by the duck with the prompt's sample added, as the output does it:
    /// left-justified 32-bit, gain in Q16, sum clamped at full scale.
    static func mixedByHand(track: Int32, prompt: Int16) -> Int16 {
        let lowered = (Int64(track << 16) * Int64(duck)) >> 16
        let sum = Int64(Int32(clamping: lowered)) + Int64(Int32(prompt) << 16)
        return Int16(truncatingIfNeeded: Int32(clamping: sum) >> 16)
    }

    /// A prompt at the track's rate (no resampling), so its samples reach the device as made.
    static func prompt(frames: Int) -> SpokenPCM {
        let samples = (0..<frames).map { Int16(truncatingIfNeeded: Int(6000 * cos(Double($0) * 0.05))) }
        return SpokenPCM(text: "tone", samples: samples, sampleRate: 44100)
    }

    @Test func aDuckedPromptIsAddedToTheLoweredTrackWhichNeverPauses() throws {
        let dir = try TemporaryDirectory("kiosk-duck")
        defer { dir.remove() }
        let track = try Fixtures.makeTrack(dir.file("a.flac"), format: Self.cd, frames: 88200)
        let device = CapturingOutput()
        device.paced = true
        let run = try EngineRun(capturingTo: device)
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        try run.run { device.framesTaken.load(ordering: .relaxed) > 22050 }
        let pcm = Self.prompt(frames: 22050)
        var spoken: String?? = .none
        run.engine.speak(pcm, volume: 100, duckDb: -15) { spoken = .some($0) }
        #expect(try run.run(seconds: 60) { run.finished && spoken != nil })
        run.shutdown()
        #expect(spoken == .some(nil), "spoken without a failure")

        let captured = device.captured.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let expected = track.map { Int16(truncatingIfNeeded: $0) }
        #expect(captured.count == expected.count, "the track never paused: no frame more or less")
        // The duck and the prompt start together, at the first sample that leaves the track.
        var start = 0
        while start < expected.count, captured[start] == expected[start] { start += 1 }
        start -= start % 2
        #expect(start >= 22050 * 2 && start + 22050 * 2 < expected.count, "the prompt came mid-track")
        let end = start / 2 + pcm.samples.count
        var mismatches = 0
        for frame in (start / 2 + Self.rampFrames)..<end {
            for channel in 0..<2 {
                let i = frame * 2 + channel
                let want = Self.mixedByHand(track: track[i], prompt: pcm.samples[frame - start / 2])
                if captured[i] != want { mismatches += 1 }
            }
        }
        #expect(mismatches == 0, "under the prompt: the track at −15 dB plus the prompt, sample for sample")
        let after = (end + Self.rampFrames) * 2
        #expect(Array(captured[after...]) == Array(expected[after...]), "back to bit-exact once the duck is up")
    }

    @Test func aDuckedPromptWhoseTrackEndsUnderItPlaysItsRestAlone() throws {
        let dir = try TemporaryDirectory("kiosk-duck")
        defer { dir.remove() }
        let track = try Fixtures.makeTrack(dir.file("a.flac"), format: Self.cd, frames: 33075)
        let device = CapturingOutput()
        device.paced = true
        let run = try EngineRun(capturingTo: device)
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        try run.run { device.framesTaken.load(ordering: .relaxed) > 22050 }
        let pcm = Self.prompt(frames: 44100)
        var spoken = false
        run.engine.speak(pcm, volume: 100, duckDb: -15) { _ in spoken = true }
        #expect(try run.run(seconds: 60) { run.finished && spoken })
        try run.idle(0.05)
        run.shutdown()

        let captured = device.captured.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let expected = track.map { Int16(truncatingIfNeeded: $0) }
        var start = 0
        while start < expected.count, captured[start] == expected[start] { start += 1 }
        start -= start % 2
        let mixedFrames = expected.count / 2 - start / 2
        #expect(mixedFrames > 0 && mixedFrames < pcm.samples.count, "the track ended under the prompt")
        #expect(captured.count == expected.count + (pcm.samples.count - mixedFrames) * 2, "the rest came after")
        let rest = Array(captured[expected.count...])
        let alone = pcm.samples[mixedFrames...].flatMap { [$0, $0] }
        #expect(rest == alone, "the prompt's rest, alone, as made")
    }

    @Test func aPromptWithoutDuckStillPausesTheTrack() throws {
        let dir = try TemporaryDirectory("kiosk-duck")
        defer { dir.remove() }
        let track = try Fixtures.makeTrack(dir.file("a.flac"), format: Self.cd, frames: 44100)
        let device = CapturingOutput()
        device.paced = true
        let run = try EngineRun(capturingTo: device)
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        try run.run { device.framesTaken.load(ordering: .relaxed) > 11025 }
        let pcm = Self.prompt(frames: 4410)
        var spoken = false
        run.engine.speak(pcm, volume: 100) { _ in spoken = true }
        #expect(try run.run(seconds: 60) { run.finished && spoken })
        run.shutdown()
        let captured = device.captured.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(captured.count == (track.count + 4410 * 2), "the prompt's frames came between the track's")
    }
}
