import Glibc
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

private typealias F = MusicTagFixtures

/// Music files whose headers are sound and whose audio is not, one per format the scan lists by its
/// headers (MP3, M4A, Ogg Vorbis), each made from a 0.3 s tone by Debian's encoders.
enum DamagedAudio {
    /// An MP3 (LAME: its info frame, then the audio frames) whose bytes after the first audio
    /// frame's header are zeros, as a download that was preallocated and never finished: mpg123
    /// opens it (the header gives the format, the info frame the length) and hands out the 47
    /// samples left of the first frame after the encoder delay, then finds no second frame.
    static func mp3(_ path: String, damaged: Bool) throws {
        try F.plainMP3(path)
        guard damaged else { return }
        var bytes = try Syscalls.readFile(path)
        guard let audio = mpegFrameLength(bytes, at: 0) else {
            throw Errno(rawValue: EINVAL, context: "\(path): no info frame")
        }
        for i in (audio + 4)..<bytes.count { bytes[i] = 0 }
        try SyntheticLibrary.writeFile(path: path, bytes: bytes)
    }

    /// An M4A (AAC, ffmpeg) whose 'mdat' payload is XORed: the boxes, and so the track's format and
    /// length, are intact; AAC's decoder refuses the first packet.
    static func m4a(_ path: String, damaged: Bool) throws {
        let wav = path + ".wav"
        try F.tone(wav)
        defer { unlink(wav) }
        try F.tool(F.ffmpeg, ["-v", "error", "-y", "-i", wav, "-c:a", "aac", path])
        guard damaged else { return }
        var bytes = try Syscalls.readFile(path)
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8 else { break }
            if bytes[offset + 4..<offset + 8].elementsEqual("mdat".utf8) {
                for i in (offset + 8)..<min(offset + size, bytes.count) { bytes[i] ^= 0x5A }
            }
            offset += size
        }
        try SyntheticLibrary.writeFile(path: path, bytes: bytes)
    }

    /// An Ogg Vorbis file (oggenc) whose pages after the three header packets are XORed, their CRCs
    /// no longer matching: vorbisfile opens the headers, and finds no audio packet to decode.
    static func vorbis(_ path: String, damaged: Bool) throws {
        let wav = path + ".wav"
        try F.tone(wav)
        defer { unlink(wav) }
        try F.tool(F.oggenc, ["-Q", "-o", path, wav])
        guard damaged else { return }
        var bytes = try Syscalls.readFile(path)
        var offset = 0
        var page = 0
        while offset + 27 <= bytes.count {
            let segments = Int(bytes[offset + 26])
            let header = 27 + segments
            let body = bytes[(offset + 27)..<(offset + header)].reduce(0) { $0 + Int($1) }
            // oggenc's first page holds the identification header, its second the comment and setup.
            if page >= 2 { for i in (offset + header)..<min(offset + header + body, bytes.count) { bytes[i] ^= 0x5A } }
            offset += header + body
            page += 1
        }
        try SyntheticLibrary.writeFile(path: path, bytes: bytes)
    }

    /// The length of the MPEG-1 layer III frame whose header is at `offset`.
    static func mpegFrameLength(_ bytes: [UInt8], at offset: Int) -> Int? {
        let kbps = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0]
        let rates = [44100, 48000, 32000, 0]
        guard offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] & 0xFE == 0xFA else { return nil }
        let rate = rates[Int(bytes[offset + 2] >> 2) & 3]
        let bitrate = kbps[Int(bytes[offset + 2] >> 4)]
        guard rate > 0, bitrate > 0 else { return nil }
        return 144 * bitrate * 1000 / rate + (Int(bytes[offset + 2] >> 1) & 1)
    }
}

/// The scan lists an MP3, M4A, Ogg Vorbis or Opus file from what its decoder's open proves (an M4A
/// from its boxes alone), with the format and length a decode gives; the background pass decodes
/// its first block.
@Suite(.needsTagEncoders) struct HeaderCheckTests {
    let library: TestLibrary
    init() throws { library = try TestLibrary() }

    /// What the scan's header check lists `path` as, and what a decoding read lists it as.
    func readBothWays(_ name: String) throws -> (headers: TrackInfo, decoded: TrackInfo) {
        let reader = MusicFileReader()
        guard case .playable(let headers, _) = reader.read(path: library.root + "/" + name, decodingFirstFrame: false),
            case .playable(let decoded, _) = reader.read(path: library.root + "/" + name)
        else { throw Errno(rawValue: EINVAL, context: "\(name) is not listed") }
        return (headers, decoded)
    }

    @Test func eachFormatIsListedByItsHeadersWithTheFormatAndLengthItsDecodeGives() throws {
        defer { library.remove() }
        try DamagedAudio.mp3(library.root + "/a.mp3", damaged: false)
        try DamagedAudio.m4a(library.root + "/a.m4a", damaged: false)
        try DamagedAudio.vorbis(library.root + "/a.ogg", damaged: false)
        try F.tone(library.root + "/src48.wav", rate: 48000)
        try F.tool(F.opusenc, ["--quiet", library.root + "/src48.wav", library.root + "/a.opus"])
        try F.tone(library.root + "/src.wav")
        try F.tool(
            F.ffmpeg, ["-v", "error", "-y", "-i", library.root + "/src.wav", "-c:a", "alac", library.root + "/b.m4a"])
        for name in ["a.mp3", "a.m4a", "a.ogg", "a.opus", "b.m4a"] {
            let (headers, decoded) = try readBothWays(name)
            #expect(!headers.firstFrameDecoded, "\(name)")
            #expect(decoded.firstFrameDecoded, "\(name)")
            #expect(headers.sampleRate == decoded.sampleRate && headers.channels == decoded.channels, "\(name)")
            #expect(headers.bitsPerSample == decoded.bitsPerSample, "\(name)")
            #expect(headers.totalFrames == decoded.totalFrames && headers.totalFrames != nil, "\(name)")
            #expect(MusicFileReader().confirmFirstFrame(path: library.root + "/" + name) == nil, "\(name)")
        }
    }

