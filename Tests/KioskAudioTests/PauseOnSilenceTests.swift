// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

private let cd = PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16)

/// `AudioSettings.keepOpen` on a device whose clock stops when it pauses or drains: the Pi 5's
/// DesignWare I2S (`pauseStopsClock`) and any PCM whose hw_params say it cannot pause. A pause
/// there feeds silence instead, so a DAC HAT's clock never stops (and never pops).
@Suite(.tags(.integration), .serialized, .enabled(if: Fixtures.hasFlac, "needs the flac tool (apt-get install flac)"))
struct PauseOnSilenceTests {
    private struct Paused {
        var silenceFed: Int
        var clockStops: Int
        var latestPosition: Int64
        var framesBeforePause: Int
    }

    /// Plays a track, pauses (until 0.1 s of silence went out when `feedsSilence`, else 0.3 s),
    /// resumes to the end; what happened during the pause and the captured frames.
    private func pauseAndResume(_ device: CapturingOutput, pauseStopsClock: Bool, feedsSilence: Bool) throws -> (
        Paused, [Int32], [Int32]
    ) {
        let dir = try TemporaryDirectory("kiosk-pause-silence")
        defer { dir.remove() }
        let source = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 40000)
        device.paced = true
        var settings = EngineRun.settings(device: "capture")
        settings.makeOutput = { _ in device }
        settings.declickMilliseconds = 0
        settings.keepOpen = true
        settings.pauseStopsClock = pauseStopsClock
        let run = try EngineRun(settings: settings)
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { device.framesTaken.load(ordering: .relaxed) > 10000 })
        let stopsBefore =
            device.pauses.load(ordering: .relaxed) + device.drains.load(ordering: .relaxed)
            + device.drops.load(ordering: .relaxed)
        run.engine.pause()
        try run.idle(0.1)
        let atPause = device.framesTaken.load(ordering: .relaxed)
        let eventsAtPause = run.events.count
        if feedsSilence {
            // However late a loaded machine runs the output thread, a tenth of a second arrives.
            #expect(try run.run(seconds: 10) { device.framesTaken.load(ordering: .relaxed) >= atPause + 4410 })
        } else {
            try run.idle(0.3)
        }
        let paused = Paused(
            silenceFed: device.framesTaken.load(ordering: .relaxed) - atPause,
            clockStops: device.pauses.load(ordering: .relaxed) + device.drains.load(ordering: .relaxed)
                + device.drops.load(ordering: .relaxed) - stopsBefore,
            latestPosition: run.positions(after: eventsAtPause).max() ?? 0, framesBeforePause: atPause)
        run.engine.resume()
        #expect(try run.run { run.events.contains { if case .trackFinished = $0 { true } else { false } } })
        run.shutdown()
        return (paused, Fixtures.parse(device.captured, width: 2, significantBits: 32), source)
    }

    /// The frames that are not all zero, in order.
    private func sounding(_ samples: [Int32]) -> [Int32] {
        var out: [Int32] = []
        var index = 0
        while index + 1 < samples.count {
            if samples[index] != 0 || samples[index + 1] != 0 { out += [samples[index], samples[index + 1]] }
            index += 2
        }
        return out
    }

    @Test func aPauseOnAPCMThatCannotPauseFeedsSilenceAndTheTrackGoesOnAfterIt() throws {
        let device = CapturingOutput()
        device.canPause = false
        let (paused, captured, source) = try pauseAndResume(device, pauseStopsClock: false, feedsSilence: true)
        #expect(paused.clockStops == 0, "no pause, drain or drop while paused")
        #expect(paused.silenceFed >= 4410, "silence fed while paused")
        #expect(paused.latestPosition <= Int64(paused.framesBeforePause), "the position stays while paused")
        #expect(sounding(captured) == sounding(source), "every frame of the track once, in order")
    }

    @Test func aPauseOnAClockStoppingI2SFeedsSilenceEvenThoughThePCMCouldPause() throws {
        let device = CapturingOutput()
        let (paused, captured, source) = try pauseAndResume(device, pauseStopsClock: true, feedsSilence: true)
        #expect(paused.clockStops == 0, "no snd_pcm_pause, drain or drop while paused")
        #expect(paused.silenceFed >= 4410)
        #expect(paused.latestPosition <= Int64(paused.framesBeforePause))
        #expect(sounding(captured) == sounding(source))
    }

    @Test func elsewhereAPauseKeptOpenPausesThePCMInPlace() throws {
        let device = CapturingOutput()
        let (paused, captured, source) = try pauseAndResume(device, pauseStopsClock: false, feedsSilence: false)
        #expect(paused.clockStops >= 1, "snd_pcm_pause (bcm2835-i2s keeps its clock while paused)")
        #expect(paused.silenceFed == 0, "nothing goes out while paused in place")
        #expect(sounding(captured) == sounding(source))
    }
}
