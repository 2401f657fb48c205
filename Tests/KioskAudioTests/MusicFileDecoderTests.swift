// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// Opens `path` the way the engine does (by content) and decodes it all.
private func decodeFile(_ path: String) throws -> (samples: [Int32], format: PCMFormat, total: Int64?, end: DecodeStep)
{
    let decoder = try DecoderSet().open(path: path)
    let format = decoder.format!
    let total = decoder.totalFrames
    let all = decodeAll(decoder)
    return (all.samples, format, total, all.end)
}

/// Writes `bytes` as `name` and opens it the way the engine does: the error, or nil when it opens.
func openingError(_ bytes: [UInt8], named name: String) throws -> DecodeError? {
    let dir = try TemporaryDirectory()
    try dir.write(name, bytes)
    do throws(DecodeError) {
        _ = try DecoderSet().open(path: dir.file(name))
        return nil
    } catch {
        return error
    }
}

/// Decodes from `frame` on after a seek.
private func decodeAfterSeek(_ path: String, to frame: Int64) throws -> [Int32] {
    let decoder = try DecoderSet().open(path: path)
    try decoder.seek(toFrame: frame)
    return decodeAll(decoder).samples
}

private func leftJustified16(_ samples: [Int32]) -> [Int32] { samples.map { $0 << 16 } }

@Suite(.tags(.integration), .serialized, .enabled(if: MusicFiles.hasSox, "needs sox (apt-get install sox)"))
struct WAVAndAIFFDecoderTests {
    @Test("a 16-bit WAV reaches the ring unchanged")
    func wav16() throws {
        let dir = try TemporaryDirectory()
        let source = MusicFiles.tone(frames: 30000)
        try MusicFiles.soxWrite(source, bits: 16, to: dir.file("a.wav"))
        let decoded = try decodeFile(dir.file("a.wav"))
        #expect(decoded.format == PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16))
        #expect(decoded.total == 30000)
        expectSameSamples(decoded.samples, leftJustified16(source))
        #expect(decoded.end == .endOfStream)
    }

    @Test(
        "24-bit and 32-bit WAV (WAVE_FORMAT_EXTENSIBLE) and 8-bit unsigned WAV are bit-perfect", arguments: [8, 24, 32])
    func wavDepths(bits: Int) throws {
        let dir = try TemporaryDirectory()
        let source = Fixtures.signal(frames: 9000, channels: 2, bits: bits)
        try MusicFiles.soxWrite(source, bits: bits, to: dir.file("a.wav"))
        let decoded = try decodeFile(dir.file("a.wav"))
        #expect(decoded.format.bitsPerSample == bits)
        expectSameSamples(decoded.samples, source.map { $0 << Int32(32 - bits) })
    }

    @Test("AIFF (big-endian) at 16 and 24 bits is bit-perfect", arguments: [16, 24])
    func aiff(bits: Int) throws {
        let dir = try TemporaryDirectory()
        let source = Fixtures.signal(frames: 9000, channels: 2, bits: bits, seed: 7)
        try MusicFiles.soxWrite(source, bits: bits, to: dir.file("a.aiff"))
        let decoded = try decodeFile(dir.file("a.aiff"))
        #expect(decoded.format == PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: bits))
        expectSameSamples(decoded.samples, source.map { $0 << Int32(32 - bits) })
    }

    @Test("AIFC with little-endian samples ('sowt') is bit-perfect")
    func aifcSowt() throws {
        let dir = try TemporaryDirectory()
        let source = Fixtures.signal(frames: 5000, channels: 1, bits: 16, seed: 3)
        // sox cannot write 'sowt' (its -L makes the chunk sizes little-endian too): an AIFC made by
        // sox has its compression type changed and its samples swapped, as Apple's files have them.
        try MusicFiles.soxWrite(source, bits: 16, channels: 1, to: dir.file("be.aifc"))
        var bytes = try Syscalls.readFile(dir.file("be.aifc"), limit: 1 << 20)
        let none = Array("NONE".utf8)
        let at = (0..<bytes.count - 4).first { Array(bytes[$0..<$0 + 4]) == none }!
        bytes.replaceSubrange(at..<at + 4, with: Array("sowt".utf8))
        let data = bytes.count - source.count * 2
        for i in stride(from: data, to: bytes.count, by: 2) { bytes.swapAt(i, i + 1) }
        try dir.write("a.aifc", bytes)
        let decoded = try decodeFile(dir.file("a.aifc"))
        #expect(decoded.format.channels == 1)
        expectSameSamples(decoded.samples, leftJustified16(source))
    }