    @Test func aWAVFileIsStillDecodedByTheScan() throws {
        defer { library.remove() }
        try F.tone(library.root + "/a.wav")
        guard
            case .playable(let info, _) = MusicFileReader().read(
                path: library.root + "/a.wav", decodingFirstFrame: false)
        else {
            Issue.record("a WAV file should be listed")
            return
        }
        #expect(info.firstFrameDecoded)
    }

    @Test func anMP3WhoseAudioStopsAfterTheFirstFrameHeaderIsListedAndItsDecodeSaysWhy() throws {
        defer { library.remove() }
        try DamagedAudio.mp3(library.root + "/a.mp3", damaged: true)
        let reader = MusicFileReader()
        guard case .playable(let info, _) = reader.read(path: library.root + "/a.mp3", decodingFirstFrame: false) else {
            Issue.record("the header check should list the file")
            return
        }
        #expect(!info.firstFrameDecoded)
        let failure = try #require(reader.confirmFirstFrame(path: library.root + "/a.mp3"))
        #expect(failure.reason.contains("MP3"), "\(failure.reason)")
        #expect(!failure.transient)
    }

    @Test func anM4AWhoseAudioIsDamagedIsListedAndItsDecodeSaysWhy() throws {
        defer { library.remove() }
        try DamagedAudio.m4a(library.root + "/a.m4a", damaged: true)
        let reader = MusicFileReader()
        guard case .playable(let info, _) = reader.read(path: library.root + "/a.m4a", decodingFirstFrame: false) else {
            Issue.record("the header check should list the file")
            return
        }
        #expect(!info.firstFrameDecoded)
        let failure = try #require(reader.confirmFirstFrame(path: library.root + "/a.m4a"))
        #expect(failure.reason.contains("MP4/M4A"), "\(failure.reason)")
        #expect(!failure.transient)
    }

    @Test func anOggVorbisFileWhoseAudioPagesAreDamagedIsListedAndItsDecodeSaysWhy() throws {
        defer { library.remove() }
        try DamagedAudio.vorbis(library.root + "/a.ogg", damaged: true)
        let reader = MusicFileReader()
        guard case .playable(let info, _) = reader.read(path: library.root + "/a.ogg", decodingFirstFrame: false) else {
            Issue.record("the header check should list the file")
            return
        }
        #expect(!info.firstFrameDecoded)
        let failure = try #require(reader.confirmFirstFrame(path: library.root + "/a.ogg"))
        #expect(failure.reason.contains("no audio"), "\(failure.reason)")
        #expect(!failure.transient)
    }
}

@Suite(.serialized, .needsTagEncoders) struct MixedPlayabilityPassTests {
    /// A stick of an MP3, an M4A and an Ogg Vorbis file, each also damaged so that only decoding
    /// finds it.
    func stickWithDamagedAudio() throws -> (TestLibrary, damaged: [String]) {
        let music = try TestLibrary()
        try Syscalls.mkdirs(music.root + "/Album")
        try DamagedAudio.mp3(music.root + "/Album/1.mp3", damaged: false)
        try DamagedAudio.mp3(music.root + "/Album/2.mp3", damaged: true)
        try DamagedAudio.m4a(music.root + "/Album/3.m4a", damaged: false)
        try DamagedAudio.m4a(music.root + "/Album/4.m4a", damaged: true)
        try DamagedAudio.vorbis(music.root + "/Album/5.ogg", damaged: false)
        try DamagedAudio.vorbis(music.root + "/Album/6.ogg", damaged: true)
        return (music, ["Album/2.mp3", "Album/4.m4a", "Album/6.ogg"])
    }

    @Test func filesThatFailOnlyAtDecodeLeaveTheCatalogOnceThePassReachesThem() throws {
        let (music, damaged) = try stickWithDamagedAudio()
        defer { music.remove() }
        let state = try TemporaryDirectory("kiosk-state")
        defer { state.remove() }
        let loop = try EventLoop()
        let log = EventLog()
        var catalogs: [Int] = []
        let library = try Library(loop: loop, stateDirectory: state.path, mediaRoots: []) { event, catalog in
            log.record(event, catalog)
            if case .catalogChanged = event { catalogs.append(catalog.trackCount) }
        }
        library.addVolume(path: music.root)
        #expect(
            try loop.run(
                until: { log.finished == 1 && !library.isCheckingPlayability }, timeoutNanoseconds: 30_000_000_000))
        let id = VolumeIdentity.identify(directory: music.root)
        // The scan listed all 6 (headers are sound); the pass then took the damaged ones out.
        #expect(catalogs.first == 6)
        #expect(catalogs.last == 3)
        for path in damaged {
            #expect(library.catalog.track(volume: id, relativePath: path) == nil, "\(path) can still be chosen")
            let reasons = library.catalog.problems.filter { $0.relativePath == path }.map(\.reason)
            #expect(reasons.count == 1, "\(path): \(reasons)")
            #expect(reasons.first?.hasSuffix(" (found after the scan listed it)") == true, "\(path): \(reasons)")
        }
        library.stop()
    }

    @Test func theScanWithoutTheLibraryStillDecodesEveryFirstBlock() throws {
        let (music, damaged) = try stickWithDamagedAudio()
        defer { music.remove() }
        let catalog = try music.catalog()
        #expect(catalog.trackCount == 3)
        #expect(Set(catalog.problems.map(\.relativePath)) == Set(damaged))
    }
}
