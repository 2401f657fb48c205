// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

private let cd = PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16)

/// ALSA's file plugin: what the engine hands to the last snd_pcm_writei lands in `path`, raw.
private func filePCM(_ path: String) -> String { "file:'\(path)',raw" }

/// Plays `paths` through the engine to the ALSA file PCM `out`; returns the run (shut down).
private func playToFile(_ paths: [String], out: String, volume: Int? = nil) throws -> EngineRun {
    let run = try EngineRun(settings: EngineRun.settings(device: filePCM(out)))
    defer { run.shutdown() }
    if let volume { run.engine.setVolume(volume) }
    run.engine.setQueue(
        paths.enumerated().map { TrackRequest(id: UInt64($0.offset + 1), path: $0.element) }, startAt: 0, startFrame: 0)
    run.engine.play()
    try run.run(seconds: 60) { run.finished }
    return run
}

/// The track starts and ends and the queue's end, in the order the engine reported them.
private func trackOrder(_ run: EngineRun) -> [String] {
    run.events.compactMap { event -> String? in
        switch event {
        case .trackStarted(let id, _, _, _): "start \(id)"
        case .trackFinished(let id): "end \(id)"
        case .queueFinished: "done"
        default: nil
        }
    }
}

@Suite(.tags(.integration), .serialized) struct AudioEngineBitPerfectTests {
    /// Every file of the FLAC decoder testbench, through ALSAOutput into ALSA's file plugin, equals
    /// `flac -d` byte for byte in the container the engine negotiated.
    @Test(.enabled(if: Fixtures.hasFlac, "needs the flac tool (apt-get install flac)"))
    func everyTestbenchFileIsBitPerfect() throws {
        guard let bench = TestPaths.flacTestbench else {
            try skipTest("FLAC testbench not found (../shared/flac-testbench/subset or KIOSK_FLAC_TESTBENCH)")
            return
        }
        let all = listDirectory(bench).filter { $0.hasSuffix(".flac") }
        #expect(!all.isEmpty)
        let files = Emulation.name == nil ? all : try smallestOfEachFormat(all, in: bench)
        if files.count < all.count {
            print(
                "emulated CPU (\(Emulation.name ?? "")): \(files.count) of \(all.count) testbench files, the smallest of each format (the .deb test plays all of them)"
            )
        }
        let dir = try TemporaryDirectory("kiosk-bitperfect")
        defer { dir.remove() }
        var checked = 0
        for name in files {
            let path = bench + "/" + name
            let out = dir.file("out.raw")
            let run = try playToFile([path], out: out)
            #expect(run.finished, "\(name): playback did not finish")
            #expect(run.errors.isEmpty, "\(name): \(run.errors.map(\.message))")
            guard
                case .trackStarted(_, let format, _, _)? = run.events.first(where: {
                    if case .trackStarted = $0 { return true } else { return false }
                })
            else {
                Issue.record("\(name): no trackStarted")
                continue
            }
            guard let deviceFormat = run.deviceFormats.first, let encoding = Fixtures.encoding(named: deviceFormat)
            else {
                Issue.record("\(name): no formatChanged")
                continue
            }
            #expect(!deviceFormat.contains("converted"), "\(name): \(deviceFormat)")
            let reference = try Fixtures.reference(path, bits: format.bitsPerSample, scratch: dir)
            let expected = Fixtures.encodeLeftJustified(reference, as: encoding)
            let output = try Syscalls.readFile(out, limit: 1 << 30)
            expectSameSamples(output, expected, "\(name) (\(format), \(deviceFormat)), bytes")
            unlink(out)
            checked += 1
        }
        #expect(checked == files.count)
    }
}

/// The smallest file of each sample rate, channel count and bit depth: what the engine's conversion
/// and the device set-up depend on. Under emulation a debug build takes 20 min for the whole testbench.
private func smallestOfEachFormat(_ names: [String], in bench: String) throws -> [String] {
    var smallest: [PCMFormat: (name: String, size: Int)] = [:]
    let decoder = FLACDecoder()
    defer { decoder.close() }
    for name in names {
        let path = bench + "/" + name
        try decoder.open(path: path)
        guard let format = decoder.format else { continue }
        let size = Int(try Syscalls.fileStatus(path).st_size)
        if size < smallest[format]?.size ?? .max { smallest[format] = (name, size) }
    }
    return smallest.values.map(\.name).sorted()
}