    @Test("a 32-bit float WAV is within one 24-bit step of its samples")
    func floatWAV() throws {
        let dir = try TemporaryDirectory()
        let source = Fixtures.signal(frames: 5000, channels: 2, bits: 24, seed: 5)
        try MusicFiles.soxWrite(source, bits: 24, to: dir.file("f.wav"), extra: ["-e", "floating-point", "-b", "32"])
        let decoded = try decodeFile(dir.file("f.wav"))
        #expect(decoded.format.bitsPerSample == 24)
        #expect(decoded.samples.count == source.count)
        #expect(MusicFiles.maxDifference(decoded.samples, source.map { $0 << 8 }) <= 256)
    }

    @Test("seeking in a WAV starts at that frame exactly")
    func wavSeek() throws {
        let dir = try TemporaryDirectory()
        let source = MusicFiles.tone(frames: 20000)
        try MusicFiles.soxWrite(source, bits: 16, to: dir.file("a.wav"))
        let tail = try decodeAfterSeek(dir.file("a.wav"), to: 12345)
        expectSameSamples(tail, leftJustified16(Array(source[(12345 * 2)...])))
    }

    @Test("a WAV whose data chunk claims more than the file holds plays what is there")
    func wavOverlongData() throws {
        let dir = try TemporaryDirectory()
        let source = MusicFiles.tone(frames: 4000)
        try MusicFiles.soxWrite(source, bits: 16, to: dir.file("a.wav"))
        var bytes = try Syscalls.readFile(dir.file("a.wav"), limit: 1 << 20)
        let data = findChunk("data", in: bytes)!
        for k in 0..<4 { bytes[data + 4 + k] = 0xFF }
        try dir.write("long.wav", bytes)
        let decoded = try decodeFile(dir.file("long.wav"))
        expectSameSamples(decoded.samples, leftJustified16(source))
    }

    @Test("a WAV chunk that claims more bytes than the file has is refused by name")
    func wavChunkOverrun() throws {
        let dir = try TemporaryDirectory()
        try MusicFiles.soxWrite(MusicFiles.tone(frames: 1000), bits: 16, to: dir.file("a.wav"))
        var bytes = try Syscalls.readFile(dir.file("a.wav"), limit: 1 << 20)
        let fmt = findChunk("fmt ", in: bytes)!
        bytes[fmt + 7] = 0x7F
        try dir.write("bad.wav", bytes)
        #expect(throws: DecodeError.badHeader(.wav, .chunkOverrun)) { try DecoderSet().open(path: dir.file("bad.wav")) }
        #expect(DecodeError.badHeader(.wav, .chunkOverrun).description.contains("WAV"))
    }

    private func findChunk(_ id: String, in bytes: [UInt8]) -> Int? {
        var i = 12
        while i + 8 <= bytes.count {
            if String(decoding: bytes[i..<i + 4], as: UTF8.self) == id { return i }
            var size = 0
            for k in (4..<8).reversed() { size = size << 8 | Int(bytes[i + k]) }
            i += 8 + size + (size & 1)
        }
        return nil
    }
}

@Suite(
    .tags(.integration),
    .serialized, .enabled(if: MusicFiles.hasMP3Tools, "needs sox, lame and mpg123 (apt-get install sox lame mpg123)"))
