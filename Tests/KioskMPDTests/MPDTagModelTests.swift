// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskLibrary
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// MPD's tag model over the box's library: AlbumArtist falls back to Artist (and the sort tags as
/// src/tag/Fallback.hxx has them) when finding, searching, counting, listing and grouping, and
/// every tag type of MPD 0.23 is answered. The fixture's albums have no ALBUMARTIST; the extra
/// tracks below add a classical album with one, composers and sort tags.
@Suite(.serialized) struct MPDTagModelTests {
    /// Three more tracks: "Requiem" by Orchestra (ALBUMARTIST, two composers on one track), and
    /// "Sketches" by Solo without ALBUMARTIST.
    static func classics(_ music: String) throws -> Int {
        let tracks: [(String, [(String, String)])] = [
            (
                "Classics/Requiem/01 Introitus.flac",
                [
                    ("TITLE", "Introitus"), ("ARTIST", "Vienna Phil"), ("ALBUMARTIST", "Orchestra"),
                    ("ALBUM", "Requiem"), ("COMPOSER", "Mozart"), ("COMPOSER", "Haydn"),
                    ("ALBUMARTISTSORT", "Orch"), ("TRACKNUMBER", "1"),
                ]
            ),
            (
                "Classics/Requiem/02 Kyrie.flac",
                [
                    ("TITLE", "Kyrie"), ("ARTIST", "Vienna Phil"), ("ALBUMARTIST", "Orchestra"), ("ALBUM", "Requiem"),
                    ("COMPOSER", "Mozart"), ("ARTISTSORT", "Phil, Vienna"), ("TRACKNUMBER", "2"),
                    ("MUSICBRAINZ_TRACKID", "mb-kyrie"),
                ]
            ),
            (
                "Solo/Sketches/01 One.flac",
                [("TITLE", "One"), ("ARTIST", "Solo"), ("ALBUM", "Sketches"), ("ARTISTSORT", "Solo, The")]
            ),
        ]
        for (path, tags) in tracks {
            try SyntheticLibrary.write(
                SyntheticTrack(
                    relativePath: path, tags: tags.map { (name: $0.0, value: $0.1) }, seconds: 2, sampleRate: 44_100),
                under: music, compressionLevel: 0)
        }
        return tracks.count
    }

    /// The answers of `commands`, one connection.
    private func answers(_ commands: [String]) throws -> [[String]] {
        let h = try Harness(extraTracks: Self.classics)
        return try h.withClient { c in try commands.map { try c.command($0) } }
    }

    private func answer(_ command: String) throws -> [String] { try answers([command])[0] }

    /// The `file:` lines of a response.
    private func files(_ lines: [String]) -> [String] { lines.filter { $0.hasPrefix("file: ") } }

