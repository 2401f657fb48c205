// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

private let cd = PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16)
/// 5 ms at 44.1 kHz.
private let rampFrames = 220

/// The declick ramp's gain (Q16) at frame `offset` of a ramp, worked out by hand: half a cosine,
/// one value per block of 8 frames.
private func rampGain(_ offset: Int, rising: Bool) -> Int64 {
    let block = offset / 8 * 8
    let t = Double(min(block, rampFrames)) / Double(rampFrames)
    let up = 0.5 - 0.5 * cos(Double.pi * t)
    return Int64((rising ? up : 1 - up) * 65536)
}

/// `sample` scaled by a Q16 gain, the product rounded down (as the engine's converter does).
private func scaled(_ sample: Int32, _ gain: Int64) -> Int32 {
    let product = Int64(sample) * gain
    return Int32(product >= 0 ? product / 65536 : -((-product + 65535) / 65536))
}

/// What the device should get from `source` (interleaved stereo) when the sound ramps out over
/// the frames from `at` and the frames from `resumeAt` ramp in.
private func expected(_ source: [Int32], outAt at: Int, inFrom resumed: [Int32], resumeAt: Int) -> [Int32] {
    var result = Array(source[0..<(at * 2)])
    for frame in at..<(at + rampFrames) {
        for c in 0..<2 { result.append(scaled(source[frame * 2 + c], rampGain(frame - at, rising: false))) }
    }
    for frame in resumeAt..<(resumed.count / 2) {
        let offset = frame - resumeAt
        for c in 0..<2 {
            let sample = resumed[frame * 2 + c]
            result.append(offset < rampFrames ? scaled(sample, rampGain(offset, rising: true)) : sample)
        }
    }
    return result
}

/// Finds where the ramp out began: the frame `expected` matches the capture from, within the 16
/// frames before the first frame that differs from the source (the ramp's first block is at
/// full level).
private func rampStart(_ captured: [Int32], _ source: [Int32], model: (Int) -> [Int32]) -> Int? {
    var first = 0
    while first * 2 + 1 < min(captured.count, source.count),
        captured[first * 2] == source[first * 2] && captured[first * 2 + 1] == source[first * 2 + 1]
    {
        first += 1
    }
    // No difference (no ramp at all) or one too late for a whole ramp: no such capture.
    guard first + rampFrames <= source.count / 2 else { return nil }
    return (max(0, first - 16)...first).first { model($0) == captured }
}

/// Where `needle` first appears in `haystack` at a frame's start (stereo).
private func find(_ needle: [Int32], in haystack: [Int32]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for i in stride(from: 0, through: haystack.count - needle.count, by: 2)
    where haystack[i + 2] == needle[2] && Array(haystack[i..<(i + needle.count)]) == needle {
        return i
    }
    return nil
}

/// `AudioSettings.declickMilliseconds` and `keepOpen`: the edges of the sound ramp instead of
/// cutting a sample, and a stopped device kept open runs on silence.
@Suite(.tags(.integration), .serialized, .enabled(if: Fixtures.hasFlac, "needs the flac tool (apt-get install flac)"))
struct DeclickTests {
    private func run(on device: CapturingOutput, declick: Int = 5, keepOpen: Bool = false) throws -> EngineRun {
        var settings = EngineRun.settings(device: "capture")
        settings.makeOutput = { _ in device }
        settings.declickMilliseconds = declick
        settings.keepOpen = keepOpen
        return try EngineRun(settings: settings)
    }

    private func samples(_ device: CapturingOutput) -> [Int32] {
        Fixtures.parse(device.captured, width: 2, significantBits: 32)
    }

