// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

private typealias F = MusicTagFixtures

/// ReplayGain tags read from every format as MPD reads them, kept by the track and the index.
@Suite(.tags(.integration), .serialized, .needsTagEncoders)
struct ReplayGainTagTests {
    let library: TestLibrary

    init() throws { library = try TestLibrary("kiosk-replaygain") }

    private func replayGain(_ path: String) throws -> ReplayGainInfo {
        let outcome = MusicFileReader().read(path: library.root + "/" + path)
        guard case .playable(let info, _) = outcome else { throw TestFailure("\(path): \(outcome)") }
        return info.tags.replayGain
    }

    private static let rsgainValues = [
        ("REPLAYGAIN_TRACK_GAIN", "-6.52 dB"), ("REPLAYGAIN_TRACK_PEAK", "0.988831"),
        ("REPLAYGAIN_ALBUM_GAIN", "-7.10 dB"), ("REPLAYGAIN_ALBUM_PEAK", "1.000000"),
    ]
    private static let expected = ReplayGainInfo(trackGain: -6.52, trackPeak: 0.988831, albumGain: -7.1, albumPeak: 1)

    @Test("FLAC Vorbis comments REPLAYGAIN_* give the four values, the unit after the number ignored")
    func flacComments() throws {
        defer { library.remove() }
        try library.flac("a.flac", [("TITLE", "T")] + Self.rsgainValues.map { ($0.0.lowercased(), $0.1) })
        #expect(try replayGain("a.flac") == Self.expected)
    }

    @Test("ID3v2 TXXX frames named replaygain_* in any case give the values")
    func id3TXXX() throws {
        defer { library.remove() }
        try F.plainMP3(library.root + "/plain.mp3")
        let frames = Self.rsgainValues.enumerated().map { i, entry in
            let name = i % 2 == 0 ? entry.0.lowercased() : entry.0
            return F.frame("TXXX", [3] + Array(name.utf8) + [0] + Array(entry.1.utf8), version: 4)
        }
        try library.write("a.mp3", F.tag(version: 4, frames: frames) + (try library.read("plain.mp3")))
        #expect(try replayGain("a.mp3") == Self.expected)
    }

    @Test("an APEv2 tag's REPLAYGAIN_* items give the values")
    func apeItems() throws {
        defer { library.remove() }
        try F.plainMP3(library.root + "/plain.mp3")
        try library.write("a.mp3", (try library.read("plain.mp3")) + F.apeTag(Self.rsgainValues))
        #expect(try replayGain("a.mp3") == Self.expected)
    }

    @Test("Opus R128_TRACK_GAIN and R128_ALBUM_GAIN are Q7.8 dB at -23 LUFS: 5 dB more in ReplayGain's terms")
    func opusR128() throws {
        defer { library.remove() }
        try F.tone(library.root + "/src.wav", rate: 48000)
        try F.tool(
            F.opusenc,
            [
                "--quiet", "--comment", "R128_TRACK_GAIN=-2560", "--comment", "R128_ALBUM_GAIN=384",
                library.root + "/src.wav", library.root + "/a.opus",
            ])
        let info = try replayGain("a.opus")
        #expect(info.trackGain == -5, "-2560 / 256 = -10 dB, + 5")
        #expect(info.albumGain == 6.5, "384 / 256 = 1.5 dB, + 5")
        #expect(info.trackPeak.isNaN && info.albumPeak.isNaN)
    }

    @Test("M4A freeform items ----:com.apple.iTunes:replaygain_* give the values")
    func mp4Freeform() throws {
        defer { library.remove() }
        try F.tone(library.root + "/src.wav")
        try F.tool(
            F.ffmpeg,
            [
                "-v", "error", "-y", "-i", library.root + "/src.wav", "-c:a", "aac", "-metadata", "title=Song",
                library.root + "/plain.m4a",
            ])
        var file = try library.read("plain.m4a")
        try Self.addFreeform(Self.rsgainValues.map { ($0.0.lowercased(), $0.1) }, to: &file)
        try library.write("a.m4a", file)
        #expect(try replayGain("a.m4a") == Self.expected)
    }

    @Test("values that are not numbers are left out; the other values stay")
    func badValues() throws {
        defer { library.remove() }
        try library.flac(
            "a.flac", [("REPLAYGAIN_TRACK_GAIN", "loud"), ("REPLAYGAIN_TRACK_PEAK", "0.5"), ("R128_ALBUM_GAIN", "1.5")])
        let info = try replayGain("a.flac")
        #expect(info.trackGain.isNaN && info.albumGain.isNaN)
        #expect(info.trackPeak == 0.5)
    }

