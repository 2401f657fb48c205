// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskTags
import Glibc
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

private typealias F = MusicTagFixtures

/// Tags and pictures of every format but FLAC, read by the library through TagLib, and each file's
/// playability checked by its decoder.
@Suite(.tags(.integration), .serialized, .needsTagEncoders)
struct MusicTagTests {
    let library: TestLibrary

    init() throws { library = try TestLibrary("kiosk-tags") }

    private func read(_ path: String, limits: ScanLimits = ScanLimits()) throws -> (TrackInfo, [String]) {
        let outcome = MusicFileReader(limits: limits).read(path: library.root + "/" + path)
        guard case .playable(let info, let warnings) = outcome else {
            Issue.record("\(path): expected playable, got \(outcome)")
            throw Errno.invalid
        }
        return (info, warnings)
    }

    /// Writes `tagBytes + the untagged MP3 + trailer` as `name`.
    private func mp3(_ name: String, before: [UInt8] = [], after: [UInt8] = []) throws {
        try F.plainMP3(library.root + "/plain.mp3")
        let audio = try library.read("plain.mp3")
        try library.write(name, before + audio + after)
    }

    @Test("an ID3v2.3 tag written by LAME gives title, artist, album, album artist, genre, track, disc and year")
    func lameID3v23() throws {
        defer { library.remove() }
        try F.tone(library.root + "/src.wav")
        try F.tool(
            F.lame,
            [
                "--quiet", "--id3v2-only", "--tt", "Song", "--ta", "Singer", "--tl", "Record", "--ty", "1999",
                "--tn", "3/12", "--tg", "Jazz", "--tv", "TPE2=Band", "--tv", "TPOS=2/2",
                library.root + "/src.wav", library.root + "/a.mp3",
            ])
        let (info, _) = try read("a.mp3")
        #expect(info.tags.titles == ["Song"])
        #expect(info.tags.artists == ["Singer"])
        #expect(info.tags.albums == ["Record"])
        #expect(info.tags.albumArtists == ["Band"])
        #expect(info.tags.genres == ["Jazz"])
        #expect(info.tags.dates == ["1999"])
        #expect(info.tags.trackNumber == 3 && info.tags.trackTotal == 12)
        #expect(info.tags.discNumber == 2 && info.tags.discTotal == 2)
        #expect(info.sampleRate == 44100 && info.channels == 2)
        #expect(info.totalFrames == 13230)
    }

    @Test("an MP3 whose name is in Windows-1252 on disk has its tags read (TagLib opens files by name)")
    func windows1252Name() throws {
        defer { library.remove() }
        try F.tone(library.root + "/src.wav")
        try F.tool(F.lame, ["--quiet", "--tt", "Ode", library.root + "/src.wav", library.root + "/Brontë.mp3"])
        #expect(renameToWindows1252(folder: library.root, name: "Brontë.mp3"))
        let (info, warnings) = try read("Brontë.mp3")
        #expect(info.tags.titles == ["Ode"])
        #expect(warnings.isEmpty)
    }

    /// The peak RSS of `kiosk-player scan --json folder` (its statistics), in bytes.
    private func scanPeakBytes(_ folder: String) throws -> Int {
        let result = run(TestPaths.playerBinary, ["scan", "--json", folder], timeoutSeconds: 60)
        #expect(result.status == 0, "kiosk-player scan \(folder): \(result.errors)")
        let json = try JSONReader.parse(result.stdout, file: "scan output")
        let statistics = try #require(try json.object("statistics"))
        return try #require(try statistics.int("peakResidentBytes", range: 1...Int.max))
    }