struct MP3DecoderTests {
    @Test("a LAME V2 MP3 decodes to mpg123's samples, exactly as long as its source (gapless)")
    func matchesMpg123() throws {
        let dir = try TemporaryDirectory()
        let source = MusicFiles.tone(frames: 44100)
        let path = try MusicFiles.mp3(source, in: dir, name: "v2")
        let decoded = try decodeFile(path)
        let reference = try MusicFiles.mpg123Reference(path, in: dir)
        #expect(decoded.format == PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 32))
        #expect(decoded.total == 44100)
        #expect(decoded.samples.count == source.count)
        expectSameSamples(decoded.samples, reference)
        // Lossy, but the same tone: within 1 % of full scale of the source.
        #expect(MusicFiles.maxDifference(decoded.samples, leftJustified16(source)) < Int64(Int32.max / 100))
    }

    @Test("a 320 kbit/s CBR MP3 and an MPEG-2 (22.05 kHz) MP3 keep their lengths")
    func cbrAndMPEG2() throws {
        let dir = try TemporaryDirectory()
        let source = MusicFiles.tone(frames: 30000)
        let cbr = try decodeFile(try MusicFiles.mp3(source, in: dir, name: "cbr", options: ["-b", "320"]))
        #expect(cbr.total == 30000)
        #expect(cbr.samples.count == 60000)
        let low = try decodeFile(
            try MusicFiles.mp3(source, in: dir, name: "m2", options: ["-b", "64", "--resample", "22.05"]))
        #expect(low.format.sampleRate == 22050)
        #expect(low.total == 15000)
    }

    @Test(
        "MPEG-1 layer II (.mp2, made with ffmpeg) decodes to mpg123's samples",
        .enabled(if: MusicFiles.hasFFmpeg, "needs ffmpeg to make layer II"))
    func layerII() throws {
        let dir = try TemporaryDirectory()
        let source = try MusicFiles.sourceWAV(MusicFiles.tone(frames: 44100), in: dir, name: "l2")
        let path = dir.file("l2.mp2")
        try MusicFiles.tool(
            MusicFiles.ffmpeg, ["-v", "error", "-y", "-i", source, "-c:a", "mp2", "-b:a", "192k", path])
        let decoded = try decodeFile(path)
        #expect(decoded.format == PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 32))
        #expect(decoded.samples.count >= 2 * 44100)
        let reference = try MusicFiles.mpg123Reference(path, in: dir)
        expectSameSamples(decoded.samples, reference)
    }

    @Test("seeking in an MP3 lands on the frame: the samples from there are those of a whole decode")
    func seek() throws {
        let dir = try TemporaryDirectory()
        let path = try MusicFiles.mp3(MusicFiles.tone(frames: 60000), in: dir, name: "s")
        let whole = try decodeFile(path).samples
        let tail = try decodeAfterSeek(path, to: 33333)
        #expect(tail.count == whole.count - 33333 * 2)
        #expect(MusicFiles.maxDifference(tail, Array(whole[(33333 * 2)...])) < Int64(Int32.max / 1000))
    }

    @Test("an MP3 named .flac is recognised by its content and plays")
    func contentNotName() throws {
        let dir = try TemporaryDirectory()
        let path = try MusicFiles.mp3(MusicFiles.tone(frames: 10000), in: dir, name: "x")
        #expect(rename(path, dir.file("song.flac")) == 0)
        #expect(try DecoderSet().identify(path: dir.file("song.flac")) == .mp3)
        #expect(try decodeFile(dir.file("song.flac")).samples.count == 20000)
    }

    @Test("a truncated MP3 plays what is there and ends; no crash, no hang")
    func truncated() throws {
        let dir = try TemporaryDirectory()
        let path = try MusicFiles.mp3(MusicFiles.tone(frames: 44100), in: dir, name: "t")
        let bytes = try Syscalls.readFile(path, limit: 1 << 20)
        try dir.write("cut.mp3", Array(bytes.prefix(bytes.count * 2 / 5)))
        let decoded = try decodeFile(dir.file("cut.mp3"))
        #expect(decoded.samples.count > 20000 && decoded.samples.count < 88200)
    }