    @Test("the values come back from the index as read; a file without them keeps no room for them")
    func indexRoundTrip() throws {
        let state = try TemporaryDirectory("kiosk-state")
        defer {
            library.remove()
            state.remove()
        }
        try library.flac("a.flac", [("TITLE", "Tagged")] + Self.rsgainValues)
        try library.track("b.flac", title: "Plain", artist: "A")
        let (fresh, _) = try library.scan(indexPath: state.file("i.sqlite"))
        let (cached, stats) = try library.scan(indexPath: state.file("i.sqlite"))
        #expect(stats.filesRead == 0)
        #expect(cached.allTracks == fresh.allTracks)
        let tagged = try #require(cached.allTracks.first { $0.title == "Tagged" })
        let plain = try #require(cached.allTracks.first { $0.title == "Plain" })
        #expect(tagged.replayGain == Self.expected)
        #expect(plain.replayGain == nil)
    }

    /// Adds iTunes freeform items to an M4A whose `moov` (with `udta`/`meta`/`ilst`) comes after its
    /// media data (ffmpeg's default), so no chunk offset moves.
    static func addFreeform(_ items: [(String, String)], to file: inout [UInt8]) throws {
        func atom(_ type: String, _ body: [UInt8]) -> [UInt8] { F.be32(body.count + 8) + Array(type.utf8) + body }
        var added: [UInt8] = []
        for (name, value) in items {
            let mean = atom("mean", [0, 0, 0, 0] + Array("com.apple.iTunes".utf8))
            let label = atom("name", [0, 0, 0, 0] + Array(name.utf8))
            let data = atom("data", [0, 0, 0, 1, 0, 0, 0, 0] + Array(value.utf8))
            added += atom("----", mean + label + data)
        }
        func find(_ type: String, from start: Int) throws -> Int {
            let pattern = Array(type.utf8)
            for i in start..<(file.count - 4) where Array(file[i..<(i + 4)]) == pattern { return i - 4 }
            throw TestFailure("no \(type) atom")
        }
        let moov = try find("moov", from: 4)
        let parents = [moov, try find("udta", from: moov), try find("meta", from: moov), try find("ilst", from: moov)]
        for start in parents {
            let size = file[start..<(start + 4)].reduce(0) { $0 << 8 | Int($1) }
            file.replaceSubrange(start..<(start + 4), with: F.be32(size + added.count))
        }
        file.insert(contentsOf: added, at: parents[3] + 8)
    }
}

/// How the tags, the mode and the preamps make the scale a track plays at (MPD's CalculateScale).
struct ReplayGainScaleTests {
    private let tagged = ReplayGainInfo(trackGain: -6, trackPeak: 0.5, albumGain: -3, albumPeak: 0.6)

    private func decibels(_ scale: Float) -> Double { 20 * log10(Double(scale)) }

    @Test func offPlaysEveryTrackAtScaleOne() {
        let settings = ReplayGainSettings(mode: .off, preampDb: 6, missingPreampDb: -6)
        #expect(settings.scale(for: tagged, queueIsAlbum: true) == 1)
        #expect(settings.scale(for: nil, queueIsAlbum: false) == 1)
    }

    @Test func trackAndAlbumModesUseTheirGainPlusThePreamp() {
        #expect(abs(decibels(ReplayGainSettings(mode: .track).scale(for: tagged, queueIsAlbum: true)) + 6) < 1e-4)
        #expect(abs(decibels(ReplayGainSettings(mode: .album).scale(for: tagged, queueIsAlbum: false)) + 3) < 1e-4)
        let preamp = ReplayGainSettings(mode: .track, preampDb: 2)
        #expect(abs(decibels(preamp.scale(for: tagged, queueIsAlbum: false)) + 4) < 1e-4)
    }

    @Test func autoUsesTheAlbumGainOnlyWhenTheQueueIsAnAlbum() {
        let auto = ReplayGainSettings(mode: .auto)
        #expect(abs(decibels(auto.scale(for: tagged, queueIsAlbum: true)) + 3) < 1e-4)
        #expect(abs(decibels(auto.scale(for: tagged, queueIsAlbum: false)) + 6) < 1e-4)
    }

    @Test func aGainThatWouldClipThePeakIsLimitedToOneOverThePeak() {
        let quiet = ReplayGainInfo(trackGain: 12, trackPeak: 0.4)
        #expect(ReplayGainSettings(mode: .track).scale(for: quiet, queueIsAlbum: false) == 1 / Float(0.4))
        // Without a peak (Opus R128) nothing limits it.
        let opus = ReplayGainInfo(trackGain: 6)
        #expect(abs(decibels(ReplayGainSettings(mode: .track).scale(for: opus, queueIsAlbum: false)) - 6) < 1e-4)
    }

    @Test func aMissingGainFallsBackToTheOtherOneThenToTheMissingPreamp() {
        let albumOnly = ReplayGainInfo(trackGain: nil, albumGain: -4)
        #expect(abs(decibels(ReplayGainSettings(mode: .track).scale(for: albumOnly, queueIsAlbum: false)) + 4) < 1e-4)
        let missing = ReplayGainSettings(mode: .album, missingPreampDb: -5)
        #expect(abs(decibels(missing.scale(for: nil, queueIsAlbum: true)) + 5) < 1e-4)
    }
}