    @Test(
        "a 40 MB cover in an MP3's ID3 tag or a WAV's id3 chunk is not read into memory: the scan's peak RSS stays within 8 MB of plain files'"
    )
    func hugeTagsAreNotAllocated() throws {
        defer { library.remove() }
        try F.plainMP3(library.root + "/plain.mp3")
        let audio = try library.read("plain.mp3")
        try F.tone(library.root + "/src.wav")
        let wav = try library.read("src.wav")
        try library.write("small/a.mp3", audio)
        try library.write("small/b.wav", wav)
        let cover = [UInt8](repeating: 0x5A, count: 40 << 20)
        let tag = F.tag(
            version: 3, frames: [F.textFrame("TIT2", "Big", version: 3), F.pictureFrame(cover, version: 3)])
        try library.write("big/a.mp3", tag + audio)
        // The WAV with an "id3 " chunk holding the same tag, its RIFF size fixed up.
        var riff = wav + Array("id3 ".utf8) + F.le32(tag.count) + tag
        let size = F.le32(riff.count - 8)
        riff.replaceSubrange(4..<8, with: size)
        try library.write("big/b.wav", riff)
        let small = try scanPeakBytes(library.root + "/small")
        let big = try scanPeakBytes(library.root + "/big")
        #expect(big - small < 8 << 20, "peak RSS \(small >> 10) KiB with plain files, \(big >> 10) KiB with 40 MB tags")
    }

    @Test("ID3v2.4 UTF-8, ID3v2.3 UTF-16 and ID3v2.2 Latin-1 text frames are all read", arguments: [2, 3, 4])
    func id3Versions(version: Int) throws {
        defer { library.remove() }
        let encoding: F.TextEncoding = version == 4 ? .utf8 : version == 3 ? .utf16 : .latin1
        let ids = version == 2 ? ["TT2", "TP1", "TAL", "TRK"] : ["TIT2", "TPE1", "TALB", "TRCK"]
        let title = version == 2 ? "Café" : "Ünïcödé 歌"
        let frames = [
            F.textFrame(ids[0], title, version: version, encoding: encoding),
            F.textFrame(ids[1], "Artiste", version: version, encoding: encoding),
            F.textFrame(ids[2], "Albüm", version: version, encoding: encoding),
            F.textFrame(ids[3], "7", version: version, encoding: encoding),
        ]
        try mp3("v\(version).mp3", before: F.tag(version: version, frames: frames))
        let (info, _) = try read("v\(version).mp3")
        #expect(info.tags.titles == [title])
        #expect(info.tags.artists == ["Artiste"])
        #expect(info.tags.albums == ["Albüm"])
        if version == 2 && kiosk_tags_major_version() >= 2 {
            // TagLib 2.0 (trixie) drops ID3v2.2's TRK frame where 1.13 (bookworm) reads it.
            withKnownIssue("TagLib 2.0 reads no track number from an ID3v2.2 TRK frame") {
                #expect(info.tags.trackNumber == 7)
            }
        } else {
            #expect(info.tags.trackNumber == 7)
        }
    }