    @Test("an ID3v2 tag claiming to be larger than the file leaves no audio: a clear reason")
    func hugeID3() throws {
        let dir = try TemporaryDirectory()
        // "ID3" v2.4, syncsafe size 0x0FFFFFFF (256 MiB), then a little junk.
        try dir.write(
            "huge.mp3", [0x49, 0x44, 0x33, 4, 0, 0, 0x7F, 0x7F, 0x7F, 0x7F] + [UInt8](repeating: 0x55, count: 4000))
        #expect(throws: DecodeError.badHeader(.mp3, .noFrames)) { try DecoderSet().open(path: dir.file("huge.mp3")) }
    }

    @Test("random bytes named .mp3 are not a music file")
    func garbage() throws {
        let dir = try TemporaryDirectory()
        var state: UInt32 = 12345
        let noise = (0..<20000).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16) & 0xDF  // never 0xFF: no frame sync
        }
        try dir.write("noise.mp3", noise)
        #expect(throws: DecodeError.unrecognized) { try DecoderSet().open(path: dir.file("noise.mp3")) }
    }
}

@Suite(
    .tags(.integration),
    .serialized,
    .enabled(if: MusicFiles.hasVorbisTools, "needs sox and vorbis-tools (apt-get install sox vorbis-tools)"))
struct VorbisDecoderTests {
    @Test("Ogg Vorbis decodes to within one 16-bit step of oggdec, exactly as long as its source")
    func matchesOggdec() throws {
        let dir = try TemporaryDirectory()
        let source = MusicFiles.tone(frames: 44100)
        let path = try MusicFiles.vorbis(source, in: dir, name: "v")
        let decoded = try decodeFile(path)
        let reference = try MusicFiles.oggdecReference(path, in: dir)
        #expect(decoded.format == PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 24))
        #expect(decoded.total == 44100)
        #expect(decoded.samples.count == reference.count)
        #expect(MusicFiles.maxDifference(decoded.samples, reference) <= 1 << 16)
    }

    @Test("seeking in Ogg Vorbis is sample-accurate")
    func seek() throws {
        let dir = try TemporaryDirectory()
        let path = try MusicFiles.vorbis(MusicFiles.tone(frames: 60000), in: dir, name: "s")
        let whole = try decodeFile(path).samples
        let tail = try decodeAfterSeek(path, to: 40000)
        #expect(tail.count == whole.count - 80000)
        #expect(MusicFiles.maxDifference(tail, Array(whole[80000...])) <= 1 << 12)
    }

    @Test("garbage after a valid Vorbis header fails with the format's reason, without hanging")
    func garbageAfterHeader() throws {
        let dir = try TemporaryDirectory()
        let path = try MusicFiles.vorbis(MusicFiles.tone(frames: 44100), in: dir, name: "g")
        var bytes = try Syscalls.readFile(path, limit: 1 << 20)
        for i in 4000..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: i &* 31) }
        try dir.write("g2.ogg", bytes)
        do {
            let decoded = try decodeFile(dir.file("g2.ogg"))
            #expect(decoded.samples.count < 88200)
        } catch {
            let text = "\(error)"
            #expect(text.contains("Vorbis") || text.contains("read"))
        }
    }
}

/// Chained Ogg files: links one after another, each with its own headers.
@Suite(
    .tags(.integration),
    .serialized,
    .enabled(if: MusicFiles.hasVorbisTools && MusicFiles.hasOpusTools, "needs sox, vorbis-tools and opus-tools"))