    @Test("`list albumartist` lists the artist of an album without ALBUMARTIST, and '' for an untagged song")
    func listAlbumArtistFallsBackToArtist() throws {
        #expect(
            try answer("list albumartist") == [
                "AlbumArtist: ", "AlbumArtist: Aurora Quartet", "AlbumArtist: Orchestra", "AlbumArtist: Solo",
                "AlbumArtist: The Field Recorders", "OK",
            ])
    }

    @Test("`find albumartist X` and `find album Y albumartist X` find albums without ALBUMARTIST by their artist")
    func findAlbumArtistFallsBackToArtist() throws {
        let result = try answers([
            "find albumartist Solo", "find album Coastline albumartist \"The Field Recorders\"",
            "find albumartist \"Vienna Phil\"",
        ])
        #expect(files(result[0]) == ["file: USBSTICK/Solo/Sketches/01 One.flac"])
        #expect(files(result[1]).count == 2)
        // A song with ALBUMARTIST is found by it, not by its artist.
        #expect(files(result[2]).isEmpty)
    }

    @Test("a song's description shows the tags it has: no AlbumArtist line is made up from the fallback")
    func descriptionsShowOnlyRealTags() throws {
        let lines = try answer("find albumartist Solo")
        #expect(!lines.contains { $0.hasPrefix("AlbumArtist:") })
        #expect(lines.contains("ArtistSort: Solo, The"))
    }

    @Test("`search albumartist` matches parts of the fallback artist, ignoring case")
    func searchAlbumArtistFallsBack() throws {
        #expect(files(try answer("search albumartist field")).count == 2)
    }

    @Test("`count albumartist X` and `count group albumartist` count songs under the fallback artist")
    func countFallsBack() throws {
        let result = try answers(["count albumartist \"Aurora Quartet\"", "count group albumartist"])
        #expect(result[0].first == "songs: 5")
        #expect(
            result[1].filter { $0.hasPrefix("AlbumArtist:") || $0.hasPrefix("songs:") } == [
                "AlbumArtist: ", "songs: 1", "AlbumArtist: Aurora Quartet", "songs: 5", "AlbumArtist: Orchestra",
                "songs: 2", "AlbumArtist: Solo", "songs: 1", "AlbumArtist: The Field Recorders", "songs: 2",
            ])
    }

    @Test("`list album group albumartist` groups albums without ALBUMARTIST under their artist")
    func listAlbumGroupAlbumArtist() throws {
        #expect(
            try answer("list album group albumartist") == [
                "AlbumArtist: ", "Album: ", "AlbumArtist: Aurora Quartet", "Album: Live at the Lighthouse",
                "Album: Northern Lights", "AlbumArtist: Orchestra", "Album: Requiem", "AlbumArtist: Solo",
                "Album: Sketches", "AlbumArtist: The Field Recorders", "Album: Coastline", "OK",
            ])
    }

    @Test("`list composer` lists every composer value, and '' for songs without one")
    func listComposer() throws {
        #expect(try answer("list composer") == ["Composer: ", "Composer: Haydn", "Composer: Mozart", "OK"])
    }

    @Test("`find composer X` matches any of a song's composers; `!=` holds only when none is X")
    func findComposer() throws {
        let result = try answers(["find composer Haydn", "find \"(composer != 'Haydn')\"", "find composer Mozart"])
        #expect(files(result[0]) == ["file: USBSTICK/Classics/Requiem/01 Introitus.flac"])
        #expect(!files(result[1]).contains("file: USBSTICK/Classics/Requiem/01 Introitus.flac"))
        #expect(files(result[1]).count == 10)
        #expect(files(result[2]).count == 2)
        #expect(result[0].filter { $0.hasPrefix("Composer:") } == ["Composer: Mozart", "Composer: Haydn"])
    }

    @Test(
        "sort tags fall back as in MPD: ArtistSort to Artist, AlbumSort to Album, AlbumArtistSort to AlbumArtist, then Artist"
    )
    func sortTagsFallBack() throws {
        let result = try answers(["list artistsort", "list albumsort", "list albumartistsort"])
        #expect(
            result[0] == [
                "ArtistSort: ", "ArtistSort: Aurora Quartet", "ArtistSort: Phil, Vienna", "ArtistSort: Solo, The",
                "ArtistSort: The Field Recorders", "ArtistSort: Vienna Phil", "OK",
            ])
        #expect(
            result[1] == [
                "AlbumSort: ", "AlbumSort: Coastline", "AlbumSort: Live at the Lighthouse",
                "AlbumSort: Northern Lights", "AlbumSort: Requiem", "AlbumSort: Sketches", "OK",
            ])
        // Kyrie has no AlbumArtistSort: its AlbumArtist stands in; Solo's ArtistSort is skipped for its Artist.
        #expect(
            result[2] == [
                "AlbumArtistSort: ", "AlbumArtistSort: Aurora Quartet", "AlbumArtistSort: Orch",
                "AlbumArtistSort: Orchestra", "AlbumArtistSort: Solo", "AlbumArtistSort: The Field Recorders", "OK",
            ])
    }

    @Test("`find … sort AlbumArtistSort` orders by the sort value with its fallbacks, stable")
    func findSortedBySortTag() throws {
        let lines = try answer("find \"(Album == 'Requiem')\" sort -AlbumArtistSort")
        // Introitus sorts as "Orch", Kyrie as "Orchestra" (its AlbumArtist): descending, Kyrie first.
        #expect(
            files(lines) == [
                "file: USBSTICK/Classics/Requiem/02 Kyrie.flac", "file: USBSTICK/Classics/Requiem/01 Introitus.flac",
            ])
    }

    @Test("MusicBrainz ids are answered and filtered on, without fallbacks")
    func musicBrainzIDs() throws {
        let result = try answers(["find MUSICBRAINZ_TRACKID mb-kyrie", "list musicbrainz_albumartistid"])
        #expect(files(result[0]) == ["file: USBSTICK/Classics/Requiem/02 Kyrie.flac"])
        #expect(result[0].contains("MUSICBRAINZ_TRACKID: mb-kyrie"))
        #expect(result[1] == ["MUSICBRAINZ_ALBUMARTISTID: ", "OK"])
    }

    @Test("`tagtypes` lists MPD 0.23's 30 tag types (all but Comment) in MPD's order")
    func tagTypesAreMPDs() throws {
        let names = try answer("tagtypes").dropLast().map { String($0.dropFirst("tagtype: ".count)) }
        #expect(
            names == [
                "Artist", "ArtistSort", "Album", "AlbumSort", "AlbumArtist", "AlbumArtistSort", "Title", "Track",
                "Name", "Genre", "Date", "OriginalDate", "Composer", "ComposerSort", "Performer", "Conductor", "Work",
                "Movement", "MovementNumber", "Ensemble", "Location", "Grouping", "Disc", "Label",
                "MUSICBRAINZ_ARTISTID", "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ALBUMARTISTID", "MUSICBRAINZ_TRACKID",
                "MUSICBRAINZ_RELEASETRACKID", "MUSICBRAINZ_WORKID",
            ])
    }

    @Test("`tagtypes disable/clear/enable/all` choose which of the new tags a song's description shows")
    func tagTypesChooseTheNewTags() throws {
        let result = try answers([
            "tagtypes disable Composer MUSICBRAINZ_TRACKID", "find title Kyrie", "tagtypes clear",
            "tagtypes enable composer", "find title Kyrie", "tagtypes all", "find title Kyrie",
        ])
        #expect(!result[1].contains { $0.hasPrefix("Composer:") || $0.hasPrefix("MUSICBRAINZ_TRACKID:") })
        #expect(result[1].contains("Title: Kyrie"))
        #expect(
            result[4].filter { !$0.hasPrefix("file:") && !$0.hasPrefix("Last-Modified:") } == [
                "Format: 44100:16:2", "Composer: Mozart", "Time: 2", "duration: 2.000", "OK",
            ])
        #expect(result[6].contains("Composer: Mozart") && result[6].contains("MUSICBRAINZ_TRACKID: mb-kyrie"))
    }

    @Test("tag names of later MPDs (mood, titlesort) are unknown, as in 0.23")
    func laterTagNamesAreUnknown() throws {
        let result = try answers(["list mood", "find titlesort x"])
        #expect(result[0] == ["ACK [2@0] {list} Unknown tag type: mood"])
        #expect(result[1].first?.hasPrefix("ACK [2@0] {find}") == true)
    }
}

