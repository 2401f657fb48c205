// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// M4A files made with Debian's ffmpeg: AAC against ffmpeg's own decode, ALAC bit-perfect against
/// its source.
@Suite(
    .tags(.integration), .serialized,
    .enabled(if: MusicFiles.hasFFmpeg, "needs sox and ffmpeg (apt-get install sox ffmpeg)"))
struct MP4DecoderTests {
    private func decode(_ path: String) throws -> (samples: [Int32], format: PCMFormat, total: Int64?) {
        let decoder = try DecoderSet().open(path: path)
        let format = decoder.format!
        let total = decoder.totalFrames
        return (decodeAll(decoder).samples, format, total)
    }

    @Test("AAC in M4A decodes to ffmpeg's samples, priming removed and cut at the edit list's length")
    func aacMatchesFFmpeg() throws {
        let dir = try TemporaryDirectory()
        let source = MusicFiles.tone(frames: 44100)
        let path = try MusicFiles.aac(source, in: dir, name: "a")
        let ours = try decode(path)
        let reference = try MusicFiles.ffmpegFloatReference(path, in: dir)
        #expect(ours.format == PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 24))
        #expect(ours.total == 44100)
        #expect(ours.samples.count == source.count)
        // ffmpeg's command line keeps the last packet's padding: compare what both have.
        #expect(reference.count >= ours.samples.count)
        #expect(MusicFiles.maxDifference(ours.samples, Array(reference.prefix(ours.samples.count))) <= 1 << 8)
        // The tone itself, after the ~90 ms ffmpeg's AAC encoder takes to settle at the start.
        let inner = 8192..<(ours.samples.count - 4096)
        #expect(
            MusicFiles.maxDifference(Array(ours.samples[inner]), Array(source.map { $0 << 16 }[inner]))
                < Int64(Int32.max / 50))
    }

    @Test("without iTunes' tag the length is the edit list's: as exact as its millisecond timescale")
    func aacEditListLength() throws {
        let dir = try TemporaryDirectory()
        let ours = try decode(try MusicFiles.aac(MusicFiles.tone(frames: 22173), in: dir, name: "e"))
        #expect(abs(ours.total! - 22173) <= 44)
        #expect(Int64(ours.samples.count / 2) == ours.total)
    }

    @Test("ALAC in M4A at 16 and 24 bits reaches the ring bit-perfect", arguments: [16, 24])
    func alacBitPerfect(bits: Int) throws {
        let dir = try TemporaryDirectory()
        let source = Fixtures.signal(frames: 20000, channels: 2, bits: bits, seed: 11)
        let wav = dir.file("s.wav")
        try MusicFiles.soxWrite(source, bits: bits, to: wav)
        let path = dir.file("a.m4a")
        try MusicFiles.tool(MusicFiles.ffmpeg, ["-v", "error", "-y", "-i", wav, "-c:a", "alac", path])
        let ours = try decode(path)
        #expect(ours.format == PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: bits))
        #expect(ours.total == 20000)
        expectSameSamples(ours.samples, source.map { $0 << Int32(32 - bits) })
    }

    @Test("an M4A whose name is in Windows-1252 on disk opens by its decoded name (FFmpeg opens files by name)")
    func windows1252Name() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let source = Fixtures.signal(frames: 4410, channels: 2, bits: 16, seed: 3)
        let wav = dir.file("s.wav")
        try MusicFiles.soxWrite(source, bits: 16, to: wav)
        try MusicFiles.tool(
            MusicFiles.ffmpeg, ["-v", "error", "-y", "-i", wav, "-c:a", "alac", dir.file("Brontë.m4a")])
        #expect(renameToWindows1252(folder: dir.path, name: "Brontë.m4a"))
        expectSameSamples(try decode(dir.file("Brontë.m4a")).samples, source.map { $0 << 16 })
    }

    @Test("seeking in an ALAC file lands on the frame")
    func alacSeek() throws {
        let dir = try TemporaryDirectory()
        let source = MusicFiles.tone(frames: 30000)
        let wav = try MusicFiles.sourceWAV(source, in: dir, name: "s")
        let path = dir.file("a.m4a")
        try MusicFiles.tool(MusicFiles.ffmpeg, ["-v", "error", "-y", "-i", wav, "-c:a", "alac", path])
        let decoder = try DecoderSet().open(path: path)
        try decoder.seek(toFrame: 12345)
        expectSameSamples(decodeAll(decoder).samples, Array(source[(12345 * 2)...]).map { $0 << 16 })
    }

    @Test("AAC parts with iTunes' gapless tag play gaplessly: each keeps its length, the tone goes on in phase")
    func aacGapless() throws {
        let dir = try TemporaryDirectory()
        let lengths = [33075, 22173, 29400]
        var start = 0
        var joined: [Int32] = []
        var joins: [Int] = []
        for (k, length) in lengths.enumerated() {
            let part = MusicFiles.tone(frames: length, startFrame: start)
            let decoded = try decode(try MusicFiles.aac(part, in: dir, name: "p\(k)", iTunes: true))
            #expect(decoded.samples.count == length * 2, "part \(k) keeps its length")
            joined += decoded.samples
            start += length
            joins.append(start)
        }
        let whole = MusicFiles.tone(frames: start).map { $0 << 16 }
        let typical = MusicFiles.maxDifference(Array(joined[20000..<30000]), Array(whole[20000..<30000]))
        for join in joins.dropLast() {
            // (ffmpeg's AAC encoder takes ~90 ms to settle at each file's start)
            let after = (join + 6000) * 2..<(join + 8000) * 2
            #expect(
                // A shift by one frame would be ≥ 1.7 % of full scale at these tones; coding noise stays below 1 %.
                MusicFiles.maxDifference(Array(joined[after]), Array(whole[after]))
                    <= max(typical * 3, Int64(Int32.max / 100)),
                "the tone goes on in phase after frame \(join)")
        }
    }

    @Test("a truncated M4A (the moov box cut off) is refused with a reason, no crash")
    func truncated() throws {
        let dir = try TemporaryDirectory()
        let path = try MusicFiles.aac(MusicFiles.tone(frames: 44100), in: dir, name: "t")
        let bytes = try Syscalls.readFile(path, limit: 1 << 22)
        try dir.write("cut.m4a", Array(bytes.prefix(bytes.count - 200)))
        do {
            let decoded = try decode(dir.file("cut.m4a"))
            #expect(decoded.samples.count <= 88200)
        } catch {
            #expect("\(error)".contains("MP4"))
        }
    }
}