struct ChainedOggTests {
    @Test(
        "a chained Ogg whose second link is Opus is refused by name before vorbisfile bisects it (which leaks that link's serial list)"
    )
    func opusAfterVorbisIsRefused() throws {
        let dir = try TemporaryDirectory()
        let vorbis = try Syscalls.readFile(try MusicFiles.vorbis(MusicFiles.tone(frames: 4410), in: dir, name: "v"))
        let opus = try Syscalls.readFile(
            try MusicFiles.opus(MusicFiles.tone(frames: 4800, rate: 48000), in: dir, name: "o"))
        try dir.write("chain.ogg", vorbis + opus)
        let refusal = DecodeError.badHeader(.oggVorbis, .chainedLinkNotVorbis)
        #expect(throws: refusal) { _ = try DecoderSet().open(path: dir.file("chain.ogg")) }
        #expect(
            refusal.description
                == "not a playable Ogg Vorbis file: a later link of the chained stream is not Vorbis (or its headers are damaged)"
        )
    }

    @Test("a chained Ogg of two Vorbis links opens whole: its length is both links'")
    func twoVorbisLinksOpen() throws {
        let dir = try TemporaryDirectory()
        let first = try Syscalls.readFile(try MusicFiles.vorbis(MusicFiles.tone(frames: 4410), in: dir, name: "a"))
        let second = try Syscalls.readFile(try MusicFiles.vorbis(MusicFiles.tone(frames: 8820), in: dir, name: "b"))
        try dir.write("chain.ogg", first + second)
        let decoder = try DecoderSet().open(path: dir.file("chain.ogg"))
        #expect(decoder.totalFrames == 13230)
    }
}

@Suite(
    .tags(.integration), .serialized,
    .enabled(if: MusicFiles.hasOpusTools, "needs sox and opus-tools (apt-get install sox opus-tools)"))
struct OpusDecoderTests {
    @Test("Opus decodes at 48 kHz to opusdec's samples, pre-skip and end trim honoured")
    func matchesOpusdec() throws {
        let dir = try TemporaryDirectory()
        let source = MusicFiles.tone(frames: 48000, rate: 48000)
        let path = try MusicFiles.opus(source, in: dir, name: "o")
        let decoded = try decodeFile(path)
        let reference = try MusicFiles.opusdecReference(path, in: dir)
        #expect(decoded.format == PCMFormat(sampleRate: 48000, channels: 2, bitsPerSample: 24))
        #expect(decoded.total == 48000)
        #expect(decoded.samples.count == source.count)
        #expect(reference.count == source.count)
        #expect(MusicFiles.maxDifference(decoded.samples, reference) <= 1 << 8)
    }

    @Test("seeking in Opus is sample-accurate")
    func seek() throws {
        let dir = try TemporaryDirectory()
        let path = try MusicFiles.opus(MusicFiles.tone(frames: 96000, rate: 48000), in: dir, name: "s")
        let whole = try decodeFile(path).samples
        let tail = try decodeAfterSeek(path, to: 50000)
        #expect(tail.count == whole.count - 100_000)
        // Sample-aligned at once; the decoder's state (rebuilt from an 80 ms pre-roll) converges on
        // that of a whole decode within a quarter of a second.
        #expect(MusicFiles.maxDifference(Array(tail[24000...]), Array(whole[124_000...])) < 1 << 20)
    }
}

