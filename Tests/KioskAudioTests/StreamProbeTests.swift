// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// Bytes from a fixed seed, 0xFF included (junk as a stick has it).
private func junk(_ count: Int, seed: UInt32) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 1_103_515_245 &+ 12345
        return UInt8(truncatingIfNeeded: state >> 16)
    }
}

/// Streams without a signature at their first byte are recognised by their frames and their
/// decoder, not refused as "not a music file"; junk still is, after one small read.
@Suite(.tags(.integration), .serialized)
struct StreamProbeTests {
    @Test(.enabled(if: Fixtures.hasFlac, "needs the flac tool (apt-get install flac)"))
    func aFLACStreamThatStartsAtAFrameHeaderIsRecognisedAndPlays() throws {
        let dir = try TemporaryDirectory("kiosk-probe")
        defer { dir.remove() }
        let format = PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16)
        let samples = try Fixtures.makeTrack(dir.file("a.flac"), format: format, frames: 10000)
        let file = try Syscalls.readFile(dir.file("a.flac"))
        try dir.write("frames.flac", Array(file[Fixtures.firstFrameOffset(file)...]))
        #expect(try DecoderSet().identify(path: dir.file("frames.flac")) == .flac)
        let decoder = try DecoderSet().open(path: dir.file("frames.flac"))
        expectSameSamples(decodeAll(decoder).samples, samples.map { $0 << 16 })
    }

    @Test(.enabled(if: MusicFiles.hasMP3Tools, "needs sox, lame and mpg123"))
    func anMP3WithThreeKilobytesOfJunkInFrontIsRecognisedAndPlays() throws {
        let dir = try TemporaryDirectory("kiosk-probe")
        defer { dir.remove() }
        let path = try MusicFiles.mp3(MusicFiles.tone(frames: 10000), in: dir, name: "x")
        try dir.write("junk.mp3", junk(3072, seed: 7) + (try Syscalls.readFile(path)))
        #expect(try DecoderSet().identify(path: dir.file("junk.mp3")) == .mp3)
        let decoder = try DecoderSet().open(path: dir.file("junk.mp3"))
        let decoded = decodeAll(decoder).samples
        #expect(abs(decoded.count - 20000) <= 2 * 1152, "\(decoded.count) samples")
    }

    @Test func aFileOfJunkIsStillRefusedAfterOneSmallRead() throws {
        let dir = try TemporaryDirectory("kiosk-probe")
        defer { dir.remove() }
        // 4 MB of junk, and junk that starts like a FLAC frame (sync and codes) with a wrong CRC-8.
        try dir.write("junk.flac", junk(4 << 20, seed: 11))
        try dir.write("sync.flac", [0xFF, 0xF8, 0x69, 0x08, 0x00, 0x00] + junk(100_000, seed: 12))
        for name in ["junk.flac", "sync.flac"] {
            // This thread's reads (readFile's own read of /proc/thread-self/io counts too, ~200 bytes).
            let before = Syscalls.readCounters(thread: true)
            #expect(throws: DecodeError.unrecognized) { try DecoderSet().identify(path: dir.file(name)) }
            let after = Syscalls.readCounters(thread: true)
            // 2026-12-06: 4 calls and 12.4 KB for each, of a 4 MB file: reads, not time, so a busy machine passes.
            #expect(after.calls - before.calls <= 8, "\(name): \(after.calls - before.calls) read calls")
            #expect(after.bytes - before.bytes < 32 << 10, "\(name): \(after.bytes - before.bytes) bytes read")
        }
        #expect(DecodeError.unrecognized.description.hasPrefix("not a music file"))
    }
}
