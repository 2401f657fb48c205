// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskModel
import KioskSystem
import KioskTestSupport
import Synchronization
import Testing

/// The loudness of `samples` (root mean square, in full-scale 16-bit units).
private func rms(_ samples: [Int16]) -> Double {
    guard !samples.isEmpty else { return 0 }
    let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
    return (sum / Double(samples.count)).squareRoot()
}

/// Speaks `text` through a `Speaker` on `loop` and returns its outcome.
private func speak(_ speaker: Speaker, _ loop: EventLoop, _ text: String, voice: String, outcomes: Outcomes) throws
    -> Result<SpokenPCM, SpeechError>?
{
    let before = outcomes.all.count
    speaker.say(text, voice: voice)
    try loop.run(until: { outcomes.all.count > before }, timeoutNanoseconds: 30_000_000_000)
    return outcomes.all.count > before ? outcomes.all.last : nil
}

private final class Outcomes {
    var all: [Result<SpokenPCM, SpeechError>] = []
}

/// libespeak-ng is one per process: these run one at a time, and those that make a `Speaker`
/// hold `EspeakTestLock` against other suites.
@Suite(.serialized) struct SpokenPromptTests {
    @Test func aSentenceBecomesAudiblePCMOfAPlausibleLength() throws {
        try EspeakTestLock.run { try aSentenceBecomesAudiblePCMOfAPlausibleLengthBody() }
    }

    private func aSentenceBecomesAudiblePCMOfAPlausibleLengthBody() throws {
        let loop = try EventLoop()
        let outcomes = Outcomes()
        let speaker = try Speaker(loop: loop, helper: .binary(TestPaths.playerBinary)) { outcomes.all.append($0) }
        defer { speaker.stop() }
        let text = "New card. Hold the big button to link it to The Gruffalo."
        let pcm = try #require(try speak(speaker, loop, text, voice: "en", outcomes: outcomes)).get()
        #expect(pcm.sampleRate == 22050)
        let seconds = Double(pcm.samples.count) / Double(pcm.sampleRate)
        // About 2.5 words a second at espeak-ng's default 175 words a minute: 12 words.
        #expect(seconds > 2 && seconds < 8, "\(seconds) s")
        #expect(rms(pcm.samples) > 500, "not silent")
    }

    @Test func anUnknownVoiceIsAnErrorNamingIt() throws {
        try EspeakTestLock.run { try anUnknownVoiceIsAnErrorNamingItBody() }
    }

