// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskModel
import KioskSystem
import KioskTestSupport
import Synchronization

/// Test audio: deterministic signals, FLAC files made with the `flac` tool, reference decodes.
enum Fixtures {
    static let flacTool: String? = which("flac")
    static var hasFlac: Bool { flacTool != nil }

    /// frames × channels samples (interleaved) of a sine plus noise, within `bits`.
    static func signal(frames: Int, channels: Int, bits: Int, seed: UInt64 = 1) -> [Int32] {
        var state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let amplitude = Double(Int64(1) << (bits - 2))
        let noiseRange = Int64(1) << max(1, bits - 6)
        var samples = [Int32](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            for c in 0..<channels {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = Int64(state >> 33) % noiseRange - noiseRange / 2
                let tone = amplitude * sin(Double(i) * 0.031 * Double(c + 1))
                samples[i * channels + c] = Int32(Int64(tone) + noise)
            }
        }
        return samples
    }

    /// Little-endian signed bytes, `width` bytes per sample, values as given.
    static func bytes(_ samples: [Int32], width: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: samples.count * width)
        for (i, s) in samples.enumerated() {
            let u = UInt32(bitPattern: s)
            for b in 0..<width { out[i * width + b] = UInt8(truncatingIfNeeded: u >> (8 * b)) }
        }
        return out
    }

    /// The bytes a device gets in `encoding` for samples of `bits` significant bits.
    static func deviceBytes(_ samples: [Int32], bits: Int, encoding: SampleEncoding) -> [UInt8] {
        let leftJustified = samples.map { $0 << Int32(32 - bits) }
        switch encoding {
        case .s16: return bytes(leftJustified.map { $0 >> 16 }, width: 2)
        case .s24_3: return bytes(leftJustified.map { $0 >> 8 }, width: 3)
        case .s24: return bytes(leftJustified.map { $0 >> 8 }, width: 4)
        case .s32: return bytes(leftJustified, width: 4)
        }
    }

    /// Encodes `samples` (bits must be 8, 16, 24 or 32) into a FLAC file at `path`.
    static func encode(_ samples: [Int32], format: PCMFormat, to path: String, blockSize: Int? = nil) throws {
        guard let flac = flacTool else { throw Errno(rawValue: ENOENT, context: "flac tool") }
        let raw = path + ".raw"
        try AtomicFile.replace(raw, with: bytes(samples, width: format.bitsPerSample / 8))
        defer { unlink(raw) }
        var arguments = [
            "-s", "-f", "--force-raw-format", "--endian=little", "--sign=signed",
            "--channels=\(format.channels)", "--bps=\(format.bitsPerSample)", "--sample-rate=\(format.sampleRate)",
        ]
        if let blockSize { arguments.append("--blocksize=\(blockSize)") }
        let result = run(flac, arguments + ["-o", path, raw])
        if result.status != 0 { throw Errno(rawValue: EIO, context: "flac encode: \(result.errors)") }
    }

    /// Makes a FLAC file of a signal; returns its samples.
    @discardableResult
    static func makeTrack(_ path: String, format: PCMFormat, frames: Int, seed: UInt64 = 1) throws -> [Int32] {
        let samples = signal(frames: frames, channels: format.channels, bits: format.bitsPerSample, seed: seed)
        try encode(samples, format: format, to: path)
        return samples
    }

    /// The samples `flac -d` decodes from `path`, left-justified to 32 bits: raw output
    /// (`--force-raw-format --endian=little --sign=signed`) for 8/16/24/32 bits; for other depths,
    /// which flac will not write raw, the WAV data chunk (samples left-justified in their container).
    static func reference(_ path: String, bits: Int, scratch: TemporaryDirectory) throws -> [Int32] {
        guard let flac = flacTool else { throw Errno(rawValue: ENOENT, context: "flac tool") }
        if bits % 8 == 0 {
            let out = scratch.file("reference.raw")
            let result = run(
                flac, ["-d", "-s", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "-o", out, path])
            if result.status != 0 { throw Errno(rawValue: EIO, context: "flac -d: \(result.errors)") }
            defer { unlink(out) }
            return parse(try Syscalls.readFile(out, limit: 1 << 30), width: bits / 8, significantBits: bits)
        }
        let out = scratch.file("reference.wav")
        let result = run(flac, ["-d", "-s", "-f", "-o", out, path])
        if result.status != 0 { throw Errno(rawValue: EIO, context: "flac -d: \(result.errors)") }
        defer { unlink(out) }
        let wav = try Syscalls.readFile(out, limit: 1 << 30)
        var offset = 12
        var width = 0
        while offset + 8 <= wav.count {
            let id = String(decoding: wav[offset..<offset + 4], as: UTF8.self)
            let size = Int(le32(wav, offset + 4))
            if id == "fmt " {
                let channels = Int(le16(wav, offset + 10))
                width = Int(le16(wav, offset + 20)) / channels
            }
            if id == "data" {
                let data = Array(wav[(offset + 8)..<min(wav.count, offset + 8 + size)])
                return parse(data, width: width, significantBits: width * 8)
            }
            offset += 8 + size + (size & 1)
        }
        throw Errno(rawValue: EINVAL, context: "no data chunk in \(out)")
    }

    static func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    static func le32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(le16(b, i)) | UInt32(le16(b, i + 2)) << 16 }

    /// Signed little-endian samples of `width` bytes, left-justified to 32 bits from `significantBits`.
    static func parse(_ data: [UInt8], width: Int, significantBits: Int) -> [Int32] {
        let count = data.count / width
        var out = [Int32](repeating: 0, count: count)
        data.withUnsafeBufferPointer { b in
            for i in 0..<count {
                var u: UInt32 = 0
                for k in 0..<width { u |= UInt32(b[i * width + k]) << (8 * k) }
                // Sign-extend from width*8 bits, then left-justify.
                let shifted = Int32(bitPattern: u << UInt32(32 - width * 8))
                out[i] = (shifted >> Int32(32 - width * 8)) << Int32(32 - significantBits)
            }
        }
        return out
    }

    /// Left-justified 32-bit samples as device bytes.
    static func encodeLeftJustified(_ samples: [Int32], as encoding: SampleEncoding) -> [UInt8] {
        deviceBytes(samples, bits: 32, encoding: encoding)
    }

    /// Offset of the first frame of a FLAC file (after "fLaC" and the metadata blocks).
    static func firstFrameOffset(_ file: [UInt8]) -> Int {
        var offset = 4
        while offset + 4 <= file.count {
            let last = file[offset] & 0x80 != 0
            let length = Int(file[offset + 1]) << 16 | Int(file[offset + 2]) << 8 | Int(file[offset + 3])
            offset += 4 + length
            if last { break }
        }
        return offset
    }

    static func encoding(named text: String) -> SampleEncoding? {
        let name = text.split(separator: " ").first.map(String.init) ?? ""
        return SampleEncoding.allCases.first { $0.alsaName == name }
    }
}