    @Test func aPauseRampsTheSoundOutAndTheResumeRampsItBackInWithNoFrameLostOrRepeated() throws {
        let dir = try TemporaryDirectory("kiosk-declick")
        defer { dir.remove() }
        let source = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 60000)
        let device = CapturingOutput()
        device.paced = true
        let run = try run(on: device)
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { device.framesTaken.load(ordering: .relaxed) > 20000 })
        run.engine.pause()
        try run.idle(0.3)
        let atPause = device.framesTaken.load(ordering: .relaxed)
        try run.idle(0.2)
        #expect(device.framesTaken.load(ordering: .relaxed) == atPause, "nothing goes out while paused")
        run.engine.resume()
        #expect(try run.run { run.finished })
        run.shutdown()
        let captured = samples(device)
        // The first frames of the track ramp in from silence too.
        let startRamp = (0..<rampFrames * 2).map { scaled(source[$0], rampGain($0 / 2, rising: true)) }
        #expect(
            Array(captured.prefix(rampFrames * 2)) == startRamp,
            "the start ramps in (first sound at sample \(captured.firstIndex { $0 != 0 } ?? -1); source \(source.prefix(4)), captured \(captured[440..<444]))"
        )
        var sourceAfterStart = source
        sourceAfterStart.replaceSubrange(0..<(rampFrames * 2), with: startRamp)
        let at = rampStart(captured, sourceAfterStart) {
            expected(sourceAfterStart, outAt: $0, inFrom: source, resumeAt: $0 + rampFrames)
        }
        #expect(at != nil, "the capture is the track with one ramp out and one ramp in, every frame once")
        #expect(captured.count == source.count)
    }

    @Test func aSkipRampsTheOldTrackOutAndTheNewOneInFromItsFirstFrame() throws {
        let dir = try TemporaryDirectory("kiosk-declick")
        defer { dir.remove() }
        let a = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 60000, seed: 1)
        let b = try Fixtures.makeTrack(dir.file("b.flac"), format: cd, frames: 30000, seed: 2)
        let device = CapturingOutput()
        device.paced = true
        let run = try run(on: device)
        run.engine.setQueue(
            [TrackRequest(id: 1, path: dir.file("a.flac")), TrackRequest(id: 2, path: dir.file("b.flac"))],
            startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { device.framesTaken.load(ordering: .relaxed) > 20000 })
        run.engine.next()
        #expect(try run.run { run.finished })
        run.shutdown()
        let captured = samples(device)
        var aAfterStart = a
        for i in 0..<(rampFrames * 2) { aAfterStart[i] = scaled(a[i], rampGain(i / 2, rising: true)) }
        let at = rampStart(captured, aAfterStart) { expected(aAfterStart, outAt: $0, inFrom: b, resumeAt: 0) }
        #expect(at != nil, "a ramps out where the skip came, b ramps in from its first frame and plays to its end")
    }

    @Test func aPromptMidTrackComesBetweenARampOutAndARampInOfTheTrack() throws {
        let dir = try TemporaryDirectory("kiosk-declick")
        defer { dir.remove() }
        let source = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 60000)
        let device = CapturingOutput()
        device.paced = true
        let run = try run(on: device)
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { device.framesTaken.load(ordering: .relaxed) > 20000 })
        // A tone at the device's rate: 4410 frames (0.1 s), made stereo by the engine.
        let tone = (0..<4410).map { Int16(truncatingIfNeeded: Int(8000 * sin(Double($0) * 0.1))) }
        var spoken = false
        run.engine.speak(SpokenPCM(text: "tone", samples: tone, sampleRate: 44100), volume: 100) { _ in spoken = true }
        #expect(try run.run { run.finished && spoken })
        run.shutdown()
        var captured = samples(device)
        #expect(captured.count == source.count + tone.count * 2, "every track frame once, and the tone")
        // Take the tone out where it is (its first sample is 0, then 798): what is left is the
        // track with one ramp out and one ramp in.
        let toneStereo = tone.flatMap { [Int32($0), Int32($0)] }
        let start = try #require(find(toneStereo, in: captured))
        captured.removeSubrange(start..<(start + toneStereo.count))
        var sourceAfterStart = source
        for i in 0..<(rampFrames * 2) { sourceAfterStart[i] = scaled(source[i], rampGain(i / 2, rising: true)) }
        let at = rampStart(captured, sourceAfterStart) {
            expected(sourceAfterStart, outAt: $0, inFrom: source, resumeAt: $0 + rampFrames)
        }
        #expect(at != nil, "the track ramps out before the tone and back in after it")
        #expect(at.map { ($0 + rampFrames) * 2 } == start, "the tone comes right after the ramp out")
    }

    /// `fadeInNextStart` (exhibit mode's attract loop coming back): the start rises over the
    /// asked length on the declick's curve, and only that start.
    @Test func aFadeInAskedForTheNextStartRisesOverItsLengthThenEverySampleIsAsDecoded() throws {
        let dir = try TemporaryDirectory("kiosk-declick")
        defer { dir.remove() }
        let source = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 44100)
        let device = CapturingOutput()
        let run = try run(on: device, declick: 0)
        run.engine.fadeInNextStart(overMilliseconds: 100)
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { run.finished })
        run.shutdown()
        let captured = samples(device)
        let fadeFrames = 4410
        func gain(_ frame: Int) -> Int64 {
            let t = Double(frame / 8 * 8) / Double(fadeFrames)
            return Int64((0.5 - 0.5 * cos(Double.pi * t)) * 65536)
        }
        let rising = (0..<(fadeFrames * 2)).map { scaled(source[$0], gain($0 / 2)) }
        #expect(Array(captured.prefix(fadeFrames * 2)) == rising, "100 ms rising on the half cosine")
        #expect(Array(captured[(fadeFrames * 2)...]) == Array(source[(fadeFrames * 2)...]), "then as decoded")
    }

    /// A press in exhibit mode while the attract loop still rises: the clip starts at full level.
    @Test func aNewQueueDuringAFadeInStartsAtFullLevel() throws {
        let dir = try TemporaryDirectory("kiosk-declick")
        defer { dir.remove() }
        _ = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 44100)
        let clip = try Fixtures.makeTrack(dir.file("b.flac"), format: cd, frames: 20000)
        let device = CapturingOutput()
        device.paced = true
        let run = try run(on: device, declick: 0)
        run.engine.fadeInNextStart(overMilliseconds: 800)
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { device.framesTaken.load(ordering: .relaxed) > 4410 }, "0.1 s into an 0.8 s rise")
        run.engine.setQueue([TrackRequest(id: 2, path: dir.file("b.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { run.finished })
        run.shutdown()
        let captured = samples(device)
        expectSameSamples(
            Array(captured.suffix(clip.count)), clip, "the second queue's track as decoded, from its first frame")
    }

    @Test func withoutDeclickAPauseAndResumeLeaveEverySampleAsDecoded() throws {
        let dir = try TemporaryDirectory("kiosk-declick")
        defer { dir.remove() }
        let source = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 40000)
        let device = CapturingOutput()
        device.paced = true
        let run = try run(on: device, declick: 0)
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { device.framesTaken.load(ordering: .relaxed) > 10000 })
        run.engine.pause()
        try run.idle(0.2)
        run.engine.resume()
        #expect(try run.run { run.finished })
        run.shutdown()
        expectSameSamples(samples(device), source)
    }

    @Test func aStoppedDeviceKeptOpenRunsOnSilenceAndTheNextPlayFollowsIt() throws {
        let dir = try TemporaryDirectory("kiosk-keep-open")
        defer { dir.remove() }
        let source = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 20000)
        let device = CapturingOutput()
        device.paced = true
        let run = try run(on: device, declick: 0, keepOpen: true)
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { device.framesTaken.load(ordering: .relaxed) > 5000 })
        run.engine.stop()
        try run.idle(0.2)
        let during = device.framesTaken.load(ordering: .relaxed)
        let since = ContinuousClock.now
        // Fed on: a tenth of a second of silence arrives (however late a loaded machine runs it) ...
        #expect(try run.run(seconds: 10) { device.framesTaken.load(ordering: .relaxed) >= during + 4410 })
        try run.idle(0.2)
        let fed = device.framesTaken.load(ordering: .relaxed) - during
        let elapsed = since.duration(to: .now) / .seconds(1)
        #expect(device.isOpen, "stopped, the device stays open")
        // ... and paced by the device's periods, not spun: never more than the 44.1 kHz clock allows
        // for the time that passed, plus the device's 2048-frame buffer.
        #expect(Double(fed) <= elapsed * 44100 + 2048 + 512, "fed \(fed) frames of silence in \(elapsed) s")
        let beforePlay = device.framesTaken.load(ordering: .relaxed)
        run.engine.play()
        #expect(try run.run { run.events.contains { if case .trackFinished = $0 { true } else { false } } })
        run.shutdown()
        let captured = samples(device)
        #expect(captured[(beforePlay - 2000) * 2..<beforePlay * 2].allSatisfy { $0 == 0 }, "silence before the play")
        let tail = Array(captured[(beforePlay * 2)...])
        let start = tail.firstIndex { $0 != 0 } ?? tail.count
        let played = Array(tail[(start / 2 * 2)...].prefix(source.count))
        expectSameSamples(played, Array(source.prefix(played.count)), "the track from its start after the silence")
        #expect(device.configurations.count == 1, "never set up again")
    }

    @Test func releaseDeviceClosesADeviceKeptOpenWhileStopped() throws {
        let dir = try TemporaryDirectory("kiosk-keep-open")
        defer { dir.remove() }
        _ = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 20000)
        let device = CapturingOutput()
        device.paced = true
        let run = try run(on: device, declick: 0, keepOpen: true)
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { device.framesTaken.load(ordering: .relaxed) > 5000 })
        run.engine.stop()
        try run.idle(0.2)
        #expect(device.isOpen)
        run.engine.releaseDevice()
        try run.idle(0.3)
        #expect(!device.isOpen, "closed after releaseDevice")
        let after = device.framesTaken.load(ordering: .relaxed)
        try run.idle(0.2)
        #expect(device.framesTaken.load(ordering: .relaxed) == after, "no more silence once closed")
        run.shutdown()
    }
}
