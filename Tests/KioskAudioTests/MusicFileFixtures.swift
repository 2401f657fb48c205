// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskSystem
import KioskTestSupport

/// Music files of every format, made in the test from one known signal with Debian's encoders
/// (sox, lame, oggenc, opusenc), and what the reference decoders (mpg123, oggdec, opusdec) make of them.
enum MusicFiles {
    static let sox = which("sox")
    static let lame = which("lame")
    static let mpg123 = which("mpg123")
    static let oggenc = which("oggenc")
    static let oggdec = which("oggdec")
    static let opusenc = which("opusenc")
    static let opusdec = which("opusdec")
    static let ffmpeg = which("ffmpeg")

    static var hasSox: Bool { sox != nil }
    static var hasMP3Tools: Bool { sox != nil && lame != nil && mpg123 != nil }
    static var hasVorbisTools: Bool { sox != nil && oggenc != nil && oggdec != nil }
    static var hasOpusTools: Bool { sox != nil && opusenc != nil && opusdec != nil }
    static var hasFFmpeg: Bool { sox != nil && ffmpeg != nil }

    /// A 16-bit stereo sine at 440/660 Hz with a little noise (interleaved), `frames` long.
    static func tone(frames: Int, rate: Int = 44100, startFrame: Int = 0) -> [Int32] {
        var samples = [Int32](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            let t = Double(startFrame + i) / Double(rate)
            samples[2 * i] = Int32(12000 * sin(2 * Double.pi * 440 * t))
            samples[2 * i + 1] = Int32(9000 * sin(2 * Double.pi * 660 * t))
        }
        return samples
    }

    /// Writes `samples` (signed, `bits` significant bits) as a raw file and converts it with sox into
    /// `path` (its suffix picks the container; `extra` are sox's output options, e.g. `-e float`).
    static func soxWrite(
        _ samples: [Int32], bits: Int, channels: Int = 2, rate: Int = 44100, to path: String, extra: [String] = []
    ) throws {
        guard let sox else { throw Errno(rawValue: ENOENT, context: "sox") }
        let width = (bits + 7) / 8
        let raw = path + ".in.raw"
        try AtomicFile.replace(raw, with: Fixtures.bytes(samples, width: width))
        defer { unlink(raw) }
        let input = [
            "-t", "raw", "-r", "\(rate)", "-e", "signed-integer", "-b", "\(width * 8)", "-c", "\(channels)", raw,
        ]
        let result = run(sox, ["-D"] + input + extra + [path])
        if result.status != 0 { throw Errno(rawValue: EIO, context: "sox: \(result.errors)") }
    }

    /// Runs an encoder or reference decoder; throws with its stderr when it fails.
    static func tool(_ program: String?, _ arguments: [String]) throws {
        guard let program else { throw Errno(rawValue: ENOENT, context: "tool") }
        let result = run(program, arguments)
        if result.status != 0 { throw Errno(rawValue: EIO, context: "\(program): \(result.errors)") }
    }

    /// A 16-bit stereo WAV of `samples`, for the encoders.
    static func sourceWAV(_ samples: [Int32], rate: Int = 44100, in dir: TemporaryDirectory, name: String) throws
        -> String
    {
        let path = dir.file(name + ".source.wav")
        try soxWrite(samples, bits: 16, rate: rate, to: path)
        return path
    }

    static func mp3(_ samples: [Int32], in dir: TemporaryDirectory, name: String, options: [String] = ["-V2"]) throws
        -> String
    {
        let path = dir.file(name + ".mp3")
        try tool(lame, ["--quiet"] + options + [try sourceWAV(samples, in: dir, name: name), path])
        return path
    }

    static func vorbis(_ samples: [Int32], in dir: TemporaryDirectory, name: String) throws -> String {
        let path = dir.file(name + ".ogg")
        try tool(oggenc, ["-Q", "-q", "5", "-o", path, try sourceWAV(samples, in: dir, name: name)])
        return path
    }

    static func opus(_ samples: [Int32], in dir: TemporaryDirectory, name: String) throws -> String {
        let path = dir.file(name + ".opus")
        try tool(
            opusenc, ["--quiet", "--bitrate", "128", try sourceWAV(samples, rate: 48000, in: dir, name: name), path])
        return path
    }

