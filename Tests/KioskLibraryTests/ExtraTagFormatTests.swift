// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

private typealias F = MusicTagFixtures

/// MPD's tags beyond the box's own read from MP3 (ID3v2, the frames MPD reads and as it reads them),
/// Ogg Vorbis and M4A, through TagLib.
@Suite(.tags(.integration), .serialized, .needsTagEncoders)
struct ExtraTagFormatTests {
    let library: TestLibrary

    init() throws { library = try TestLibrary("kiosk-extra-tags") }

    private func tags(_ path: String) throws -> TrackTags {
        let outcome = MusicFileReader().read(path: library.root + "/" + path)
        guard case .playable(let info, _) = outcome else { throw TestFailure("\(path): \(outcome)") }
        return info.tags
    }

    /// An MP3 whose ID3v2.4 tag holds `frames`.
    private func mp3(_ name: String, _ frames: [[UInt8]]) throws {
        try F.plainMP3(library.root + "/plain.mp3")
        try library.write(name, F.tag(version: 4, frames: frames) + (try library.read("plain.mp3")))
    }

    private static func text(_ id: String, _ value: String) -> [UInt8] {
        F.textFrame(id, value, version: 4, encoding: .utf8)
    }

    private static func txxx(_ description: String, _ value: String) -> [UInt8] {
        F.frame("TXXX", [3] + Array(description.utf8) + [0] + Array(value.utf8), version: 4)
    }

    @Test("ID3v2 text frames give MPD's tags: TSOP TSOA TSO2 TDOR TCOM TPE3 TPE4 (Performer) TIT1 (Grouping) TPUB")
    func id3TextFrames() throws {
        defer { library.remove() }
        try mp3(
            "a.mp3",
            [
                Self.text("TIT2", "Song"), Self.text("TSOP", "Artist Sort"), Self.text("TSOA", "Album Sort"),
                Self.text("TSO2", "Album Artist Sort"), Self.text("TDOR", "1970"), Self.text("TCOM", "Bach"),
                Self.text("TPE3", "Karajan"), Self.text("TPE4", "Remixer"), Self.text("TIT1", "Group"),
                Self.text("TPUB", "Label"),
            ])
        let tags = try tags("a.mp3")
        #expect(tags.values(of: .artistSort) == ["Artist Sort"])
        #expect(tags.values(of: .albumSort) == ["Album Sort"])
        #expect(tags.values(of: .albumArtistSort) == ["Album Artist Sort"])
        #expect(tags.values(of: .originalDate) == ["1970"])
        #expect(tags.values(of: .composer) == ["Bach"])
        #expect(tags.values(of: .conductor) == ["Karajan"])
        #expect(tags.values(of: .performer) == ["Remixer"])
        #expect(tags.values(of: .grouping) == ["Group"])
        #expect(tags.values(of: .label) == ["Label"])
        #expect(tags.values(of: .work).isEmpty)
    }

    @Test("MusicBrainz ids come from TXXX frames as MPD names them, the track id from the UFID frame")
    func id3MusicBrainz() throws {
        defer { library.remove() }
        try mp3(
            "a.mp3",
            [
                Self.txxx("MusicBrainz Artist Id", "mb-artist"), Self.txxx("MusicBrainz Album Id", "mb-album"),
                Self.txxx("MusicBrainz Album Artist Id", "mb-album-artist"),
                Self.txxx("MusicBrainz Release Track Id", "mb-release-track"),
                Self.txxx("MusicBrainz Work Id", "mb-work"),
                F.frame("UFID", Array("http://musicbrainz.org".utf8) + [0] + Array("mb-track".utf8), version: 4),
            ])
        let tags = try tags("a.mp3")
        #expect(tags.values(of: .musicBrainzArtistID) == ["mb-artist"])
        #expect(tags.values(of: .musicBrainzAlbumID) == ["mb-album"])
        #expect(tags.values(of: .musicBrainzAlbumArtistID) == ["mb-album-artist"])
        #expect(tags.values(of: .musicBrainzReleaseTrackID) == ["mb-release-track"])
        #expect(tags.values(of: .musicBrainzWorkID) == ["mb-work"])
        #expect(tags.values(of: .musicBrainzTrackID) == ["mb-track"])
    }

    @Test("a TXXX frame 'MusicBrainz Track Id' gives the track id too, as MPD's TXXX table has it")
    func id3MusicBrainzTrackIDFromTXXX() throws {
        defer { library.remove() }
        try mp3("a.mp3", [Self.txxx("MusicBrainz Track Id", "mb-track")])
        #expect(try tags("a.mp3").values(of: .musicBrainzTrackID) == ["mb-track"])
    }

    @Test("ID3v2 frames MPD does not read give nothing: TSOC, TMCL, TXXX WORK and PERFORMER")
    func id3FramesMPDIgnores() throws {
        defer { library.remove() }
        try mp3(
            "a.mp3",
            [
                Self.text("TIT2", "Song"), Self.text("TSOC", "Composer Sort"),
                F.frame("TMCL", [3] + Array("guitar".utf8) + [0] + Array("Player".utf8), version: 4),
                Self.txxx("WORK", "Work"), Self.txxx("PERFORMER", "Performer"),
            ])
        let tags = try tags("a.mp3")
        #expect(tags.extras.isEmpty, "\(tags.extras)")
    }

    @Test("Ogg Vorbis comments give MPD's tags by their names")
    func oggComments() throws {
        defer { library.remove() }
        try F.tone(library.root + "/src.wav")
        try F.tool(
            F.oggenc,
            [
                "-Q", "-t", "Song", "-c", "COMPOSER=Bach", "-c", "CONDUCTOR=Karajan", "-c", "ORIGINALDATE=1960",
                "-c", "MUSICBRAINZ_TRACKID=mb-track", "-c", "ALBUMARTISTSORT=Sort", "-c", "MOVEMENT=3", "-o",
                library.root + "/a.ogg", library.root + "/src.wav",
            ])
        let tags = try tags("a.ogg")
        #expect(tags.values(of: .composer) == ["Bach"])
        #expect(tags.values(of: .conductor) == ["Karajan"])
        #expect(tags.values(of: .originalDate) == ["1960"])
        #expect(tags.values(of: .musicBrainzTrackID) == ["mb-track"])
        #expect(tags.values(of: .albumArtistSort) == ["Sort"])
        #expect(tags.values(of: .movementNumber) == ["3"])
    }

    @Test("M4A atoms ©wrt and ©grp give Composer and Grouping")
    func mp4Atoms() throws {
        defer { library.remove() }
        try F.tone(library.root + "/src.wav")
        try F.tool(
            F.ffmpeg,
            [
                "-v", "error", "-y", "-i", library.root + "/src.wav", "-c:a", "aac", "-metadata", "title=Song",
                "-metadata", "composer=Bach", "-metadata", "grouping=Group", library.root + "/a.m4a",
            ])
        let tags = try tags("a.m4a")
        #expect(tags.values(of: .composer) == ["Bach"])
        #expect(tags.values(of: .grouping) == ["Group"])
    }
}