/// Whether the tools of the agreement test are installed (outside the trait: a closure inside a
/// `@Suite` trait crashes Swift 6.0.3's type checker).
let agreementToolsPresent = ["mpd", "sox", "lame"].allSatisfy { which($0) != nil }

/// The same tag questions asked of Debian's mpd 0.23 (where installed) over the same files, the
/// classics and an MP3 with the ID3v2 frames MPD reads and some it does not: the answers agree once
/// MPD's own differences are set aside (the volume's name in URIs, time stamps, the order of a
/// song's tag lines, which MPD keeps from the file, `Format` lines, which MPD leaves out of sorted
/// answers, and `Time`/`duration`, which for an MP3 mpd reckons without LAME's gapless trim).
@Suite(
    .tags(.integration), .serialized,
    .enabled(if: agreementToolsPresent, "needs mpd, sox and lame"))
struct MPDTagModelAgreementTests {
    /// The classics and "Tagged/a.mp3".
    static func library(_ music: String) throws -> Int {
        let count = try MPDTagModelTests.classics(music)
        let folder = music + "/Tagged"
        try Syscalls.mkdirs(folder)
        let sox = run(which("sox")!, ["-n", "-r", "44100", "-c", "2", "-b", "16", folder + "/t.wav", "synth", "0.3"])
        let lame = run(which("lame")!, ["--quiet", "-b", "128", folder + "/t.wav", folder + "/plain.mp3"])
        guard sox.status == 0, lame.status == 0 else { throw TestFailure("sox/lame: \(sox.errors) \(lame.errors)") }
        defer {
            unlink(folder + "/t.wav")
            unlink(folder + "/plain.mp3")
        }
        func syncsafe(_ n: Int) -> [UInt8] { [21, 14, 7, 0].map { UInt8((n >> $0) & 0x7F) } }
        func frame(_ id: String, _ body: [UInt8]) -> [UInt8] { Array(id.utf8) + syncsafe(body.count) + [0, 0] + body }
        func text(_ id: String, _ value: String) -> [UInt8] { frame(id, [3] + Array(value.utf8)) }
        func txxx(_ name: String, _ value: String) -> [UInt8] {
            frame("TXXX", [3] + Array(name.utf8) + [0] + Array(value.utf8))
        }
        // One append a line: a long `+` chain of arrays is too much for Swift 6.0.3's type checker.
        var frames: [UInt8] = []
        for (id, value) in [
            ("TIT2", "MP3 Song"), ("TPE1", "MP3 Artist"), ("TALB", "MP3 Album"), ("TCOM", "Bach"),
            ("TPE3", "Karajan"), ("TPE4", "Remixer"), ("TIT1", "Group"), ("TSOP", "Artist Sort"),
            ("TSO2", "Album Artist Sort"), ("TSOA", "Album Sort"), ("TDOR", "1970"), ("TPUB", "Label"),
            ("TSOC", "Composer Sort"),
        ] {
            frames += text(id, value)
        }
        for (name, value) in [
            ("MusicBrainz Artist Id", "mb-artist"), ("MusicBrainz Album Id", "mb-album"),
            ("MusicBrainz Album Artist Id", "mb-album-artist"), ("MusicBrainz Release Track Id", "mb-release-track"),
            ("MusicBrainz Work Id", "mb-work"), ("WORK", "Work"), ("PERFORMER", "Performer"),
        ] {
            frames += txxx(name, value)
        }
        frames += frame("UFID", Array("http://musicbrainz.org".utf8) + [0] + Array("mb-track".utf8))
        frames += frame("TMCL", [3] + Array("guitar".utf8) + [0] + Array("Player".utf8))
        let tag = Array("ID3".utf8) + [4, 0, 0] + syncsafe(frames.count) + frames
        try SyntheticLibrary.writeFile(
            path: folder + "/a.mp3", bytes: tag + (try Syscalls.readFile(folder + "/plain.mp3")))
        return count + 1
    }

