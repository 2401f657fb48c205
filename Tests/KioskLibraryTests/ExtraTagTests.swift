// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

/// MPD's tags beyond the box's own (`ExtraTag`), read from FLAC's Vorbis comments as MPD reads them,
/// kept by the track (only when a file has some) and by the index.
@Suite struct ExtraTagTests {
    /// Every extra tag named as MPD names it, one value each ("<name> value").
    static let everyTag: [(name: String, value: String)] = ExtraTag.allCases.filter { $0 != .movement }.map {
        ($0.rawValue.uppercased(), "\($0.rawValue) value")
    }

    private func flacTags(_ tags: [(name: String, value: String)]) throws -> TrackTags {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("x.flac", tags)
        guard case .playable(let info, _) = MusicFileReader().read(path: library.root + "/x.flac") else {
            throw TestFailure("x.flac is not playable")
        }
        return info.tags
    }

    @Test("every MPD tag named as a Vorbis comment is read from a FLAC file, in any case")
    func everyTagFromFLAC() throws {
        let tags = try flacTags(Self.everyTag.map { ($0.name.lowercased(), $0.value) })
        for tag in ExtraTag.allCases where tag != .movement {
            #expect(tags.values(of: tag) == ["\(tag.rawValue) value"], "\(tag)")
        }
    }

    @Test("MOVEMENTNAME is the Movement and MOVEMENT its number, as MPD's Xiph table has them")
    func movementNames() throws {
        let tags = try flacTags([("MOVEMENTNAME", "Adagio"), ("MOVEMENT", "2")])
        #expect(tags.values(of: .movement) == ["Adagio"])
        #expect(tags.values(of: .movementNumber) == ["2"])
    }

    @Test("several values of one tag are all kept, in the file's order, repeats once")
    func severalValues() throws {
        let tags = try flacTags([("COMPOSER", "Mozart"), ("COMPOSER", "Haydn"), ("COMPOSER", "Mozart")])
        #expect(tags.values(of: .composer) == ["Mozart", "Haydn"])
    }

    @Test("a track keeps no raw tags when its file has no extra tag nor a field with several values")
    func plainTracksStayCompact() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.track("a.flac", title: "Plain", artist: "A")
        try library.flac("b.flac", [("TITLE", "Rich"), ("COMPOSER", "Bach")])
        let tracks = try library.catalog().allTracks
        let plain = try #require(tracks.first { $0.title == "Plain" })
        let rich = try #require(tracks.first { $0.title == "Rich" })
        #expect(plain.tags.extras.isEmpty)
        #expect(rich.values(of: .composer) == ["Bach"])
        #expect(rich.tags.titles == ["Rich"])
    }

    @Test("extra tags come back from the index exactly as read")
    func extraTagsRoundTripTheIndex() throws {
        let library = try TestLibrary()
        let state = try TemporaryDirectory("kiosk-state")
        defer {
            library.remove()
            state.remove()
        }
        try library.flac("x.flac", [("TITLE", "T"), ("COMPOSER", "A=B"), ("COMPOSER", "C")] + Self.everyTag)
        let (fresh, _) = try library.scan(indexPath: state.file("i.sqlite"))
        let (cached, stats) = try library.scan(indexPath: state.file("i.sqlite"))
        #expect(stats.filesRead == 0)
        #expect(cached.allTracks == fresh.allTracks)
        let track = try #require(cached.allTracks.first)
        #expect(track.values(of: .composer) == ["A=B", "C", "Composer value"])
        #expect(track.values(of: .musicBrainzWorkID) == ["MUSICBRAINZ_WORKID value"])
        #expect(track.tags.extras == fresh.allTracks.first?.tags.extras)
    }

    @Test("an index of schema version 1 (no extra tags) is rebuilt, so its files' extra tags are read")
    func versionOneIndexIsRebuilt() throws {
        let library = try TestLibrary()
        let state = try TemporaryDirectory("kiosk-state")
        defer {
            library.remove()
            state.remove()
        }
        try library.flac("x.flac", [("TITLE", "T"), ("COMPOSER", "Bach")])
        let st = try Syscalls.fileStatus(library.root + "/x.flac")
        let mtime = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        let path = state.file("i.sqlite")
        do {
            // What version 1 stored for this very file: its size and mtime, its title, no extras.
            let db = try SQLiteDatabase(path: path)
            try db.execute(
                """
                CREATE TABLE files(
                    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL, problem TEXT, warnings TEXT,
                    title TEXT, artist TEXT, album TEXT, albumartist TEXT, genre TEXT, date TEXT,
                    track INTEGER, tracktotal INTEGER, disc INTEGER, disctotal INTEGER,
                    rate INTEGER, channels INTEGER, bits INTEGER, frames INTEGER, picture INTEGER
                ) WITHOUT ROWID;
                CREATE TABLE playlists(
                    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL, name TEXT NOT NULL,
                    entries TEXT NOT NULL, warnings TEXT
                ) WITHOUT ROWID;
                CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
                INSERT INTO files(path, size, mtime, title, rate, channels, bits, frames, picture)
                    VALUES ('x.flac', \(st.st_size), \(mtime), 'T', 44100, 2, 16, 13230, 0);
                PRAGMA user_version = 1;
                """)
        }
        let (catalog, stats) = try library.scan(indexPath: path)
        #expect(stats.filesRead == 1)
        #expect(catalog.allTracks.first?.values(of: .composer) == ["Bach"])
        #expect(try SQLiteDatabase(path: path).userVersion == VolumeIndex.schemaVersion)
        // And the rebuilt index serves the next scan.
        #expect(try library.scan(indexPath: path).1.filesRead == 0)
    }
}