/// An engine on a loop of the calling thread, recording its events.
final class EngineRun {
    final class Recorder {
        var events: [AudioEvent] = []
        /// Runs on the loop thread after each event is recorded (a test's stand-in for a busy loop).
        var after: ((AudioEvent) -> Void)?
    }
    let loop: EventLoop
    let engine: AudioEngine
    let recorder: Recorder
    var events: [AudioEvent] { recorder.events }

    /// A run whose engine plays into `device`, whatever device name it opens.
    convenience init(capturingTo device: CapturingOutput) throws {
        var settings = EngineRun.settings(device: "capture")
        settings.makeOutput = { _ in device }
        try self.init(settings: settings)
    }

    init(settings: AudioSettings) throws {
        loop = try EventLoop()
        let recorder = Recorder()
        self.recorder = recorder
        engine = try AudioEngine(loop: loop, settings: settings) {
            recorder.events.append($0)
            recorder.after?($0)
        }
    }

    static func settings(device: String) -> AudioSettings {
        var settings = AudioSettings(device: device, bufferMs: 60, ringSeconds: 0.5, realtimePriority: nil)
        settings.device = device
        return settings
    }

    /// Runs the loop until `condition` holds; false after `seconds`.
    @discardableResult
    func run(seconds: Double = 30, until condition: () -> Bool) throws -> Bool {
        try loop.run(until: condition, timeoutNanoseconds: UInt64(seconds * 1e9))
    }

    /// Runs the loop for `seconds`.
    func idle(_ seconds: Double) throws {
        try loop.run(forNanoseconds: UInt64(seconds * 1e9))
    }

    var finished: Bool { events.contains(.queueFinished) }

    func positions(after index: Int = 0, id: UInt64? = nil) -> [Int64] {
        events[index...].compactMap {
            if case .position(let eventID, let frames, _) = $0, id == nil || eventID == id { return frames }
            return nil
        }
    }

    func started(after index: Int = 0) -> [UInt64] {
        events[index...].compactMap {
            if case .trackStarted(let id, _, _, _) = $0 { return id }
            return nil
        }
    }

    var deviceFormats: [String] {
        events.compactMap {
            if case .formatChanged(_, let text) = $0 { return text }
            return nil
        }
    }

    var errors: [(path: String, message: String)] {
        events.compactMap {
            if case .error(_, let path, let message) = $0 { return (path, message) }
            return nil
        }
    }

    func shutdown() { engine.shutdown() }
}

