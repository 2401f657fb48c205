// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

private typealias F = MusicTagFixtures

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

    /// A damaged file of each format, the words its decode's failure must say, and its name.
    enum DamagedFile: String, CaseIterable, Sendable {
        case mp3 = "a.mp3", m4a = "a.m4a", vorbis = "a.ogg"

        func make(at path: String) throws {
            switch self {
            case .mp3: try DamagedAudio.mp3(path, damaged: true)
            case .m4a: try DamagedAudio.m4a(path, damaged: true)
            case .vorbis: try DamagedAudio.vorbis(path, damaged: true)
            }
        }

        var reasonSays: String {
            switch self {
            case .mp3: "MP3"
            case .m4a: "MP4/M4A"
            case .vorbis: "no audio"
            }
        }
    }

    @Test(arguments: DamagedFile.allCases)
    func aFileWhoseAudioIsDamagedIsListedByItsHeadersAndItsDecodeSaysWhy(_ file: DamagedFile) throws {
        defer { library.remove() }
        let path = library.root + "/" + file.rawValue
        try file.make(at: path)
        let reader = MusicFileReader()
        guard case .playable(let info, _) = reader.read(path: path, decodingFirstFrame: false) else {
            Issue.record("the header check should list \(file.rawValue)")
            return
        }
        #expect(!info.firstFrameDecoded)
        let failure = try #require(reader.confirmFirstFrame(path: path))
        #expect(failure.reason.contains(file.reasonSays), "\(failure.reason)")
        #expect(!failure.transient)
    }
}