/// One tone cut into three files and encoded each on its own, then played one after the other:
/// every part keeps its exact length (encoder delay and padding removed), decodes as the reference
/// decoder decodes it, and the stream after each join is the tone in phase (no gap, no extra
/// samples). What remains at a join is the codec's own edge transient, the same in the reference.
@Suite(.tags(.integration), .serialized)
struct GaplessLossyTests {
    private func check(
        _ make: ([Int32], TemporaryDirectory, String) throws -> String,
        reference: (String, TemporaryDirectory) throws -> [Int32], tolerance: Int64, rate: Int
    ) throws {
        let dir = try TemporaryDirectory()
        let lengths = [rate * 3 / 4, rate / 2 + 123, rate * 2 / 3]
        var start = 0
        var joined: [Int32] = []
        var joins: [Int] = []
        for (k, length) in lengths.enumerated() {
            let part = MusicFiles.tone(frames: length, rate: rate, startFrame: start)
            let path = try make(part, dir, "part\(k)")
            let decoded = try decodeFile(path)
            #expect(decoded.samples.count == length * 2, "part \(k) keeps its length")
            let theirs = try reference(path, dir)
            #expect(theirs.count == decoded.samples.count, "part \(k) is as long as the reference decoder makes it")
            #expect(
                MusicFiles.maxDifference(decoded.samples, theirs) <= tolerance, "part \(k) decodes as the reference")
            joined += decoded.samples
            start += length
            joins.append(start)
        }
        let whole = leftJustified16(MusicFiles.tone(frames: start, rate: rate))
        let typical = MusicFiles.maxDifference(Array(joined[20000..<30000]), Array(whole[20000..<30000]))
        let toneStep = MusicFiles.maxStep(whole)
        for join in joins.dropLast() {
            // In phase after the join's transient: a gap or extra samples would shift the tone.
            let after = (join + 3000) * 2..<(join + 5000) * 2
            #expect(
                MusicFiles.maxDifference(Array(joined[after]), Array(whole[after])) <= typical * 3,
                "the tone goes on in phase after frame \(join)")
            // A silent gap would drop the tone to zero: a step the size of its amplitude.
            let around = (join - 64) * 2..<(join + 64) * 2
            #expect(MusicFiles.maxStep(Array(joined[around])) <= toneStep * 8, "no silence at frame \(join)")
        }
    }

    @Test("MP3 (LAME) parts play gaplessly", .enabled(if: MusicFiles.hasMP3Tools))
    func mp3() throws {
        try check(
            { try MusicFiles.mp3($0, in: $1, name: $2) }, reference: { try MusicFiles.mpg123Reference($0, in: $1) },
            tolerance: 0, rate: 44100)
    }

    @Test("Ogg Vorbis parts play gaplessly", .enabled(if: MusicFiles.hasVorbisTools))
    func vorbis() throws {
        try check(
            { try MusicFiles.vorbis($0, in: $1, name: $2) }, reference: { try MusicFiles.oggdecReference($0, in: $1) },
            tolerance: 1 << 16, rate: 44100)
    }

    @Test("Opus parts play gaplessly", .enabled(if: MusicFiles.hasOpusTools))
    func opus() throws {
        try check(
            { try MusicFiles.opus($0, in: $1, name: $2) }, reference: { try MusicFiles.opusdecReference($0, in: $1) },
            tolerance: 1 << 8, rate: 48000)
    }
}

@Suite struct FormatRecognitionTests {
    @Test("formats are told by their first bytes")
    func sniff() {
        #expect(AudioFileFormat.sniff(Array("fLaC\0\0\0\u{22}".utf8)) == .flac)
        #expect(AudioFileFormat.sniff(Array("RIFF\0\0\0\0WAVEfmt ".utf8)) == .wav)
        #expect(AudioFileFormat.sniff(Array("FORM\0\0\0\0AIFCFVER".utf8)) == .aiff)
        #expect(AudioFileFormat.sniff(Array("\0\0\0\u{20}ftypM4A ".utf8)) == .mp4)
        #expect(AudioFileFormat.sniff(Array("just some text, not music".utf8)) == nil)
        // ADTS AAC has the MPEG sync word but layer 0: not an MP3.
        #expect(AudioFileFormat.sniff([0xFF, 0xF1, 0x50, 0x80, 0x02, 0x1F, 0xFC]) == nil)
    }

    @Test("an ID3v2 header's syncsafe size and footer give the tag's length")
    func id3Length() {
        #expect(AudioFileFormat.id3v2Length([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0x02, 0x01]) == 10 + 257)
        #expect(AudioFileFormat.id3v2Length([0x49, 0x44, 0x33, 4, 0, 0x10, 0, 0, 0, 5]) == 10 + 5 + 10)
        #expect(AudioFileFormat.id3v2Length([0x49, 0x44, 0x33, 4, 0, 0, 0x80, 0, 0, 5]) == 0)
    }
}