    @Test("an unsynchronised ID3v2.3 tag (0xFF bytes escaped) reads back its text and picture")
    func unsynchronisation() throws {
        defer { library.remove() }
        // Latin-1 "ÿà" is FF E0: a false MPEG sync that unsynchronisation must escape.
        let picture = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: UInt8(0xFF), count: 8) + [0xFF, 0x00, 0xD9]
        let frames = [F.textFrame("TIT2", "ÿàÿ", version: 3), F.pictureFrame(picture, version: 3)]
        try mp3("u.mp3", before: F.tag(version: 3, frames: frames, unsynchronise: true))
        let (info, _) = try read("u.mp3")
        #expect(info.tags.titles == ["ÿàÿ"])
        #expect(info.hasPicture)
        #expect(MusicFileReader().embeddedPicture(path: library.root + "/u.mp3")?.bytes == picture)
    }

    @Test("an MP3 with only an ID3v1 tag is read (Latin-1, track number)")
    func id3v1() throws {
        defer { library.remove() }
        try mp3("one.mp3", after: F.id3v1(title: "Été", artist: "Old", album: "Tape", year: "1987", track: 4, genre: 8))
        let (info, _) = try read("one.mp3")
        #expect(info.tags.titles == ["Été"])
        #expect(info.tags.artists == ["Old"])
        #expect(info.tags.albums == ["Tape"])
        #expect(info.tags.dates == ["1987"])
        #expect(info.tags.trackNumber == 4)
        #expect(info.tags.genres == ["Jazz"])
    }

    @Test("an APEv2 tag at the end of an MP3 is read")
    func apev2() throws {
        defer { library.remove() }
        try mp3(
            "ape.mp3",
            after: F.apeTag([("Title", "Ape Song"), ("Artist", "Ape"), ("Album Artist", "Apes"), ("Track", "9")]))
        let (info, _) = try read("ape.mp3")
        #expect(info.tags.titles == ["Ape Song"])
        #expect(info.tags.artists == ["Ape"])
        #expect(info.tags.albumArtists == ["Apes"])
        #expect(info.tags.trackNumber == 9)
    }

    @Test("an MP3's APIC front cover is its artwork, chosen over other pictures")
    func apicFrontCover() throws {
        defer { library.remove() }
        let back = [UInt8](repeating: 7, count: 40)
        let frames = [
            F.pictureFrame(back, version: 3, type: 4), F.pictureFrame(SyntheticLibrary.sampleJPEG, version: 3),
        ]
        try mp3("art.mp3", before: F.tag(version: 3, frames: frames))
        let (info, _) = try read("art.mp3")
        #expect(info.hasPicture)
        let picture = MusicFileReader().embeddedPicture(path: library.root + "/art.mp3")
        #expect(picture?.bytes == SyntheticLibrary.sampleJPEG)
        #expect(picture?.mimeType == "image/jpeg")
    }

    @Test("Ogg Vorbis comments and a METADATA_BLOCK_PICTURE are read")
    func vorbisComments() throws {
        defer { library.remove() }
        try F.tone(library.root + "/src.wav")
        let picture = "METADATA_BLOCK_PICTURE=" + F.base64(F.flacPictureBlock(SyntheticLibrary.sampleJPEG))
        try F.tool(
            F.oggenc,
            [
                "-Q", "-t", "Vorbis Song", "-a", "V Artist", "-l", "V Album", "-G", "Folk", "-N", "5", "-d", "2001",
                "-c", "ALBUMARTIST=V Band", "-c", "DISCNUMBER=1", "-c", picture, "-o", library.root + "/a.ogg",
                library.root + "/src.wav",
            ])
        let (info, _) = try read("a.ogg")
        #expect(info.tags.titles == ["Vorbis Song"])
        #expect(info.tags.albumArtists == ["V Band"])
        #expect(info.tags.genres == ["Folk"])
        #expect(info.tags.trackNumber == 5 && info.tags.discNumber == 1)
        #expect(info.tags.dates == ["2001"])
        #expect(info.hasPicture)
        #expect(MusicFileReader().embeddedPicture(path: library.root + "/a.ogg")?.bytes == SyntheticLibrary.sampleJPEG)
        #expect(info.totalFrames == 13230)
    }

    @Test("Opus tags and an embedded picture (opusenc --picture) are read; the length is at 48 kHz")
    func opusTags() throws {
        defer { library.remove() }
        try F.tone(library.root + "/src.wav", rate: 48000)
        try library.write("cover.jpg", SyntheticLibrary.sampleJPEG)
        try F.tool(
            F.opusenc,
            [
                "--quiet", "--title", "Opus Song", "--artist", "O Artist", "--album", "O Album", "--comment",
                "TRACKNUMBER=2/9", "--picture", library.root + "/cover.jpg", library.root + "/src.wav",
                library.root + "/a.opus",
            ])
        let (info, _) = try read("a.opus")
        #expect(info.tags.titles == ["Opus Song"])
        #expect(info.tags.albums == ["O Album"])
        #expect(info.tags.trackNumber == 2 && info.tags.trackTotal == 9)
        #expect(info.sampleRate == 48000)
        #expect(info.totalFrames == 14400)
        #expect(info.hasPicture)
        #expect(MusicFileReader().embeddedPicture(path: library.root + "/a.opus")?.bytes == SyntheticLibrary.sampleJPEG)
    }

    @Test("MP4 ilst atoms (©nam ©ART aART ©alb ©gen trkn disk ©day covr) of an AAC and an ALAC file are read")
    func mp4Atoms() throws {
        defer { library.remove() }
        try F.tone(library.root + "/src.wav")
        try library.write("cover.jpg", SyntheticLibrary.sampleJPEG)
        for codec in ["aac", "alac"] {
            try F.tool(
                F.ffmpeg,
                [
                    "-v", "error", "-y", "-i", library.root + "/src.wav", "-i", library.root + "/cover.jpg", "-map",
                    "0",
                    "-map", "1", "-c:a", codec, "-c:v", "copy", "-disposition:v", "attached_pic", "-metadata",
                    "title=M4A Song", "-metadata", "artist=M Artist", "-metadata", "album_artist=M Band", "-metadata",
                    "album=M Album", "-metadata", "genre=Soul", "-metadata", "track=3/12", "-metadata", "disc=1/2",
                    "-metadata", "date=2005", library.root + "/\(codec).m4a",
                ])
            let (info, _) = try read("\(codec).m4a")
            #expect(info.tags.titles == ["M4A Song"], "\(codec)")
            #expect(info.tags.artists == ["M Artist"])
            #expect(info.tags.albumArtists == ["M Band"])
            #expect(info.tags.albums == ["M Album"])
            #expect(info.tags.genres == ["Soul"])
            #expect(info.tags.trackNumber == 3 && info.tags.trackTotal == 12)
            #expect(info.tags.discNumber == 1 && info.tags.discTotal == 2)
            #expect(info.tags.dates == ["2005"])
            #expect(info.hasPicture)
            let picture = MusicFileReader().embeddedPicture(path: library.root + "/\(codec).m4a")
            #expect(picture?.bytes == SyntheticLibrary.sampleJPEG)
            #expect(picture?.mimeType == "image/jpeg")
        }
    }

    @Test("a FairPlay-protected M4P is left out as DRM-protected")
    func fairPlayIsLeftOut() throws {
        defer { library.remove() }
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] { F.be32(body.count + 8) + Array(type.utf8) + body }
        let entry = box("drms", [UInt8](repeating: 0, count: 28))
        let stsd = box("stsd", [0, 0, 0, 0, 0, 0, 0, 1] + entry)
        try library.write(
            "Bought/song.m4p",
            box("ftyp", Array("M4P ".utf8) + [0, 0, 0, 0])
                + box("moov", box("trak", box("mdia", box("minf", box("stbl", stsd))))))
        let catalog = try library.catalog()
        #expect(catalog.problems(for: "Bought/song.m4p").first?.reason == "DRM-protected (FairPlay): cannot be played")
        #expect(catalog.allTracks.isEmpty)
    }

    @Test("a WAV's RIFF INFO list gives title, artist, album and genre")
    func riffInfo() throws {
        defer { library.remove() }
        try F.tone(library.root + "/a.wav")
        var bytes = try library.read("a.wav")
        F.appendChunk(
            "LIST", F.riffInfo(title: "Wave", artist: "W Artist", album: "W Album", genre: "Ambient"), to: &bytes,
            bigEndian: false)
        try library.write("info.wav", bytes)
        let (info, _) = try read("info.wav")
        #expect(info.tags.titles == ["Wave"])
        #expect(info.tags.artists == ["W Artist"])
        #expect(info.tags.albums == ["W Album"])
        #expect(info.tags.genres == ["Ambient"])
        #expect(info.bitsPerSample == 16 && info.totalFrames == 13230)
    }

    @Test("an 'id3 ' chunk in a WAV and an 'ID3 ' chunk in an AIFF are read, with their covers")
    func id3Chunks() throws {
        defer { library.remove() }
        let tag = F.tag(
            version: 3,
            frames: [
                F.textFrame("TIT2", "Chunk Song", version: 3), F.textFrame("TPE2", "Chunk Band", version: 3),
                F.pictureFrame(SyntheticLibrary.sampleJPEG, version: 3),
            ])
        try F.tone(library.root + "/a.wav")
        var wav = try library.read("a.wav")
        F.appendChunk("id3 ", tag, to: &wav, bigEndian: false)
        try library.write("t.wav", wav)
        try F.tone(library.root + "/a.aiff")
        var aiff = try library.read("a.aiff")
        F.appendChunk("ID3 ", tag, to: &aiff, bigEndian: true)
        try library.write("t.aiff", aiff)
        for name in ["t.wav", "t.aiff"] {
            let (info, _) = try read(name)
            #expect(info.tags.titles == ["Chunk Song"], "\(name)")
            #expect(info.tags.albumArtists == ["Chunk Band"], "\(name)")
            #expect(info.hasPicture, "\(name)")
            #expect(
                MusicFileReader().embeddedPicture(path: library.root + "/" + name)?.bytes == SyntheticLibrary.sampleJPEG
            )
        }
    }

    @Test("an ID3v2 tag over the size limit is not read: a warning names it, the audio after it still plays")
    func oversizedID3() throws {
        defer { library.remove() }
        var limits = ScanLimits()
        limits.maxCommentBlockBytes = 4096
        let padding = F.textFrame("TXXX", String(repeating: "x", count: 6000), version: 3)
        try mp3("big.mp3", before: F.tag(version: 3, frames: [F.textFrame("TIT2", "Hidden", version: 3), padding]))
        let (info, warnings) = try read("big.mp3", limits: limits)
        #expect(info.tags.titles.isEmpty)
        #expect(warnings.contains { $0.hasPrefix("ID3v2 tag of") && $0.contains("over the 4096-byte limit") })
    }

    @Test("an ID3v2 header claiming far more bytes than the file has leaves it unplayable, with the reason")
    func id3ClaimBeyondTheFile() throws {
        defer { library.remove() }
        try mp3("claim.mp3", before: Array("ID3".utf8) + [3, 0, 0] + F.syncsafe(200 << 20))
        let outcome = MusicFileReader().read(path: library.root + "/claim.mp3")
        guard case .unplayable(let reason, let transient) = outcome else {
            Issue.record("expected unplayable, got \(outcome)")
            return
        }
        #expect(reason == "not a playable MP3 file: no decodable audio frame found")
        #expect(!transient)
    }

    @Test("a FLAC stream that starts at a frame header (no fLaC, no metadata) is scanned as playable")
    func flacFromAFrame() throws {
        defer { library.remove() }
        try library.track("whole.flac", title: "Whole")
        let whole = try library.read("whole.flac")
        var offset = 4  // after "fLaC", each metadata block: a flag and type byte, a 24-bit length
        while offset + 4 <= whole.count {
            let last = whole[offset] & 0x80 != 0
            offset += 4 + (Int(whole[offset + 1]) << 16 | Int(whole[offset + 2]) << 8 | Int(whole[offset + 3]))
            if last { break }
        }
        try library.write("frames.flac", Array(whole[offset...]))
        let (info, _) = try read("frames.flac")
        let (reference, _) = try read("whole.flac")
        #expect(info.sampleRate == reference.sampleRate && info.channels == reference.channels)
        #expect(info.bitsPerSample == reference.bitsPerSample && info.totalFrames == nil)
    }

    @Test("a scan lists every format in one album, each by its content, with its tags")
    func mixedAlbum() throws {
        defer { library.remove() }
        try library.track("Album/1.flac", title: "One", artist: "A", album: "Mixed", track: "1")
        let src = library.root + "/src.wav"
        try F.tone(src)
        try F.tool(
            F.lame,
            ["--quiet", "--tt", "Two", "--ta", "A", "--tl", "Mixed", "--tn", "2", src, library.root + "/Album/2.mp3"])
        try F.tool(
            F.oggenc,
            ["-Q", "-t", "Three", "-a", "A", "-l", "Mixed", "-N", "3", "-o", library.root + "/Album/3.ogg", src])
        try F.tone(library.root + "/src48.wav", rate: 48000)
        try F.tool(
            F.opusenc,
            [
                "--quiet", "--title", "Four", "--artist", "A", "--album", "Mixed", "--comment", "TRACKNUMBER=4",
                library.root + "/src48.wav", library.root + "/Album/4.opus",
            ])
        // An MP3 named .flac: found by its name, read by its content.
        try F.tool(
            F.lame,
            ["--quiet", "--tt", "Five", "--ta", "A", "--tl", "Mixed", "--tn", "5", src, library.root + "/Album/5.flac"])
        try F.tool(
            F.ffmpeg,
            [
                "-v", "error", "-y", "-i", src, "-c:a", "alac", "-metadata", "title=Six", "-metadata", "artist=A",
                "-metadata", "album=Mixed", "-metadata", "track=6", library.root + "/Album/6.m4a",
            ])
        unlink(src)
        unlink(library.root + "/src48.wav")
        let catalog = try library.catalog()
        let album = try #require(catalog.named(.album, "Mixed"))
        #expect(catalog.tracks(of: album).map(\.title) == ["One", "Two", "Three", "Four", "Five", "Six"])
        #expect(catalog.problems(for: "Album/5.flac").isEmpty)
    }
}