    /// AAC-LC at 256 kbit/s in an M4A, written by ffmpeg with its edit list for the priming (in
    /// milliseconds: the movie's timescale); `iTunes` adds iTunes' sample-exact gapless tag
    /// (`iTunSMPB`: 1024 frames of delay, the padding, the length), as iTunes writes it.
    static func aac(_ samples: [Int32], in dir: TemporaryDirectory, name: String, iTunes: Bool = false) throws -> String
    {
        let path = dir.file(name + ".m4a")
        let wav = try sourceWAV(samples, in: dir, name: name)
        var arguments = ["-v", "error", "-y", "-i", wav, "-c:a", "aac", "-b:a", "256k"]
        if iTunes {
            let frames = samples.count / 2
            let padding = (frames + 1024 + 1023) / 1024 * 1024 - frames - 1024
            func hex(_ n: Int, _ width: Int) -> String {
                let digits = String(n, radix: 16, uppercase: true)
                return String(repeating: "0", count: max(0, width - digits.count)) + digits
            }
            let smpb = " 00000000 00000400 \(hex(padding, 8)) \(hex(frames, 16))"
            arguments += ["-movflags", "use_metadata_tags", "-metadata", "iTunSMPB=\(smpb)"]
        }
        try tool(ffmpeg, arguments + [path])
        return path
    }

    /// ffmpeg's float decode, as the 24-bit words the player makes of floats.
    static func ffmpegFloatReference(_ path: String, in dir: TemporaryDirectory) throws -> [Int32] {
        let out = dir.file("ffmpeg.f32")
        try tool(ffmpeg, ["-v", "error", "-y", "-i", path, "-f", "f32le", out])
        return floats24(try Syscalls.readFile(out, limit: 1 << 28))
    }

    /// Little-endian floats as the left-justified 24-bit words the player makes of them.
    static func floats24(_ bytes: [UInt8]) -> [Int32] {
        stride(from: 0, to: bytes.count - 3, by: 4).map { i in
            var bits: UInt32 = 0
            for k in (0..<4).reversed() { bits = bits << 8 | UInt32(bytes[i + k]) }
            return FloatToFixed.word(Float(bitPattern: bits))
        }
    }

    /// mpg123's own decode, as signed 32-bit samples.
    static func mpg123Reference(_ path: String, in dir: TemporaryDirectory) throws -> [Int32] {
        let out = dir.file("mpg123.raw")
        try tool(mpg123, ["-q", "-e", "s32", "-O", out, path])
        return Fixtures.parse(try Syscalls.readFile(out, limit: 1 << 28), width: 4, significantBits: 32)
    }

    /// oggdec's decode, 16-bit, left-justified to 32 bits.
    static func oggdecReference(_ path: String, in dir: TemporaryDirectory) throws -> [Int32] {
        let out = dir.file("oggdec.raw")
        try tool(oggdec, ["-Q", "-R", "-b", "16", "-e", "0", "-s", "1", "-o", out, path])
        return Fixtures.parse(try Syscalls.readFile(out, limit: 1 << 28), width: 2, significantBits: 16)
    }

    /// opusdec's float decode at 48 kHz, as the 24-bit words the player makes of floats.
    static func opusdecReference(_ path: String, in dir: TemporaryDirectory) throws -> [Int32] {
        let out = dir.file("opusdec.f32")
        try tool(opusdec, ["--quiet", "--rate", "48000", "--float", path, out])
        return floats24(try Syscalls.readFile(out, limit: 1 << 28))
    }

    /// The largest difference between two sample runs of equal length (in 32-bit units).
    static func maxDifference(_ a: [Int32], _ b: [Int32]) -> Int64 {
        zip(a, b).reduce(0) { max($0, abs(Int64($1.0) - Int64($1.1))) }
    }

    /// The largest step between neighbouring frames of channel `channel` (clicks show as big steps).
    static func maxStep(_ samples: [Int32], channels: Int = 2, channel: Int = 0) -> Int64 {
        var largest: Int64 = 0
        var i = channel + channels
        while i < samples.count {
            largest = max(largest, abs(Int64(samples[i]) - Int64(samples[i - channels])))
            i += channels
        }
        return largest
    }
}