    static let commands = [
        "find title \"MP3 Song\"", "list performer", "list grouping", "list work", "list composersort",
        "list albumartistsort group musicbrainz_albumartistid", "find MUSICBRAINZ_TRACKID mb-track",
        "tagtypes", "list albumartist", "list album group albumartist", "list composer", "list artistsort",
        "list albumsort", "list albumartistsort", "list genre group albumartist", "find albumartist Solo",
        "find album Coastline albumartist \"The Field Recorders\"", "find albumartist \"Vienna Phil\"",
        "search albumartist field", "find composer Haydn", "find \"(composer != 'Haydn')\"",
        "find \"(albumartist == '')\"", "count albumartist \"Aurora Quartet\"", "count group albumartist",
        "find \"(Album == 'Requiem')\" sort -AlbumArtistSort", "find \"(Title != 'x')\" sort ArtistSort",
        "find MUSICBRAINZ_TRACKID mb-kyrie", "list musicbrainz_albumartistid", "list mood",
    ]

    /// `lines` without what must differ; each song's tag lines sorted.
    static func normalised(_ lines: [String]) -> [String] {
        var result: [String] = []
        var song: [String] = []
        var inSong = false
        let differing = ["Last-Modified: ", "Format: ", "Time: ", "duration: "]
        for line in lines where !differing.contains(where: { line.hasPrefix($0) }) {
            if line.hasPrefix("file: ") || line == "OK" || line.hasPrefix("ACK ") {
                result += song.sorted()
                song = []
                inSong = line.hasPrefix("file: ")
                result.append(line.hasPrefix("file: USBSTICK/") ? "file: " + line.dropFirst(15) : line)
            } else if inSong {
                song.append(line)
            } else {
                result.append(line)
            }
        }
        return result
    }

