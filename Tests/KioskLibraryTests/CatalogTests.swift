// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

@Suite struct SortKeyTests {
    func sorted(_ names: [String], article: Bool = false) -> [String] {
        names.sorted { SortKey($0, ignoringArticle: article) < SortKey($1, ignoringArticle: article) }
    }

    @Test func numbersSortByValue() {
        #expect(
            sorted(["Track 10", "Track 2", "Track 1", "Track 02b"]) == ["Track 1", "Track 2", "Track 02b", "Track 10"])
        #expect(sorted(["10 Years", "2 Unlimited", "ABBA"]) == ["2 Unlimited", "10 Years", "ABBA"])
    }

    @Test func caseAndAccentsAreIgnored() {
        #expect(
            sorted(["zebra", "Émile", "apple", "Eagle", "ÉCLAT"]) == ["apple", "Eagle", "ÉCLAT", "Émile", "zebra"])
        #expect(sorted(["Øystein", "Oasis", "Ozzy"]) == ["Oasis", "Øystein", "Ozzy"])
        #expect(TextFolding.matchKey("Beyoncé") == TextFolding.matchKey("BEYONCE"))
        // Decomposed accents (e + combining acute) fold too.
        #expect(TextFolding.matchKey("Beyonce\u{301}") == TextFolding.matchKey("Beyoncé"))
        #expect(TextFolding.matchKey("Straße") == "strasse")
    }

    @Test func leadingTheIgnoredForArtistsOnly() {
        #expect(
            sorted(["The Who", "Queen", "The Beatles", "Thelonious Monk"], article: true) == [
                "The Beatles", "Queen", "Thelonious Monk", "The Who",
            ])
        #expect(sorted(["The Wall", "Abbey Road"]) == ["Abbey Road", "The Wall"])
    }

    @Test func leadingPunctuationIgnored() {
        #expect(
            sorted(["'Til Tuesday", "(What's the Story)", "Abba", "Zappa"]) == [
                "Abba", "'Til Tuesday", "(What's the Story)", "Zappa",
            ])
    }

    @Test func orderIsTotal() {
        #expect(SortKey("abc") != SortKey("ABC"))
        #expect(SortKey("ABC") < SortKey("abc") || SortKey("abc") < SortKey("ABC"))
    }
}

@Suite struct CatalogTests {
    /// Two artists with a "Greatest Hits" each, a multi-disc album, untagged files, a compilation.
    func makeLibrary() throws -> TestLibrary {
        let library = try TestLibrary()
        try library.track(
            "Queen/Hits/02.flac", title: "Two", artist: "Queen", album: "Greatest Hits", genre: "Rock", track: "2")
        try library.track(
            "Queen/Hits/01.flac", title: "One", artist: "Queen", album: "Greatest Hits", genre: "Rock", track: "1")
        try library.track(
            "ABBA/Hits/01.flac", title: "Waterloo", artist: "ABBA", album: "Greatest Hits", genre: "Pop", track: "1")
        try library.track(
            "Beatles/White/CD2/01.flac", title: "Birthday", artist: "The Beatles", album: "The White Album",
            genre: "Rock",
            track: "1", disc: "2")
        try library.track(
            "Beatles/White/CD1/10.flac", title: "Ten", artist: "The Beatles", album: "The White Album", genre: "Rock",
            track: "10", disc: "1")
        try library.track(
            "Beatles/White/CD1/02.flac", title: "Dear Prudence", artist: "The Beatles", album: "The White Album",
            genre: "Rock", track: "2", disc: "1")
        try library.flac("Loose/untitled track.flac")
        try library.track(
            "Various/Mix/01.flac", title: "Duet", artist: "Émilie", album: "Mix", albumArtist: "Various Artists",
            genre: "Pop")
        try library.flac(
            "Various/Mix/02.flac",
            [
                ("TITLE", "Together"), ("ARTIST", "emilie"), ("ARTIST", "Zed"), ("ALBUM", "Mix"),
                ("ALBUMARTIST", "Various Artists"), ("GENRE", "Pop"), ("GENRE", "Jazz"),
            ])
        return library
    }

