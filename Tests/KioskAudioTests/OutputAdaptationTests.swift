// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// What the output stage sends when the device refuses the stream's channels or rate.
struct DeviceFitTests {
    @Test func aRefusedRateBecomesTheNearestTakenRateOfTheSameFamily() {
        let hdmi: Set<Int> = [32000, 44100, 48000]
        #expect(DeviceFit.rate(for: 96000, accepts: { hdmi.contains($0) }) == 48000)
        #expect(DeviceFit.rate(for: 192_000, accepts: { hdmi.contains($0) }) == 48000)
        #expect(DeviceFit.rate(for: 88200, accepts: { hdmi.contains($0) }) == 44100)
        #expect(DeviceFit.rate(for: 22050, accepts: { hdmi.contains($0) }) == 44100)
        #expect(DeviceFit.rate(for: 44100, accepts: { hdmi.contains($0) }) == 44100)
        // No rate of the family: the nearest of the others.
        #expect(DeviceFit.rate(for: 88200, accepts: { $0 == 48000 }) == 48000)
        #expect(DeviceFit.rate(for: 44100, accepts: { _ in false }) == nil)
    }

    @Test func aRefusedChannelCountBecomesStereoWhenTheDeviceTakesIt() {
        #expect(DeviceFit.channels(for: 1, accepts: { $0 == 2 }) == 2)
        #expect(DeviceFit.channels(for: 6, accepts: { $0 == 2 }) == 2)
        #expect(DeviceFit.channels(for: 2, accepts: { $0 == 2 }) == 2)
        #expect(DeviceFit.channels(for: 2, accepts: { $0 >= 4 }) == 4)
        #expect(DeviceFit.channels(for: 6, accepts: { $0 == 1 }) == 1)
    }
}

/// The engine through a device that takes only some channel counts or rates (the capture device).
@Suite(.tags(.integration), .enabled(if: Fixtures.hasFlac, "needs the flac tool (apt-get install flac)"))
struct OutputAdaptationTests {
    private func play(_ path: String, on device: CapturingOutput) throws -> EngineRun {
        let run = try EngineRun(capturingTo: device)
        run.engine.setQueue([TrackRequest(id: 1, path: path)], startAt: 0, startFrame: 0)
        run.engine.play()
        #expect(try run.run { run.finished })
        run.shutdown()
        return run
    }