@Suite(.tags(.integration), .serialized, .enabled(if: Fixtures.hasFlac, "needs the flac tool (apt-get install flac)"))
struct AudioEngineTests {
    @Test func consecutiveTracksOfOneSignalJoinWithoutAGap() throws {
        let dir = try TemporaryDirectory("kiosk-gapless")
        defer { dir.remove() }
        let signal = Fixtures.signal(frames: 100_000, channels: 2, bits: 16, seed: 3)
        let cut = 44100 + 1234  // not on a block boundary
        try Fixtures.encode(Array(signal[..<(cut * 2)]), format: cd, to: dir.file("1.flac"))
        try Fixtures.encode(Array(signal[(cut * 2)...]), format: cd, to: dir.file("2.flac"))
        let run = try playToFile([dir.file("1.flac"), dir.file("2.flac")], out: dir.file("out.raw"))
        let output = try Syscalls.readFile(dir.file("out.raw"))
        expectSameSamples(output, Fixtures.bytes(signal, width: 2))
        #expect(run.deviceFormats == ["S16_LE 44100 Hz 2 ch"], "one device set-up for both tracks")
        let order = trackOrder(run)
        #expect(order == ["start 1", "end 1", "start 2", "end 2", "done"])
    }

    /// Tracks appended to the queue (an MPD client's `add` while playing) follow the current one
    /// without a gap and without restarting it: while the decoder is still inside the queue, and
    /// after it had already queued the queue's end for the output.
    @Test(arguments: [false, true])
    func appendedTracksFollowWithoutRestartingTheCurrentOne(decoderAtTheEnd: Bool) throws {
        let dir = try TemporaryDirectory("kiosk-append")
        defer { dir.remove() }
        // The ring holds 0.5 s of the stream (32 768 CD frames): a 9 s first track keeps the decoder
        // inside it; a 0.1 s one lets it reach the end of the queue (and queue that end for the
        // output) while the engine waits.
        let firstFrames = decoderAtTheEnd ? 4410 : 400_000 + 1234
        let signal = Fixtures.signal(frames: firstFrames + 30_000, channels: 2, bits: 16, seed: 5)
        let cuts = [0, firstFrames, signal.count / 2]
        for i in 0..<2 {
            try Fixtures.encode(Array(signal[(cuts[i] * 2)..<(cuts[i + 1] * 2)]), format: cd, to: dir.file("\(i).flac"))
        }
        let run = try EngineRun(settings: EngineRun.settings(device: filePCM(dir.file("out.raw"))))
        defer { run.shutdown() }
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("0.flac"))], startAt: 0, startFrame: 0)
        try run.idle(0.3)  // the decoder fills the ring (and, for the short track, queues the end)
        // (Appended before play: the file PCM is not paced, so "while playing" would race the end.)
        run.engine.append([TrackRequest(id: 2, path: dir.file("1.flac"))])
        run.engine.play()
        #expect(try run.run { run.finished })
        try run.idle(0.2)
        run.shutdown()
        let output = try Syscalls.readFile(dir.file("out.raw"))
        #expect(output.count == signal.count * 2)
        expectSameSamples(output, Fixtures.bytes(signal, width: 2), "every frame once, in order")
        let order = trackOrder(run)
        #expect(order == ["start 1", "end 1", "start 2", "end 2", "done"])
    }

    /// A resumed start (`startFrame`, as after a restart) plays from exactly that frame: the output
    /// equals the reference decoder's output from that frame on, byte for byte, for frames inside, at
    /// and just after a FLAC block. (One track and one `flac -d` for all the frames: under qemu-user
    /// encoding and decoding it six times was a minute and a half of the aarch64 suite.)
    @Test func startingMidTrackPlaysFromExactlyThatFrame() throws {
        let dir = try TemporaryDirectory("kiosk-resume-frame")
        defer { dir.remove() }
        try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 600_000, seed: 9)
        let reference = dir.file("reference.raw")
        let decoded = run(
            Fixtures.flacTool!,
            [
                "-d", "-s", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "-o", reference,
                dir.file("a.flac"),
            ])
        #expect(decoded.status == 0, "flac -d: \(decoded.errors)")
        let whole = try Syscalls.readFile(reference, limit: 1 << 30)
        for frame in [1, 4095, 4096, 4097, 12345, 529_200] {
            let out = dir.file("out-\(frame).raw")
            let playback = try EngineRun(settings: EngineRun.settings(device: filePCM(out)))
            defer { playback.shutdown() }
            playback.engine.setQueue(
                [TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: Int64(frame))
            playback.engine.play()
            try playback.run(seconds: 60) { playback.finished }
            playback.shutdown()
            let output = try Syscalls.readFile(out, limit: 1 << 30)
            let expected = whole[(frame * 4)...]
            #expect(
                output.count == expected.count,
                "from frame \(frame): \(output.count / 4) frames played, \(expected.count / 4) expected")
            expectSameSamples(output, Array(expected), "from frame \(frame), bytes")
        }
    }

    @Test func formatChangesBetweenTracksPlayEveryTrackCorrectly() throws {
        let dir = try TemporaryDirectory("kiosk-formats")
        defer { dir.remove() }
        let formats = [
            cd, PCMFormat(sampleRate: 96000, channels: 2, bitsPerSample: 24),
            PCMFormat(sampleRate: 48000, channels: 1, bitsPerSample: 16),
        ]
        var expected: [UInt8] = []
        var paths: [String] = []
        for (i, format) in formats.enumerated() {
            let path = dir.file("\(i).flac")
            let samples = try Fixtures.makeTrack(path, format: format, frames: 30000 + i * 777, seed: UInt64(i))
            expected += Fixtures.deviceBytes(
                samples, bits: format.bitsPerSample, encoding: format.bitsPerSample > 16 ? .s32 : .s16)
            paths.append(path)
        }
        let run = try playToFile(paths, out: dir.file("out.raw"))
        #expect(run.deviceFormats == ["S16_LE 44100 Hz 2 ch", "S32_LE 96000 Hz 2 ch", "S16_LE 48000 Hz 1 ch"])
        #expect(run.started() == [1, 2, 3])
        expectSameSamples(try Syscalls.readFile(dir.file("out.raw")), expected)
    }

    @Test func badFilesAreReportedByNameAndSkipped() throws {
        let dir = try TemporaryDirectory("kiosk-bad")
        defer { dir.remove() }
        let first = try Fixtures.makeTrack(dir.file("first.flac"), format: cd, frames: 20000, seed: 1)
        let last = try Fixtures.makeTrack(dir.file("last.flac"), format: cd, frames: 20000, seed: 2)
        try Fixtures.makeTrack(dir.file("source.flac"), format: cd, frames: 88200, seed: 3)
        let source = try Syscalls.readFile(dir.file("source.flac"))
        try dir.write("truncated.flac", Array(source[0..<(source.count / 2)]))
        try dir.write("zero.flac", [])
        try dir.write("random.flac", (0..<50000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })
        try dir.write("magic.flac", Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8) + Fixtures.bytes(first, width: 2))
        var corrupt = source
        for i in (source.count / 2)..<(source.count / 2 + 100) { corrupt[i] ^= 0xA5 }
        try dir.write("corrupt.flac", corrupt)
        try Syscalls.mkdir(dir.file("x.flac"))
        let bad = ["truncated.flac", "zero.flac", "random.flac", "magic.flac", "corrupt.flac", "x.flac"]
        let paths = [dir.file("first.flac")] + bad.map { dir.file($0) } + [dir.file("last.flac")]

        let run = try playToFile(paths, out: dir.file("out.raw"))
        #expect(run.finished, "the queue went on to its end")
        let errors = run.errors
        for name in bad {
            let reported = errors.first { $0.path == dir.file(name) }
            #expect(reported != nil, "\(name) not reported")
            if let reported { #expect(!reported.message.isEmpty) }
        }
        #expect(errors.count == bad.count)
        #expect(errors.first { $0.path.hasSuffix("zero.flac") }?.message == "empty file")
        #expect(errors.first { $0.path.hasSuffix("x.flac") }?.message == "not a regular file")
        #expect(errors.first { $0.path.hasSuffix("truncated.flac") }?.message.contains("truncated") == true)
        #expect(errors.first { $0.path.hasSuffix("corrupt.flac") }?.message.contains("corrupt") == true)
        #expect(errors.first { $0.path.hasSuffix("random.flac") }?.message.contains("not a music file") == true)
        // A WAV header over samples that do not make one: named as a WAV, not as a FLAC.
        #expect(errors.first { $0.path.hasSuffix("magic.flac") }?.message.contains("WAV") == true)
        let started = run.started()
        #expect(started.first == 1 && started.last == UInt64(paths.count))
        // The good files play completely, first and last, around whatever the damaged ones yielded.
        let output = try Syscalls.readFile(dir.file("out.raw"))
        let head = Fixtures.bytes(first, width: 2)
        let tail = Fixtures.bytes(last, width: 2)
        #expect(Array(output.prefix(head.count)) == head)
        #expect(Array(output.suffix(tail.count)) == tail)
    }

    /// A track queued before the library's background playability pass reached it, whose audio
    /// does not decode (STREAMINFO and the first frame's header are sound, every frame's payload
    /// after it is not): the engine reports it by name with the reason and goes on, the tracks
    /// around it joined without a gap.
    @Test func aTrackWhoseFirstFrameDoesNotDecodeIsReportedAndSkippedGaplessly() throws {
        let dir = try TemporaryDirectory("kiosk-first-frame")
        defer { dir.remove() }
        let first = try Fixtures.makeTrack(dir.file("first.flac"), format: cd, frames: 20000, seed: 1)
        let last = try Fixtures.makeTrack(dir.file("last.flac"), format: cd, frames: 20000, seed: 2)
        try Fixtures.makeTrack(dir.file("damaged.flac"), format: cd, frames: 20000, seed: 3)
        var bytes = try Syscalls.readFile(dir.file("damaged.flac"))
        // The audio starts after the last metadata block (its header's top bit).
        var start = 4
        while true {
            let length = Int(bytes[start + 1]) << 16 | Int(bytes[start + 2]) << 8 | Int(bytes[start + 3])
            let isLast = bytes[start] & 0x80 != 0
            start += 4 + length
            if isLast { break }
        }
        for i in (start + 20)..<bytes.count { bytes[i] ^= 0x5A }
        try dir.write("damaged.flac", bytes)
        let paths = [dir.file("first.flac"), dir.file("damaged.flac"), dir.file("last.flac")]

        let run = try playToFile(paths, out: dir.file("out.raw"))
        #expect(run.finished)
        #expect(run.errors.map(\.path) == [dir.file("damaged.flac")])
        // Nothing of it decodes (libFLAC drops the damaged frames as it would junk before a stream).
        #expect(run.errors.first?.message == "file ends early (truncated): 0 of 20000 frames", "\(run.errors)")
        #expect(run.started().last == 3)
        let output = try Syscalls.readFile(dir.file("out.raw"))
        let expected = Fixtures.bytes(first, width: 2) + Fixtures.bytes(last, width: 2)
        if output != expected { Issue.record("\(output.count) bytes played, \(expected.count) expected") }
    }

    @Test func deviceThatTakesOnlyOtherContainersGetsExactOrConvertedSamples() throws {
        let dir = try TemporaryDirectory("kiosk-convert")
        defer { dir.remove() }
        let samples16 = try Fixtures.makeTrack(dir.file("16.flac"), format: cd, frames: 20000)
        let hi = PCMFormat(sampleRate: 96000, channels: 2, bitsPerSample: 24)
        let samples24 = try Fixtures.makeTrack(dir.file("24.flac"), format: hi, frames: 20000)

        for (accepted, path, samples, bits, note) in [
            (SampleEncoding.s24_3, "16.flac", samples16, 16, "S24_3LE 44100 Hz 2 ch"),
            (.s16, "24.flac", samples24, 24, "S16_LE 96000 Hz 2 ch (converted)"),
        ] {
            let device = CapturingOutput(accepted: [accepted])
            let run = try EngineRun(capturingTo: device)
            run.engine.setQueue([TrackRequest(id: 1, path: dir.file(path))], startAt: 0, startFrame: 0)
            run.engine.play()
            try run.run { run.finished }
            run.shutdown()
            #expect(run.deviceFormats == [note])
            expectSameSamples(device.captured, Fixtures.deviceBytes(samples, bits: bits, encoding: accepted))
        }
    }

    @Test func aTrackTheDeviceRefusesOutrightIsReportedAndSkipped() throws {
        let dir = try TemporaryDirectory("kiosk-refuse")
        defer { dir.remove() }
        let a = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 20000, seed: 1)
        try Fixtures.makeTrack(
            dir.file("odd.flac"), format: PCMFormat(sampleRate: 11025, channels: 2, bitsPerSample: 16), frames: 20000)
        let c = try Fixtures.makeTrack(dir.file("c.flac"), format: cd, frames: 20000, seed: 3)
        let device = CapturingOutput()
        device.refusing = { $0.sampleRate == 11025 }
        let run = try EngineRun(capturingTo: device)
        run.engine.setQueue(
            ["a.flac", "odd.flac", "c.flac"].enumerated().map {
                TrackRequest(id: UInt64($0.offset + 1), path: dir.file($0.element))
            }, startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { run.finished })
        run.shutdown()
        #expect(run.errors.map(\.path) == [dir.file("odd.flac")])
        #expect(run.errors.first?.message == "capture: does not take 11025 Hz")
        #expect(run.started() == [1, 3])
        expectSameSamples(device.captured, Fixtures.bytes(a + c, width: 2))
        #expect(!run.events.contains { if case .deviceLost = $0 { return true } else { return false } })
    }

    @Test func softwareVolumeScalesSamplesBelowFullVolume() throws {
        let dir = try TemporaryDirectory("kiosk-volume")
        defer { dir.remove() }
        let samples = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 20000)
        let run = try playToFile([dir.file("a.flac")], out: dir.file("out.raw"), volume: 50)
        #expect(run.finished)
        let output = try Syscalls.readFile(dir.file("out.raw"))
        expectSameSamples(output, Fixtures.bytes(samples.map { $0 >> 2 }, width: 2))
    }

    @Test func lostDeviceIsReportedReopenedAndPlaybackGoesOnWhereItStopped() throws {
        let dir = try TemporaryDirectory("kiosk-lost")
        defer { dir.remove() }
        let a = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 30000, seed: 1)
        let b = try Fixtures.makeTrack(dir.file("b.flac"), format: cd, frames: 30000, seed: 2)
        let device = CapturingOutput()
        device.failAfterFrames = 10000
        device.failingConfigures = 2
        let run = try EngineRun(capturingTo: device)
        run.engine.setQueue(
            [TrackRequest(id: 1, path: dir.file("a.flac")), TrackRequest(id: 2, path: dir.file("b.flac"))],
            startAt: 0, startFrame: 0)
        run.engine.play()
        try run.run { run.finished }
        run.shutdown()
        let lost = run.events.firstIndex {
            if case .deviceLost(_, let message) = $0 { return message.contains("unplugged") }
            return false
        }
        let back = run.events.firstIndex(of: .deviceBack(device: "capture"))
        #expect(lost != nil && back != nil && lost! < back!)
        #expect(run.started() == [1, 2])
        expectSameSamples(device.captured, Fixtures.bytes(a + b, width: 2), "no frame lost or repeated")
    }

    @Test func anUnderrunIsCountedAndTheTrackGoesOnWithNoFrameLostOrRepeated() throws {
        let dir = try TemporaryDirectory("kiosk-underrun")
        defer { dir.remove() }
        let a = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 30000)
        let device = CapturingOutput()
        device.underrunAfterFrames = 10000
        let run = try EngineRun(capturingTo: device)
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        #expect(run.engine.underruns == 0)
        run.engine.play()
        try run.run { run.finished }
        run.shutdown()
        #expect(run.engine.underruns == 1)
        #expect(!run.events.contains { if case .deviceLost = $0 { return true } else { return false } })
        expectSameSamples(device.captured, Fixtures.bytes(a, width: 2))
    }

    /// Real-time transport on the `none` sink, checked through position reports.
    @Test func pauseResumeSeekStopNextBehaveAsDescribed() throws {
        let dir = try TemporaryDirectory("kiosk-transport")
        defer { dir.remove() }
        let slow = PCMFormat(sampleRate: 8000, channels: 1, bitsPerSample: 16)
        try Fixtures.makeTrack(dir.file("a.flac"), format: slow, frames: 40000)
        try Fixtures.makeTrack(dir.file("b.flac"), format: slow, frames: 6000)
        let run = try EngineRun(settings: EngineRun.settings(device: "none"))
        defer { run.shutdown() }
        let engine = run.engine
        engine.setQueue(
            [TrackRequest(id: 1, path: dir.file("a.flac")), TrackRequest(id: 2, path: dir.file("b.flac"))],
            startAt: 0, startFrame: 0)
        #expect(engine.currentTrackID == 1)
        #expect(engine.positionFrames == 0)
        try run.idle(0.2)
        #expect(run.positions().isEmpty, "setQueue does not start playback")

        engine.play()
        #expect(try run.run { (run.positions(id: 1).last ?? 0) >= 4000 })
        #expect(run.started() == [1])

        engine.pause()
        try run.idle(0.1)
        let paused = engine.positionFrames
        let eventsAtPause = run.events.count
        try run.idle(0.4)
        #expect(engine.positionFrames == paused, "position holds while paused")
        #expect(run.positions(after: eventsAtPause).allSatisfy { $0 <= paused })

        engine.resume()
        #expect(try run.run { (run.positions(id: 1).last ?? 0) > paused + 2000 })

        let beforeSeek = run.events.count
        engine.seek(toFrame: 30000)
        #expect(engine.positionFrames >= 30000)
        #expect(try run.run { !run.positions(after: beforeSeek).isEmpty })
        let afterSeek = run.positions(after: beforeSeek)
        #expect(afterSeek.allSatisfy { $0 >= 30000 }, "\(afterSeek)")
        #expect(afterSeek.first! < 30000 + 4000)

        let beforeStop = run.events.count
        engine.stop()
        #expect(engine.currentTrackID == 1)
        #expect(engine.positionFrames == 0)
        try run.idle(0.4)
        #expect(run.positions(after: beforeStop).isEmpty, "nothing plays after stop")
        #expect(engine.positionFrames == 0)

        let beforePlay = run.events.count
        engine.play()
        #expect(try run.run { run.started(after: beforePlay) == [1] && !run.positions(after: beforePlay).isEmpty })
        #expect(run.positions(after: beforePlay).first! < 4000, "stop rewound to the start")

        let beforeNext = run.events.count
        engine.next()
        #expect(try run.run { run.started(after: beforeNext) == [2] })
        engine.previous()
        #expect(try run.run { run.started(after: beforeNext) == [2, 1] })
        engine.next()
        #expect(try run.run { run.finished })
        #expect(engine.currentTrackID == nil)
        #expect(run.events.last == .queueFinished)
    }

    /// `track` (id 1) playing on a capture device paced like a sound card, half a second in.
    private func playingHalfASecondIn(_ track: String) throws -> (EngineRun, CapturingOutput) {
        let device = CapturingOutput()
        device.paced = true
        let run = try EngineRun(capturingTo: device)
        run.engine.setQueue([TrackRequest(id: 1, path: track)], startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { (run.positions(id: 1).last ?? 0) >= 22050 })
        return (run, device)
    }

    @Test func stoppingClosesTheDeviceAndPlayReopensItAtTheTracksStart() throws {
        let dir = try TemporaryDirectory("kiosk-release")
        defer { dir.remove() }
        let a = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 4 * 44100)
        let (run, device) = try playingHalfASecondIn(dir.file("a.flac"))
        #expect(device.isOpen, "playing: the device is open")

        run.engine.stop()
        #expect(try run.run(seconds: 5) { !device.isOpen }, "stopped: the device is closed")
        #expect(!run.finished, "stopped mid-track")

        let played = run.events.count
        run.engine.play()
        #expect(try run.run(seconds: 60) { run.finished })
        run.shutdown()
        #expect(run.started(after: played) == [1])
        #expect(!run.events.contains { if case .deviceLost = $0 { return true } else { return false } })
        let whole = Fixtures.bytes(a, width: 2)
        #expect(device.captured.count > whole.count)
        #expect(Array(device.captured.suffix(whole.count)) == whole, "the track again from its first frame, bit-exact")
    }

    @Test func pausingKeepsTheDeviceOpen() throws {
        let dir = try TemporaryDirectory("kiosk-pause-open")
        defer { dir.remove() }
        try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 4 * 44100)
        let (run, device) = try playingHalfASecondIn(dir.file("a.flac"))
        defer { run.shutdown() }
        run.engine.pause()
        try run.idle(0.5)
        #expect(!run.finished && device.isOpen, "paused mid-track: the device stays open, holding its frames")
    }

    @Test func switchingTheDeviceKeepsTheQueueAndThePosition() throws {
        let dir = try TemporaryDirectory("kiosk-switch")
        defer { dir.remove() }
        let slow = PCMFormat(sampleRate: 8000, channels: 1, bitsPerSample: 16)
        let samples = try Fixtures.makeTrack(dir.file("a.flac"), format: slow, frames: 24000)
        let run = try EngineRun(settings: EngineRun.settings(device: "none"))
        defer { run.shutdown() }
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { (run.positions().last ?? 0) >= 6000 })
        let at = Int(run.engine.positionFrames)
        run.engine.setDevice(filePCM(dir.file("out.raw")))
        #expect(try run.run { run.finished })
        run.shutdown()
        let output = try Syscalls.readFile(dir.file("out.raw"))
        let all = Fixtures.bytes(samples, width: 2)
        #expect(!output.isEmpty && output.count <= all.count)
        #expect(Array(all.suffix(output.count)) == output, "the new device gets the rest of the track")
        let resumedAt = (all.count - output.count) / 2
        #expect(abs(resumedAt - at) < 2000, "resumed at frame \(resumedAt), switched at \(at)")
    }
}

