// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

private let cd = PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16)

/// A track that plays part of its file (MPD's `rangeid`): `TrackRequest.startFrame` and `endFrame`.
@Suite(.tags(.integration), .serialized, .enabled(if: Fixtures.hasFlac, "needs the flac tool (apt-get install flac)"))
struct TrackRangeTests {
    /// Plays `requests` through the engine into the ALSA file PCM `out`; returns the run (shut down).
    private func play(_ requests: [TrackRequest], out: String) throws -> EngineRun {
        let run = try EngineRun(settings: EngineRun.settings(device: "file:'\(out)',raw"))
        defer { run.shutdown() }
        run.engine.setQueue(requests, startAt: 0, startFrame: 0)
        run.engine.play()
        try run.run(seconds: 60) { run.finished }
        return run
    }

    /// Frames START..<END of the file are played, byte for byte as the reference decoder (`flac -d`)
    /// gives them, and nothing before or after (both bounds off FLAC's 4096-frame blocks).
    @Test func aRangedTrackPlaysExactlyTheFramesOfItsRange() throws {
        let dir = try TemporaryDirectory("kiosk-range")
        defer { dir.remove() }
        try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 100_000, seed: 11)
        let reference = dir.file("reference.raw")
        let decoded = run(
            Fixtures.flacTool!,
            [
                "-d", "-s", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "-o", reference,
                dir.file("a.flac"),
            ])
        #expect(decoded.status == 0, "flac -d: \(decoded.errors)")
        let whole = try Syscalls.readFile(reference, limit: 1 << 30)
        let (start, end) = (12_345, 60_001)
        let playback = try play(
            [TrackRequest(id: 1, path: dir.file("a.flac"), startFrame: Int64(start), endFrame: Int64(end))],
            out: dir.file("out.raw"))
        let output = try Syscalls.readFile(dir.file("out.raw"), limit: 1 << 30)
        #expect(output.count / 4 == end - start, "frames played")
        expectSameSamples(output, Array(whole[(start * 4)..<(end * 4)]), "frames \(start)..<\(end)")
        #expect(playback.events.contains(.trackFinished(id: 1)))
    }

    /// Positions in a ranged track count from the file's start (the player's frames): the position
    /// before it plays is the range's start, and none reported reaches past its end.
    @Test func positionsOfARangedTrackCountFromTheFilesStart() throws {
        let dir = try TemporaryDirectory("kiosk-range-positions")
        defer { dir.remove() }
        try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 100_000, seed: 12)
        let run = try EngineRun(settings: EngineRun.settings(device: "none"))
        defer { run.shutdown() }
        run.engine.setQueue(
            [TrackRequest(id: 1, path: dir.file("a.flac"), startFrame: 44_100, endFrame: 66_150)], startAt: 0,
            startFrame: 0)
        #expect(run.engine.playbackPosition.frames == 44_100, "before it plays: its range's start")
        run.engine.play()
        #expect(try run.run(seconds: 10) { run.finished })
        let positions = run.positions(id: 1)
        #expect(!positions.isEmpty)
        #expect(positions.allSatisfy { (44_100...66_150).contains($0) }, "\(positions)")
    }

    /// The frames after a range's end are not played: the next track follows the range's last frame
    /// without a gap, as after a file's end, on one device set-up.
    @Test func aRangedTrackIsFollowedGaplesslyByTheNextOne() throws {
        let dir = try TemporaryDirectory("kiosk-range-gapless")
        defer { dir.remove() }
        let signal = Fixtures.signal(frames: 90_000, channels: 2, bits: 16, seed: 13)
        let cut = 44_100 + 777
        let tail = Fixtures.signal(frames: 10_000, channels: 2, bits: 16, seed: 14)  // never played
        try Fixtures.encode(Array(signal[..<(cut * 2)]) + tail, format: cd, to: dir.file("1.flac"))
        try Fixtures.encode(Array(signal[(cut * 2)...]), format: cd, to: dir.file("2.flac"))
        let run = try play(
            [
                TrackRequest(id: 1, path: dir.file("1.flac"), endFrame: Int64(cut)),
                TrackRequest(id: 2, path: dir.file("2.flac")),
            ], out: dir.file("out.raw"))
        let output = try Syscalls.readFile(dir.file("out.raw"), limit: 1 << 30)
        expectSameSamples(output, Fixtures.bytes(signal, width: 2), "the range, then the next track")
        #expect(run.deviceFormats == ["S16_LE 44100 Hz 2 ch"], "one device set-up for both tracks")
        let order = run.events.compactMap { event -> String? in
            switch event {
            case .trackStarted(let id, _, _, _): "start \(id)"
            case .trackFinished(let id): "end \(id)"
            case .queueFinished: "done"
            default: nil
            }
        }
        #expect(order == ["start 1", "end 1", "start 2", "end 2", "done"])
    }
}