    @Test func aMonoTrackOnAStereoOnlyDeviceHasBothChannelsIdenticalToTheSource() throws {
        let dir = try TemporaryDirectory("kiosk-adapt")
        defer { dir.remove() }
        let mono = PCMFormat(sampleRate: 22050, channels: 1, bitsPerSample: 16)
        let samples = try Fixtures.makeTrack(dir.file("mono.flac"), format: mono, frames: 30000)
        let device = CapturingOutput(channels: 2...2)
        let run = try play(dir.file("mono.flac"), on: device)
        #expect(run.errors.isEmpty)
        #expect(run.deviceFormats.first?.hasPrefix("S16_LE 22050 Hz 2 ch (converted: 1 → 2 ch (copied))") == true)
        let out = Fixtures.parse(device.captured, width: 2, significantBits: 16)
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] >> 16 }
        let right = stride(from: 1, to: out.count, by: 2).map { out[$0] >> 16 }
        expectSameSamples(left, samples, "left is the source, sample for sample")
        expectSameSamples(right, samples, "right is the source, sample for sample")
    }

    @Test func aSixChannelTrackOnAStereoOnlyDeviceIsDownmixedByBS775() throws {
        let dir = try TemporaryDirectory("kiosk-adapt")
        defer { dir.remove() }
        let six = PCMFormat(sampleRate: 44100, channels: 6, bitsPerSample: 16)
        let samples = try Fixtures.makeTrack(dir.file("six.flac"), format: six, frames: 20000)
        let device = CapturingOutput(channels: 1...2)
        let run = try play(dir.file("six.flac"), on: device)
        #expect(run.errors.isEmpty)
        let out = Fixtures.parse(device.captured, width: 4, significantBits: 32)
        #expect(out.count == 20000 * 2)
        // FL FR FC LFE BL BR: centre and surrounds at −3 dB, LFE out, each side normalised.
        let h = 0.5.squareRoot()
        let norm = 1 + h + h
        var worst = 0.0
        for f in 0..<min(20000, out.count / 2) {
            let s = (0..<6).map { Double(samples[f * 6 + $0]) * 65536 }
            let left = (s[0] + h * s[2] + h * s[4]) / norm
            let right = (s[1] + h * s[2] + h * s[5]) / norm
            worst = max(worst, abs(Double(out[2 * f]) - left), abs(Double(out[2 * f + 1]) - right))
        }
        #expect(worst <= 2, "largest difference from the BS.775 reference: \(worst) (32-bit steps)")
    }

    @Test func a96kHzTrackOnA48kHzDeviceIsResampledCleanly() throws {
        let dir = try TemporaryDirectory("kiosk-adapt")
        defer { dir.remove() }
        let hi = PCMFormat(sampleRate: 96000, channels: 2, bitsPerSample: 24)
        let frames = 96000
        var samples = [Int32](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            let v = Int32(4_000_000 * sin(2 * Double.pi * 1000 * Double(i) / 96000))
            samples[2 * i] = v
            samples[2 * i + 1] = v / 2
        }
        try Fixtures.encode(samples, format: hi, to: dir.file("hi.flac"))
        let device = CapturingOutput(rates: [44100, 48000])
        // Paced, so positions come through the second (one a quarter second while the loop keeps up).
        device.paced = true
        let run = try play(dir.file("hi.flac"), on: device)
        #expect(run.errors.isEmpty)
        #expect(run.deviceFormats.first?.contains("96000 → 48000 Hz (libsoxr HQ)") == true)
        let out = Fixtures.parse(device.captured, width: 4, significantBits: 32)
        let outFrames = out.count / 2
        #expect(abs(outFrames - frames / 2) <= 64, "\(outFrames) frames at 48 kHz for 1 s")
        // The left channel is still a 1 kHz sine of the same level, with next to nothing else.
        let scale = Double(1 << 8) * 4_000_000
        // Least squares for y ≈ a·sin + b·cos (the 2×2 normal equations).
        var ss = 0.0
        var cc = 0.0
        var sc = 0.0
        var ys = 0.0
        var yc = 0.0
        var count = 0.0
        let range = 2000..<(outFrames - 2000)
        for n in range {
            let phase = 2 * Double.pi * 1000 * Double(n) / 48000
            let y = Double(out[2 * n]) / scale
            ss += sin(phase) * sin(phase)
            cc += cos(phase) * cos(phase)
            sc += sin(phase) * cos(phase)
            ys += y * sin(phase)
            yc += y * cos(phase)
            count += 1
        }
        let determinant = ss * cc - sc * sc
        let a = (ys * cc - yc * sc) / determinant
        let b = (yc * ss - ys * sc) / determinant
        #expect(abs((a * a + b * b).squareRoot() - 1) < 0.001, "level kept")
        var residual = 0.0
        for n in range {
            let phase = 2 * Double.pi * 1000 * Double(n) / 48000
            let e = Double(out[2 * n]) / scale - (a * sin(phase) + b * cos(phase))
            residual += e * e
        }
        let db = 10 * log10(residual / count / 0.5)
        #expect(db < -110, "what is not the sine: \(db) dB (libsoxr HQ: about −134 dB here)")
        // Positions count the stream's frames (96 kHz), not the device's (48 kHz).
        let latest = run.positions().max() ?? 0
        #expect(latest <= Int64(frames) && latest > Int64(frames) / 2, "latest position \(latest)")
    }
}

/// `kiosk-player play` through alsa-lib PCMs as strict as a DAC HAT or an HDMI sink: `stereo_only`
/// (a `multi` over ALSA's file plugin: 2 channels, any rate) and `hat` (a `plug` whose slave is fixed
/// at 2 channels and 48 kHz: the player opens it without ALSA's automatic conversions, so it takes
/// nothing else). Mono FLAC and MP3, 6-channel FLAC and 96 kHz FLAC all play.
@Suite(
    .tags(.integration), .serialized,
    .enabled(if: Fixtures.hasFlac && MusicFiles.hasMP3Tools, "needs flac, sox, lame, mpg123"))