/// An output that keeps what it is given, in memory, and can fail on purpose: a test device behind the
/// same `AudioOutput` path as ALSA. Not paced unless `paced`. Read it after the engine is shut down
/// (`isOpen` from any thread).
final class CapturingOutput: AudioOutput, @unchecked Sendable {
    let name = "capture"
    let accepted: Set<SampleEncoding>
    private let opened = Atomic<Bool>(false)
    /// Whether it is open (configured and not closed since).
    var isOpen: Bool { opened.load(ordering: .acquiring) }
    /// Writes take as long as the audio they carry (a device's clock). Set before the engine starts.
    var paced = false
    private var rate = 44100
    private(set) var captured: [UInt8] = []
    private(set) var configurations: [OutputConfiguration] = []
    /// Fail the write once this many frames went out (a device unplugged).
    var failAfterFrames: Int?
    /// Refuse one write with EPIPE once this many frames went out (the device ran dry).
    var underrunAfterFrames: Int?
    /// A write once this many frames went out waits until it is set back to `Int.max` (a device
    /// that hangs); `stalled` says the output thread is waiting there. Either thread.
    let stallAfterFrames = Atomic<Int>(Int.max)
    let stalled = Atomic<Bool>(false)
    /// Configure attempts that fail after a write failure (the device is still away).
    var failingConfigures = 0
    /// Streams this refuses outright (a device that takes no rate near the stream's). Set before the
    /// engine starts.
    var refusing: ((PCMFormat) -> Bool)?
    private var frames = 0
    private var frameBytes = 4
    /// Frames taken so far, readable from any thread (the loop's side of a test).
    let framesTaken = Atomic<Int>(0)
    /// Whether its hw_params say it can pause (a PCM without SNDRV_PCM_INFO_PAUSE: false). Set
    /// before the engine starts.
    var canPause = true
    /// Calls of `pause`, `drain` and `drop` (each stops a clock-stopping driver's clock).
    let pauses = Atomic<Int>(0)
    let drains = Atomic<Int>(0)
    let drops = Atomic<Int>(0)

    /// Channel counts this takes (a stereo DAC's hw: device takes 2 only).
    let channels: ClosedRange<Int>
    /// Rates this takes (nil: any, as ALSA's file plugin).
    let rates: Set<Int>?

    init(
        accepted: Set<SampleEncoding> = Set(SampleEncoding.allCases), channels: ClosedRange<Int> = 1...8,
        rates: Set<Int>? = nil
    ) {
        self.accepted = accepted
        self.channels = channels
        self.rates = rates
    }

    func configure(_ format: PCMFormat, source: SampleEncoding, bufferMilliseconds: Int) throws(AudioOutputError)
        -> OutputConfiguration
    {
        if failingConfigures > 0 {
            failingConfigures -= 1
            throw AudioOutputError(code: -ENODEV, message: "capture: device unplugged")
        }
        if let refusing, refusing(format) {
            throw AudioOutputError(
                code: -EINVAL, message: "capture: does not take \(format.sampleRate) Hz", formatRejected: true)
        }
        guard let deviceChannels = DeviceFit.channels(for: format.channels, accepts: { channels.contains($0) }),
            let deviceRate = DeviceFit.rate(for: format.sampleRate, accepts: { rates?.contains($0) ?? true })
        else {
            throw AudioOutputError(code: -EINVAL, message: "capture: takes no such stream", formatRejected: true)
        }
        // As ALSAOutput: frames the output stage computes come as 32-bit words.
        let computed = deviceRate != format.sampleRate || deviceChannels < format.channels
        guard
            let choice = SampleEncoding.candidates(
                bits: computed ? 32 : format.bitsPerSample, ring: computed ? .s32 : source
            ).first(where: { accepted.contains($0.encoding) })
        else { throw AudioOutputError(code: -EINVAL, message: "capture: takes no such format", formatRejected: true) }
        opened.store(true, ordering: .releasing)
        rate = deviceRate
        frameBytes = choice.encoding.bytes * deviceChannels
        let configuration = OutputConfiguration(
            format: format, encoding: choice.encoding, channels: deviceChannels, deviceRate: deviceRate,
            exact: computed ? choice.encoding.bits >= 24 : choice.exact, periodFrames: 512, bufferFrames: 2048,
            canPause: canPause)
        configurations.append(configuration)
        return configuration
    }

    func write(_ pointer: UnsafeRawPointer, count: Int) -> Int {
        guard isOpen else { return -Int(ENODEV) }
        if let limit = failAfterFrames, frames >= limit {
            failAfterFrames = nil
            return -Int(ENODEV)
        }
        if let at = underrunAfterFrames, frames >= at {
            underrunAfterFrames = nil
            return -Int(EPIPE)
        }
        while frames >= stallAfterFrames.load(ordering: .acquiring) {
            stalled.store(true, ordering: .releasing)
            usleep(1000)
        }
        captured.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: count * frameBytes))
        frames += count
        framesTaken.add(count, ordering: .relaxed)
        if paced { usleep(UInt32(count * 1_000_000 / rate)) }
        return count
    }

    func delay() -> Int { 0 }
    func recover(_ error: Int) -> Int { error == -Int(EPIPE) ? 0 : error }
    func pause(_ paused: Bool) -> Bool {
        pauses.add(1, ordering: .relaxed)
        return canPause
    }
    func drain() { drains.add(1, ordering: .relaxed) }
    func drop() { drops.add(1, ordering: .relaxed) }
    func close() { opened.store(false, ordering: .releasing) }
}