    private func anUnknownVoiceIsAnErrorNamingItBody() throws {
        let loop = try EventLoop()
        let outcomes = Outcomes()
        let speaker = try Speaker(loop: loop, helper: .binary(TestPaths.playerBinary)) { outcomes.all.append($0) }
        defer { speaker.stop() }
        let outcome = try #require(try speak(speaker, loop, "hello", voice: "klingon-xx", outcomes: outcomes))
        #expect(
            throws: SpeechError(
                message:
                    "speech: espeak-ng has no voice \"klingon-xx\" (voices are named like \"en\", \"en-us\", \"de\", \"fr\")"
            )
        ) {
            try outcome.get()
        }
        // The next prompt in a known voice still speaks.
        let pcm = try #require(try speak(speaker, loop, "hello", voice: "en", outcomes: outcomes)).get()
        #expect(!pcm.samples.isEmpty)
    }

    @Test func aRepeatedPromptComesFromTheCacheWithoutSynthesis() throws {
        try EspeakTestLock.run { try aRepeatedPromptComesFromTheCacheWithoutSynthesisBody() }
    }

    private func aRepeatedPromptComesFromTheCacheWithoutSynthesisBody() throws {
        let loop = try EventLoop()
        let outcomes = Outcomes()
        let speaker = try Speaker(loop: loop, helper: .binary(TestPaths.playerBinary)) { outcomes.all.append($0) }
        defer { speaker.stop() }
        let first = try #require(try speak(speaker, loop, "Insert a USB stick", voice: "en", outcomes: outcomes)).get()
        let second = try #require(try speak(speaker, loop, "Insert a USB stick", voice: "en", outcomes: outcomes)).get()
        #expect(first.synthesized && !second.synthesized)
        #expect(second.synthesisCount == first.synthesisCount, "no synthesis for the repeat")
        #expect(second.samples == first.samples)
        // Another voice is another prompt.
        let german = try #require(try speak(speaker, loop, "Insert a USB stick", voice: "de", outcomes: outcomes)).get()
        #expect(german.synthesized && german.synthesisCount == first.synthesisCount + 1)
    }

    @Test func theCacheDropsTheLeastRecentlyUsedPromptsToStayWithinItsBytes() {
        var cache = PromptCache(capacityBytes: 1000)
        cache.keep([Int16](repeating: 1, count: 200), "a", voice: "en")  // 400 bytes
        cache.keep([Int16](repeating: 2, count: 200), "b", voice: "en")
        _ = cache.samples("a", voice: "en")  // b is now the oldest
        cache.keep([Int16](repeating: 3, count: 200), "c", voice: "en")
        #expect(cache.bytes <= 1000)
        #expect(cache.samples("b", voice: "en") == nil)
        #expect(cache.samples("a", voice: "en") != nil && cache.samples("c", voice: "en") != nil)
        cache.keep([Int16](repeating: 4, count: 600), "too long", voice: "en")
        #expect(cache.samples("too long", voice: "en") == nil && cache.bytes <= 1000)
    }

    @Test func aPromptMidTrackPlaysBetweenTheTracksFramesWhichGoOnBitExact() throws {
        try EspeakTestLock.run { try aPromptMidTrackPlaysBetweenTheTracksFramesWhichGoOnBitExactBody() }
    }

    private func aPromptMidTrackPlaysBetweenTheTracksFramesWhichGoOnBitExactBody() throws {
        let dir = try TemporaryDirectory("kiosk-prompt")
        defer { dir.remove() }
        let cd = PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16)
        let track = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 88200)
        let device = CapturingOutput()
        device.paced = true
        let run = try EngineRun(capturingTo: device)
        let outcomes = Outcomes()
        let speaker = try Speaker(loop: run.loop, helper: .binary(TestPaths.playerBinary)) { outcomes.all.append($0) }
        defer { speaker.stop() }
        let pcm = try #require(try speak(speaker, run.loop, "Volume limit", voice: "en", outcomes: outcomes)).get()

        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        try run.run { device.framesTaken.load(ordering: .relaxed) > 22050 }
        var spoken = false
        run.engine.speak(pcm, volume: 100) { _ in spoken = true }
        #expect(try run.run(seconds: 60) { run.finished && spoken })
        run.shutdown()

        let expected = Fixtures.bytes(track, width: 2)
        let captured = device.captured
        let frameBytes = 4
        // The pause point: where the capture first leaves the track.
        var split = 0
        while split < expected.count, captured[split] == expected[split] { split += 1 }
        split -= split % frameBytes
        #expect(split >= 22050 * frameBytes && split < expected.count, "the prompt came mid-track")
        let promptBytes = captured.count - expected.count
        let promptFrames = promptBytes / frameBytes
        // 22050 → 44100 Hz: twice the frames (libsoxr's flush gives or takes a few).
        #expect(abs(promptFrames - pcm.samples.count * 2) < 64, "\(promptFrames) frames for \(pcm.samples.count)")
        let prompt = captured[split..<(split + promptBytes)].withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(rms(prompt) > 500, "the prompt is audible")
        #expect(stride(from: 0, to: prompt.count, by: 2).allSatisfy { prompt[$0] == prompt[$0 + 1] }, "mono on both")
        #expect(
            Array(captured[(split + promptBytes)...]) == Array(expected[split...]),
            "the track goes on bit-exact after the prompt")
    }

    @Test func aPromptWithNothingPlayingOpensTheDeviceAndClosesItAfter() throws {
        let device = CapturingOutput()
        let run = try EngineRun(capturingTo: device)
        let samples = (0..<22050).map { Int16(truncatingIfNeeded: Int(8000 * sin(Double($0) * 0.1))) }
        var spoken = false
        run.engine.speak(SpokenPCM(text: "tone", samples: samples, sampleRate: 22050), volume: 100) { _ in spoken = true
        }
        #expect(try run.run(seconds: 30) { spoken })
        try run.idle(0.05)
        run.shutdown()
        #expect(device.configurations.first?.format == PCMFormat(sampleRate: 22050, channels: 1, bitsPerSample: 16))
        #expect(!device.isOpen, "closed after the prompt")
        let captured = device.captured.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(captured == samples, "played as made at 100 %")
    }

    @Test func aDeviceThatTakesOnly48kStereoGetsThePromptMadeForIt() throws {
        let device = CapturingOutput(accepted: [.s32], channels: 2...2, rates: [48000])
        let run = try EngineRun(capturingTo: device)
        let samples = (0..<22050).map { Int16(truncatingIfNeeded: Int(8000 * sin(Double($0) * 0.1))) }
        var failure: String? = "not finished"
        run.engine.speak(SpokenPCM(text: "tone", samples: samples, sampleRate: 22050), volume: 100) { failure = $0 }
        #expect(try run.run(seconds: 30) { failure == nil })
        run.shutdown()
        let captured = device.captured.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        let frames = captured.count / 2
        #expect(abs(frames - 48000) < 64, "1 s at 48 kHz: \(frames) frames")
        #expect(stride(from: 0, to: captured.count, by: 2).allSatisfy { captured[$0] == captured[$0 + 1] })
        #expect(captured.contains { abs($0) > 1 << 28 }, "audible")
    }

    /// A track resampled for the device (44.1 kHz on a 48 kHz-only one) still pauses for a prompt:
    /// the prompt goes to the device past the output stage.
    @Test func aPromptPlaysDuringAResampledTrack() throws {
        let dir = try TemporaryDirectory("kiosk-prompt")
        defer { dir.remove() }
        let cd = PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16)
        _ = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 44100)
        let device = CapturingOutput(accepted: [.s32], channels: 2...2, rates: [48000])
        device.paced = true
        let run = try EngineRun(capturingTo: device)
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        try run.run { device.framesTaken.load(ordering: .relaxed) > 12000 }
        let samples = [Int16](repeating: 12000, count: 11025)
        var failure: String? = "not finished"
        run.engine.speak(SpokenPCM(text: "half a second", samples: samples, sampleRate: 22050), volume: 100) {
            failure = $0
        }
        #expect(try run.run(seconds: 60) { run.finished && failure != "not finished" })
        run.shutdown()
        #expect(failure == nil)
        let frames = device.captured.count / 8
        // The track's second at 48 kHz, and half a second of prompt.
        #expect(abs(frames - 72000) < 200, "\(frames) frames")
    }

    @Test func whileAPromptPlaysOnlyTheNewestWaits() throws {
        let device = CapturingOutput()
        let run = try EngineRun(capturingTo: device)
        var finished: [String] = []
        for (text, level) in [("first", Int16(1000)), ("second", 2000), ("third", 3000)] {
            let pcm = SpokenPCM(text: text, samples: [Int16](repeating: level, count: 4410), sampleRate: 22050)
            run.engine.speak(pcm, volume: 100) { failure in finished.append(text + (failure.map { ": " + $0 } ?? "")) }
        }
        #expect(try run.run(seconds: 30) { finished.count == 3 })
        try run.idle(0.05)
        run.shutdown()
        #expect(finished == ["second", "first", "third"], "the second is replaced at once, unspoken")
        let captured = device.captured.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(captured == [Int16](repeating: 1000, count: 4410) + [Int16](repeating: 3000, count: 4410))
    }

    /// On a device that holds frames (the paced `none` sink: its delay is real), the track's position
    /// stands still while the prompt plays and never goes back when the track goes on.
    @Test func theTracksPositionDoesNotCountThePrompt() throws {
        let dir = try TemporaryDirectory("kiosk-prompt")
        defer { dir.remove() }
        let cd = PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16)
        _ = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 66150)
        let run = try EngineRun(settings: EngineRun.settings(device: "none"))
        var samples: [(at: UInt64, frames: Int64)] = []
        run.loop.schedule(afterNanoseconds: 2_000_000, repeating: 2_000_000) { [engine = run.engine, loop = run.loop] in
            // The track's position while it is the one playing: once the queue has ended it reads 0,
            // which a loaded machine's late loop sampled before taking the end (issue 47's "race").
            let position = engine.playbackPosition
            if position.trackID == 1 { samples.append((loop.nowNanoseconds, position.frames)) }
        }
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        try run.idle(0.5)
        let spokenAt = run.loop.nowNanoseconds
        var spoken = false
        let prompt = SpokenPCM(text: "one second", samples: [Int16](repeating: 9000, count: 22050), sampleRate: 22050)
        run.engine.speak(prompt, volume: 100) { _ in spoken = true }
        #expect(try run.run(seconds: 30) { run.finished && spoken })
        run.shutdown()
        let frames = samples.map(\.frames)
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0 <= $1 }, "never back")
        // Well inside the prompt's second (the device's 60 ms buffer of track before it played out).
        let during = samples.filter { $0.at > spokenAt + 200_000_000 && $0.at < spokenAt + 900_000_000 }.map(\.frames)
        #expect(
            !during.isEmpty && during.max()! - during.min()! == 0,
            "standing still: \(during.min() ?? -1)…\(during.max() ?? -1)")
        #expect(frames.max()! <= 66150)
    }
}