/// The engine's fade (the sleep timer's end): a smooth fall to silence over the asked length of
/// audio, heard on ALSA's file plugin.
@Suite(.tags(.integration), .serialized, .enabled(if: Fixtures.hasFlac, "needs the flac tool (apt-get install flac)"))
struct AudioEngineFadeTests {
    /// Plays 2 s of a constant level (DC at 8192 of 16 bits) with `prepare` applied before play;
    /// returns each output frame's level relative to the source (left channel).
    private func levels(_ prepare: (AudioEngine) -> Void) throws -> [Double] {
        let dir = try TemporaryDirectory("kiosk-fade")
        defer { dir.remove() }
        let frames = 88200
        try Fixtures.encode([Int32](repeating: 8192, count: frames * 2), format: cd, to: dir.file("dc.flac"))
        let run = try EngineRun(settings: EngineRun.settings(device: filePCM(dir.file("out.raw"))))
        defer { run.shutdown() }
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("dc.flac"))], startAt: 0, startFrame: 0)
        prepare(run.engine)
        run.engine.play()
        #expect(try run.run(seconds: 60) { run.finished })
        let bytes = try Syscalls.readFile(dir.file("out.raw"))
        #expect(bytes.count == frames * 4)
        return stride(from: 0, to: bytes.count - 3, by: 4).map { i in
            Double(Int16(bitPattern: UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8)) / 8192
        }
    }

    @Test func aOneSecondFadeFallsSmoothlyToSilenceAndStaysSilent() throws {
        let level = try levels { $0.fadeOut(overMilliseconds: 1000) }
        #expect(level[0] > 0.99)
        // (1 − t)³: an eighth at half-way.
        #expect(abs(level[22050] - 0.125) < 0.01)
        #expect(level.dropFirst(44100 + 32).allSatisfy { $0 == 0 })
        // Never louder than before, and no step an ear hears as a click (under 1 % of the level).
        #expect(zip(level, level.dropFirst()).allSatisfy { $1 <= $0 + 1e-9 })
        let biggestStep = zip(level, level.dropFirst()).map { $0 - $1 }.max() ?? 0
        #expect(biggestStep < 0.01, "largest step \(biggestStep)")
    }

    @Test func aCancelledFadeLeavesTheSamplesUntouched() throws {
        let level = try levels { engine in
            engine.fadeOut(overMilliseconds: 1000)
            engine.cancelFade()
        }
        #expect(level.allSatisfy { $0 == 1 })
    }
}