/// MP4 files built box by box: FairPlay and encrypted sample entries are named as DRM-protected,
/// damaged box structures end the walk with a reason.
@Suite struct MP4ProbeTests {
    private func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let size = body.count + 8
        return [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            + Array(type.utf8) + body
    }

    /// ftyp, then moov/trak/mdia/minf/stbl/stsd holding `entry`.
    private func file(entry: [UInt8], brand: String = "M4A ") -> [UInt8] {
        let stsd = box("stsd", [0, 0, 0, 0, 0, 0, 0, 1] + entry)
        let moov = box("moov", box("trak", box("mdia", box("minf", box("stbl", stsd)))))
        return box("ftyp", Array(brand.utf8) + [0, 0, 0, 0] + Array("M4A mp42isom".utf8)) + moov
            + box("mdat", [1, 2, 3])
    }

    private func audioEntry(_ type: String, children: [UInt8] = []) -> [UInt8] {
        box(type, [UInt8](repeating: 0, count: 28) + children)
    }

    private func open(_ bytes: [UInt8], _ name: String = "a.m4a") throws -> DecodeError? {
        try openingError(bytes, named: name)
    }

    @Test("a FairPlay sample entry ('drms') is DRM-protected, whatever the file is called")
    func fairPlay() throws {
        #expect(try open(file(entry: audioEntry("drms")), "song.m4p") == .drmProtected)
        #expect(try open(file(entry: audioEntry("drms")), "song.m4a") == .drmProtected)
        #expect(DecodeError.drmProtected.description == "DRM-protected (FairPlay): cannot be played")
    }

    @Test("an encrypted entry ('enca') and an AAC entry with protection info ('sinf') are DRM-protected")
    func encrypted() throws {
        #expect(try open(file(entry: audioEntry("enca"))) == .drmProtected)
        #expect(
            try open(file(entry: audioEntry("mp4a", children: box("sinf", box("frma", Array("mp4a".utf8))))))
                == .drmProtected)
    }

    @Test("a plain AAC sample entry is audio, not DRM")
    func plainAAC() throws {
        let dir = try TemporaryDirectory()
        try dir.write("a.m4a", file(entry: audioEntry("mp4a", children: box("esds", [0, 0, 0, 0]))))
        let fd = try FileDescriptor.open(dir.file("a.m4a"), O_RDONLY)
        let size = Int64(try Syscalls.readFile(dir.file("a.m4a"), limit: 1 << 20).count)
        #expect(try MP4Probe.probe(fd: fd.rawValue, size: size) == .audio(codec: "mp4a"))
    }

    @Test("a box claiming more than its parent holds, a box shorter than its header and a box flood end the walk")
    func damagedBoxes() throws {
        var overrun = file(entry: audioEntry("mp4a"))
        let moov = (0..<overrun.count - 4).first { Array(overrun[$0..<$0 + 4]) == Array("moov".utf8) }! - 4
        overrun[moov] = 0x7F
        #expect(try open(overrun) == .badHeader(.mp4, .chunkOverrun))
        var tiny = file(entry: audioEntry("mp4a"))
        tiny.replaceSubrange(moov..<moov + 4, with: [0, 0, 0, 4])
        #expect(try open(tiny) == .badHeader(.mp4, .chunkOverrun))
        // Thousands of empty boxes inside moov: bounded, not walked forever.
        let flood =
            box("ftyp", Array("M4A ".utf8) + [0, 0, 0, 0]) + box("moov", (0..<5000).flatMap { _ in box("free", []) })
        #expect(try open(flood) == .badHeader(.mp4, .chunkOverrun))
    }

    @Test("an MP4 without an audio track says so")
    func noAudio() throws {
        let bytes = box("ftyp", Array("isom".utf8) + [0, 0, 0, 0]) + box("moov", box("mvhd", [0, 0, 0, 0]))
        #expect(try open(bytes, "video.mp4") == .badHeader(.mp4, .noStream))
    }
}