    @Test func albumsGroupByAlbumArtistAndAlbum() throws {
        let library = try makeLibrary()
        defer { library.remove() }
        let catalog = try library.catalog()
        let hits = catalog.collections(in: .album).filter { $0.name == "Greatest Hits" }
        #expect(hits.count == 2)
        #expect(Set(hits.map(\.representative.albumArtist)) == ["Queen", "ABBA"])
        // Same name: ordered by album artist.
        #expect(hits.map(\.representative.albumArtist) == ["ABBA", "Queen"])
        let queen = try #require(hits.first { $0.representative.albumArtist == "Queen" })
        #expect(catalog.tracks(of: queen).map(\.title) == ["One", "Two"])
        #expect(queen.subtitle == "Queen · 2 tracks")
        #expect(queen.trackCount == 2)
    }

    /// Without ALBUMARTIST the album artist is decided per album folder: a guest artist on one
    /// track does not split the album, a compilation stays one album ("Various Artists"), disc
    /// folders meet again, and same-named albums of two artists in their own folders stay apart.
    @Test func albumsWithoutAlbumArtistStayWhole() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        for (n, title) in ["Polar Night", "Green Curtain", "Solar Wind"].enumerated() {
            var tags: [(String, String)] = [
                ("TITLE", title), ("ARTIST", "Aurora Quartet"), ("ALBUM", "Northern Lights"),
            ]
            if n == 1 { tags.append(("ARTIST", "Guest Trumpet")) }
            tags.append(("TRACKNUMBER", "\(n + 1)"))
            try library.flac("Aurora/Northern Lights/0\(n + 1).flac", tags)
        }
        for (n, artist) in ["Granite", "The Night Owls", "Pulse Unit"].enumerated() {
            try library.track(
                "Mixes/Summer Mix/0\(n + 1).flac", title: "Song \(n + 1)", artist: artist, album: "Summer Mix",
                track: "\(n + 1)")
        }
        try library.track("Live/CD1/01.flac", title: "Opening", artist: "Granite", album: "Live", track: "1", disc: "1")
        try library.track("Live/CD2/01.flac", title: "Encore", artist: "Granite", album: "Live", track: "1", disc: "2")
        try library.track("Queen/Hits/01.flac", title: "One", artist: "Queen", album: "Greatest Hits")
        try library.track("ABBA/Hits/01.flac", title: "Waterloo", artist: "ABBA", album: "Greatest Hits")
        let catalog = try library.catalog()
        #expect(catalog.names(.album) == ["Greatest Hits", "Greatest Hits", "Live", "Northern Lights", "Summer Mix"])
        let lights = try #require(catalog.named(.album, "Northern Lights"))
        #expect(catalog.tracks(of: lights).map(\.title) == ["Polar Night", "Green Curtain", "Solar Wind"])
        #expect(lights.representative.albumArtist == "Aurora Quartet")
        let guest = try #require(catalog.track(volume: library.volume, relativePath: "Aurora/Northern Lights/02.flac"))
        #expect(guest.artist == "Aurora Quartet, Guest Trumpet")
        #expect(guest.tags.albumArtists.isEmpty, "a derived album artist is not a tag")
        #expect(catalog.named(.artist, "Guest Trumpet") != nil, "the guest is still an artist")
        let mix = try #require(catalog.named(.album, "Summer Mix"))
        #expect(catalog.tracks(of: mix).map(\.artist) == ["Granite", "The Night Owls", "Pulse Unit"])
        #expect(mix.representative.albumArtist == Track.variousArtists)
        let live = try #require(catalog.named(.album, "Live"))
        #expect(catalog.tracks(of: live).map(\.title) == ["Opening", "Encore"])
        #expect(
            Set(catalog.collections(in: .album).filter { $0.name == "Greatest Hits" }.map(\.representative.albumArtist))
                == ["Queen", "ABBA"])
        #expect(catalog.names(.albumArtist) == ["ABBA", "Aurora Quartet", "Granite", "Queen", "Various Artists"])
    }

    @Test func fallbacksForMissingTags() throws {
        let library = try makeLibrary()
        defer { library.remove() }
        let catalog = try library.catalog()
        let loose = try #require(catalog.track(volume: library.volume, relativePath: "Loose/untitled track.flac"))
        #expect(loose.title == "untitled track")
        #expect(loose.artist == "Unknown Artist")
        #expect(loose.album == "Unknown Album")
        #expect(loose.albumArtist == "Unknown Artist")
        #expect(loose.genre == "Unknown Genre")
        #expect(loose.tags.isEmpty)
        // Fallback collections come last.
        #expect(catalog.names(.album).last == "Unknown Album")
        #expect(catalog.names(.artist).last == "Unknown Artist")
        #expect(catalog.names(.genre).last == "Unknown Genre")
        // Album artist falls back to the artist.
        let abba = try #require(catalog.track(volume: library.volume, relativePath: "ABBA/Hits/01.flac"))
        #expect(abba.albumArtist == "ABBA")
    }

    @Test func categoriesSortedForDisplay() throws {
        let library = try makeLibrary()
        defer { library.remove() }
        let catalog = try library.catalog()
        #expect(catalog.names(.artist) == ["ABBA", "The Beatles", "Émilie", "Queen", "Zed", "Unknown Artist"])
        #expect(catalog.names(.albumArtist) == ["ABBA", "The Beatles", "Queen", "Various Artists", "Unknown Artist"])
        #expect(catalog.names(.album) == ["Greatest Hits", "Greatest Hits", "Mix", "The White Album", "Unknown Album"])
        #expect(catalog.names(.genre) == ["Jazz", "Pop", "Rock", "Unknown Genre"])
        #expect(catalog.names(.folder) == ["Hits", "CD1", "CD2", "Loose", "Hits", "Mix"])
        #expect(
            catalog.collections(in: .folder).map(\.subtitle) == [
                "ABBA · 1 track", "Beatles/White · 2 tracks", "Beatles/White · 1 track", "1 track", "Queen · 2 tracks",
                "Various · 2 tracks",
            ])
    }

    @Test func discThenTrackThenTitle() throws {
        let library = try makeLibrary()
        defer { library.remove() }
        let catalog = try library.catalog()
        let white = try #require(catalog.named(.album, "The White Album"))
        #expect(catalog.tracks(of: white).map(\.title) == ["Dear Prudence", "Ten", "Birthday"])
        let beatles = try #require(catalog.named(.artist, "The Beatles"))
        #expect(catalog.tracks(of: beatles).map(\.title) == ["Dear Prudence", "Ten", "Birthday"])
        #expect(beatles.subtitle == "1 album · 3 tracks")
    }

    @Test func multipleArtistsAndGenresFileUnderEach() throws {
        let library = try makeLibrary()
        defer { library.remove() }
        let catalog = try library.catalog()
        // "Émilie" and "emilie" are one artist (case and accents ignored); the first spelling names it.
        let emilie = try #require(catalog.named(.artist, "Émilie"))
        #expect(catalog.tracks(of: emilie).map(\.title) == ["Duet", "Together"])
        #expect(catalog.tracks(of: try #require(catalog.named(.artist, "Zed"))).map(\.title) == ["Together"])
        #expect(catalog.tracks(of: try #require(catalog.named(.genre, "Jazz"))).map(\.title) == ["Together"])
        let together = try #require(catalog.track(volume: library.volume, relativePath: "Various/Mix/02.flac"))
        #expect(together.artist == "emilie, Zed")
        #expect(together.genre == "Pop, Jazz")
    }

    @Test func predicatesCombineWithAnd() throws {
        let library = try makeLibrary()
        defer { library.remove() }
        let catalog = try library.catalog()
        #expect(catalog.query([.artist("queen")]).map(\.title) == ["One", "Two"])
        #expect(catalog.query([.album("Greatest Hits")]).count == 3)
        #expect(catalog.query([.album("Greatest Hits"), .genre("Pop")]).map(\.title) == ["Waterloo"])
        #expect(catalog.query([.genre("rock"), .artist("The Beatles")]).count == 3)
        #expect(catalog.query([.artist("EMILIE")]).count == 2)
        #expect(catalog.query([.artist("Unknown Artist")]).map(\.title) == ["untitled track"])
        #expect(catalog.query([Predicate(.title, .contains, "TOG")]).map(\.title) == ["Together"])
        #expect(catalog.query([Predicate(.folder, .equalTo, "Beatles/White/CD1")]).count == 2)
        #expect(catalog.query([.artist("Nobody")]).isEmpty)
        #expect(catalog.query([]).count == catalog.trackCount)
    }

    @Test func canonicalOrderOfAllTracks() throws {
        let library = try makeLibrary()
        defer { library.remove() }
        let catalog = try library.catalog()
        #expect(
            catalog.allTracks.map(\.title) == [
                "Waterloo", "Dear Prudence", "Ten", "Birthday", "One", "Two", "untitled track", "Duet", "Together",
            ])
    }

    @Test func removingAVolumeDropsItsTracksAndEmptyCollections() throws {
        let first = try makeLibrary()
        defer { first.remove() }
        let second = try TestLibrary()
        defer { second.remove() }
        try second.track("x.flac", title: "Other", artist: "Queen", album: "Greatest Hits", genre: "Rock", track: "3")
        let scanner = VolumeScanner()
        let a = try scanner.scan(volume: VolumeID(rawValue: "a"), mountPoint: first.root, indexPath: nil).contents
        let b = try scanner.scan(volume: VolumeID(rawValue: "b"), mountPoint: second.root, indexPath: nil).contents
        let both = Catalog(volumes: [a, b])
        #expect(both.trackCount == 10)
        let queenHits = try #require(both.collections(in: .album).first { $0.representative.albumArtist == "Queen" })
        #expect(both.tracks(of: queenHits).map(\.title) == ["One", "Two", "Other"])
        #expect(queenHits.subtitle == "Queen · 3 tracks")

        let onlyB = both.removing(volumes: [VolumeID(rawValue: "a")])
        #expect(onlyB.trackCount == 1)
        #expect(onlyB.names(.album) == ["Greatest Hits"])
        #expect(onlyB.names(.artist) == ["Queen"])
        let remaining = try #require(onlyB.collections(in: .album).first)
        #expect(remaining.subtitle == "Queen · 1 track")
        #expect(onlyB.tracks(of: remaining).map(\.title) == ["Other"])
        #expect(onlyB.volumes == [VolumeID(rawValue: "b")])
        // Unaffected catalogs are returned as they are.
        #expect(onlyB.removing(volumes: [VolumeID(rawValue: "zzz")]) === onlyB)
        #expect(both.removing(volumes: [VolumeID(rawValue: "a"), VolumeID(rawValue: "b")]).trackCount == 0)
    }

    @Test func artworkPrecedence() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let embedded = EmbeddedPicture(bytes: SyntheticLibrary.sampleJPEG, mimeType: "image/jpeg")
        // Album A: embedded picture in track 2 only, plus a cover file: the embedded one wins.
        try library.track("A/01.flac", title: "a1", album: "A", track: "1")
        try library.track("A/02.flac", title: "a2", album: "A", track: "2", picture: embedded)
        try library.write("A/cover.jpg", SyntheticLibrary.sampleJPEG)
        // Album B: no embedded art; folder.png and Cover.JPG: "cover" beats "folder", any case.
        try library.track("B/01.flac", title: "b1", album: "B", track: "1")
        try library.write("B/folder.png", SyntheticLibrary.solidPNG(width: 1, height: 1, red: 0, green: 0, blue: 0))
        try library.write("B/Cover.JPG", SyntheticLibrary.sampleJPEG)
        // Album C: only front.jpeg in the parent of a disc folder.
        try library.track("C/CD1/01.flac", title: "c1", album: "C", track: "1")
        try library.write("C/front.jpeg", SyntheticLibrary.sampleJPEG)
        // Album D: nothing (a non-cover image does not count).
        try library.track("D/01.flac", title: "d1", album: "D", track: "1")
        try library.write("D/scan.jpg", SyntheticLibrary.sampleJPEG)
        let catalog = try library.catalog()

        let a = try #require(catalog.named(.album, "A"))
        #expect(a.representative.title == "a2")
        #expect(catalog.artwork(for: a) == .embedded(bytes: SyntheticLibrary.sampleJPEG, mimeType: "image/jpeg"))
        let b = try #require(catalog.named(.album, "B"))
        #expect(catalog.artwork(for: b) == .file(path: library.root + "/B/Cover.JPG", volumePath: library.root))
        let c = try #require(catalog.named(.album, "C"))
        #expect(catalog.artwork(for: c) == .file(path: library.root + "/C/front.jpeg", volumePath: library.root))
        let d = try #require(catalog.named(.album, "D"))
        #expect(catalog.artwork(for: d) == nil)
        // A cover file that disappeared after the scan is not returned.
        try Syscalls.unlink(library.root + "/B/Cover.JPG")
        #expect(catalog.artwork(for: b) == .file(path: library.root + "/B/folder.png", volumePath: library.root))
    }

    @Test func coverNamePreference() {
        #expect(ArtworkLookup.preferredCover(["album.png", "folder.jpg", "front.jpg"]) == "folder.jpg")
        #expect(ArtworkLookup.preferredCover(["COVER.PNG", "cover.jpeg"]) == "cover.jpeg")
        #expect(ArtworkLookup.preferredCover(["covers.jpg", "cover.gif"]) == nil)
        #expect(ArtworkLookup.isDiscFolderName("CD 2"))
        #expect(ArtworkLookup.isDiscFolderName("Disc01"))
        #expect(!ArtworkLookup.isDiscFolderName("CDs"))
    }

    @Test func jsonHasTracksCategoriesAndProblems() throws {
        let library = try makeLibrary()
        defer { library.remove() }
        try library.write("bad.flac", text: "nope")
        let json = try library.catalog().jsonValue()
        #expect(json["trackCount"]?.int == 9)
        #expect(json["tracks"]?.array?.count == 9)
        let albums = try #require(json["categories"]?["album"]?.array)
        #expect(albums.count == 5)
        #expect(albums.first?["tracks"]?.array?.count == 1)
        #expect(json["problems"]?.array?.first?["path"]?.string == "bad.flac")
    }
}

@Suite struct TrackFolderTests {
    @Test func folderStringIsSharedOnlyWithinTheSameFolder() {
        #expect(Track.sharedFolder("", of: "a.flac") == "")
        #expect(Track.sharedFolder("", of: "x/a.flac") == nil)
        #expect(Track.sharedFolder("A/B", of: "A/B/c.flac") == "A/B")
        #expect(Track.sharedFolder("A/B", of: "A/B/C/d.flac") == nil)
        #expect(Track.sharedFolder("A/B", of: "A/Bc/d.flac") == nil)
        #expect(Track.sharedFolder("A/B", of: "A/C/d.flac") == nil)
        #expect(Track.sharedFolder("A/B", of: "A/B") == nil)
        #expect(Track.sharedFolder("Ä/B", of: "Ä/B/é.flac") == "Ä/B")
        for path in ["a.flac", "x/a.flac", "A/B/c.flac", "A/B/C/d.flac"] {
            #expect(Track.sharedFolder(Track.folder(of: path), of: path) == Track.folder(of: path))
        }
    }
}
