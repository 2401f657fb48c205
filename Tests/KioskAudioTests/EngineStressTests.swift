// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// The engine's start, stop, seek, skip, queue and device switch under a storm of commands from the
/// loop thread while its decoder and output threads run: nothing breaks, nothing is reported as an
/// error, and afterwards it still plays a track bit-exactly. The cross-thread paths `make tsan`
/// checks.
@Suite(.tags(.integration), .serialized, .enabled(if: Fixtures.hasFlac, "needs the flac tool (apt-get install flac)"))
struct EngineStressTests {
    @Test(arguments: [UInt64(1), 2, 3])
    func aCommandStormLeavesTheEnginePlayingBitExactly(seed: UInt64) throws {
        let dir = try TemporaryDirectory("kiosk-storm")
        defer { dir.remove() }
        let formats = [
            PCMFormat(sampleRate: 8000, channels: 1, bitsPerSample: 16),
            PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16),
            PCMFormat(sampleRate: 48000, channels: 2, bitsPerSample: 24),
        ]
        var tracks: [TrackRequest] = []
        var samples: [[Int32]] = []
        for (i, format) in formats.enumerated() {
            samples.append(
                try Fixtures.makeTrack(
                    dir.file("\(i).flac"), format: format, frames: format.sampleRate / 2, seed: UInt64(i)))
            tracks.append(TrackRequest(id: UInt64(i + 1), path: dir.file("\(i).flac")))
        }
        let run = try EngineRun(settings: EngineRun.settings(device: "none"))
        defer { run.shutdown() }
        let engine = run.engine
        var random = seed &* 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            return Int(random % UInt64(bound))
        }
        engine.setQueue(tracks, startAt: 0, startFrame: 0)
        engine.play()
        for _ in 0..<200 {
            switch next(10) {
            case 0: engine.play()
            case 1: engine.pause()
            case 2: engine.stop()
            case 3: engine.seek(toFrame: Int64(next(20000)))
            case 4: engine.next()
            case 5: engine.previous()
            case 6: engine.setQueue(tracks, startAt: next(3), startFrame: Int64(next(4000)))
            case 7: engine.setVolume(next(101))
            case 8: engine.setDevice(next(2) == 0 ? "none" : "null")
            default: engine.append([tracks[next(3)]])
            }
            try run.idle(Double(next(15)) / 1000)
        }
        let errors = run.events.filter { if case .error = $0 { true } else { false } }
        #expect(errors.isEmpty, "\(errors)")

        // Then a track through the file PCM, from its start: exactly its samples.
        let out = dir.file("out.raw")
        engine.setVolume(100)
        engine.setDevice("file:'\(out)',raw")
        let before = run.events.count
        engine.setQueue([TrackRequest(id: 9, path: dir.file("1.flac"))], startAt: 0, startFrame: 0)
        engine.play()
        #expect(try run.run { run.events.dropFirst(before).contains(.queueFinished) })
        run.shutdown()
        let expected = Fixtures.bytes(samples[1], width: 2)
        let output = try Syscalls.readFile(out)
        #expect(output.count >= expected.count)
        #expect(Array(output.suffix(expected.count)) == expected, "the last track played is bit-exact")
    }
}