struct ConstrainedDeviceTests {
    private let dir: TemporaryDirectory

    init() throws {
        dir = try TemporaryDirectory("kiosk-constrained")
        try dir.write(".asoundrc", constrainedDevicesALSAConfig(capturingTo: dir.file("out.raw")))
    }

    private func play(_ file: String, device: String) -> ProcessResult {
        var environment = currentEnvironment()
        environment["HOME"] = dir.path
        environment["JOURNAL_STREAM"] = nil
        return run(
            TestPaths.playerBinary, ["play", "--realtime", "off", "--device", device, file], environment: environment,
            timeoutSeconds: 60)
    }

    private func makeFiles() throws -> [String: [Int32]] {
        var sources: [String: [Int32]] = [:]
        let mono = PCMFormat(sampleRate: 22050, channels: 1, bitsPerSample: 16)
        sources["mono.flac"] = try Fixtures.makeTrack(dir.file("mono.flac"), format: mono, frames: 22050)
        try Fixtures.makeTrack(
            dir.file("six.flac"), format: PCMFormat(sampleRate: 44100, channels: 6, bitsPerSample: 16), frames: 22050)
        try Fixtures.makeTrack(
            dir.file("hi.flac"), format: PCMFormat(sampleRate: 96000, channels: 2, bitsPerSample: 24), frames: 48000)
        let tone = MusicFiles.tone(frames: 22050, rate: 22050)
        let monoTone = stride(from: 0, to: tone.count, by: 2).map { tone[$0] }
        let wav = dir.file("mono-source.wav")
        try MusicFiles.soxWrite(monoTone, bits: 16, channels: 1, rate: 22050, to: wav)
        try MusicFiles.tool(MusicFiles.lame, ["--quiet", "-m", "m", "-V2", wav, dir.file("mono.mp3")])
        return sources
    }

    @Test func everyFilePlaysOnAStereoOnlyDeviceAndOnA48kHzStereoOnlyDevice() throws {
        defer { dir.remove() }
        let sources = try makeFiles()
        for device in ["stereo_only", "hat"] {
            for file in ["mono.flac", "mono.mp3", "six.flac", "hi.flac"] {
                let result = play(dir.file(file), device: device)
                #expect(result.status == 0, "\(file) on \(device): \(result.errors)")
                #expect(!result.errors.contains("cannot play"), "\(file) on \(device): \(result.errors)")
                let out = try Syscalls.readFile(dir.file("out.raw"), limit: 1 << 26)
                #expect(out.count > 0, "\(file) on \(device): nothing written")
            }
        }
        // The mono FLAC on the stereo-only device: both channels bit-identical to the source.
        let result = play(dir.file("mono.flac"), device: "stereo_only")
        #expect(result.output.contains("S16_LE 22050 Hz 2 ch (converted: 1 → 2 ch (copied))"), "\(result.output)")
        let out = Fixtures.parse(try Syscalls.readFile(dir.file("out.raw")), width: 2, significantBits: 16)
        let source = sources["mono.flac"] ?? []
        #expect(stride(from: 0, to: out.count, by: 2).map { out[$0] >> 16 } == source)
        #expect(stride(from: 1, to: out.count, by: 2).map { out[$0] >> 16 } == source)
        // The mono MP3 on the stereo-only device: two identical channels.
        _ = play(dir.file("mono.mp3"), device: "stereo_only")
        let mp3 = Fixtures.parse(try Syscalls.readFile(dir.file("out.raw")), width: 4, significantBits: 32)
        #expect(mp3.count > 40000)
        #expect(
            stride(from: 0, to: mp3.count, by: 2).map { mp3[$0] }
                == stride(from: 1, to: mp3.count, by: 2).map { mp3[$0] })
    }
}