    @Test("the box answers the tag questions as mpd 0.23 does on the same files")
    func sameAnswersAsMPD() throws {
        let h = try Harness(extraTracks: Self.library)
        let ours = try h.withClient { c in try Self.commands.map { try c.command($0) } }
        let socket = h.directory.file("mpd/socket")
        try h.directory.write(
            "mpd/mpd.conf",
            """
            music_directory "\(h.music)"
            db_file "\(h.directory.file("mpd/db"))"
            bind_to_address "\(socket)"
            audio_output {
                type "null"
                name "null"
            }
            """)
        let mpd = try ChildProcess(
            which("mpd")!, ["--no-daemon", h.directory.file("mpd/mpd.conf")], log: h.directory.file("mpd/log"))
        defer { mpd.stop() }
        var client: TestClient?
        for _ in 0..<100 where client == nil {
            client = try? TestClient(unix: socket)
            if client == nil { usleep(50_000) }
        }
        let mpdClient = try #require(client, "mpd did not listen: \(mpd.log)")
        _ = try mpdClient.command("update")
        for _ in 0..<200 {
            let status = try mpdClient.pairs("status")
            if status["updating_db"] == nil, try mpdClient.pairs("stats")["songs"] == "\(h.trackCount)" { break }
            usleep(50_000)
        }
        #expect(try mpdClient.pairs("stats")["songs"] == "\(h.trackCount)", "mpd's library: \(mpd.log)")
        // Not agreeing on nothing: the MP3's tags are there.
        #expect(ours[0].contains("Performer: Remixer") && ours[0].contains("Grouping: Group"))
        for (i, command) in Self.commands.enumerated() {
            let theirs = try mpdClient.command(command)
            #expect(Self.normalised(ours[i]) == Self.normalised(theirs), "\(command)")
        }
    }

    @Test(
        "mpc finds and lists an album without ALBUMARTIST by its artist", .enabled(if: which("mpc") != nil, "needs mpc")
    )
    func mpcAlbumArtist() throws {
        let h = try Harness(extraTracks: MPDTagModelTests.classics)
        let mpc = which("mpc")!
        let socket = h.socketPath
        let (found, listed) = try h.client {
            (
                run(mpc, ["-h", socket, "find", "albumartist", "The Field Recorders"]).output,
                run(mpc, ["-h", socket, "list", "album", "albumartist", "Solo"]).output
            )
        }
        #expect(
            found.split(separator: "\n") == [
                "USBSTICK/The Field Recorders/Coastline/01 Low Tide.flac",
                "USBSTICK/The Field Recorders/Coastline/02 Gulls.flac",
            ])
        #expect(listed == "Sketches\n")
    }
}
