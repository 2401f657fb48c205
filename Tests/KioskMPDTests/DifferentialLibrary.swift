// SPDX-License-Identifier: GPL-3.0-or-later
import KioskLibrary

/// The library both servers serve in the differential test: albums with and without ALBUMARTIST,
/// a compilation, a composer with sort tags, non-ASCII names, nested folders, an untagged file,
/// two playlists and a cover. Tracks are 40 s of 8 kHz mono, so nothing ends while the script runs.
/// Thread: any.
enum DifferentialLibrary {
    static let seconds = 40.0
    static let cover: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x5A, count: 300) + [0xFF, 0xD9]

    /// Writes the library under `root` (the stick's folder); returns the number of tracks.
    static func write(under root: String) throws -> Int {
        var count = 0
        func track(_ path: String, _ tags: [(String, String)]) throws {
            try SyntheticLibrary.write(
                SyntheticTrack(
                    relativePath: path, tags: tags.map { (name: $0.0, value: $0.1) }, seconds: seconds,
                    sampleRate: 8000, channels: 1),
                under: root, compressionLevel: 0)
            count += 1
        }
        // With ALBUMARTIST, a DATE and disc numbers.
        for (n, title) in ["Polar Night", "Green Curtain", "Solar Wind", "Magnetic Dawn"].enumerated() {
            try track(
                "Aurora Quartet/Northern Lights/0\(n + 1) \(title).flac",
                [
                    ("TITLE", title), ("ARTIST", "Aurora Quartet"), ("ALBUMARTIST", "Aurora Quartet"),
                    ("ALBUM", "Northern Lights"), ("GENRE", "Jazz"), ("DATE", "2019"), ("TRACKNUMBER", "\(n + 1)"),
                    ("DISCNUMBER", "1"),
                ])
        }
        // Without ALBUMARTIST: MPD falls back to ARTIST.
        for (n, title) in ["Opening", "Blue Hour", "Encore"].enumerated() {
            try track(
                "Aurora Quartet/Live at the Lighthouse/0\(n + 1) \(title).flac",
                [
                    ("TITLE", title), ("ARTIST", "Aurora Quartet"), ("ALBUM", "Live at the Lighthouse"),
                    ("GENRE", "Jazz"), ("DATE", "2021"), ("TRACKNUMBER", "\(n + 1)"),
                ])
        }
        // A compilation: one album artist, several artists.
        let sampler = [
            ("Aurora Quartet", "Heatwave", "Jazz"), ("The Field Recorders", "Dunes", "Ambient"),
            ("Björk Ensemble", "Sommarnatt", "Folk"), ("Kid Kilo", "Pool Party", "Electronic"),
        ]
        for (n, (artist, title, genre)) in sampler.enumerated() {
            try track(
                "Various/Summer Sampler/0\(n + 1) \(title).flac",
                [
                    ("TITLE", title), ("ARTIST", artist), ("ALBUMARTIST", "Various Artists"),
                    ("ALBUM", "Summer Sampler"), ("GENRE", genre), ("DATE", "2022"), ("TRACKNUMBER", "\(n + 1)/4"),
                ])
        }
        // A composer, a performer, sort tags; nested three folders deep.
        for (n, title) in ["Aria", "Variatio 1", "Variatio 2", "Aria da capo"].enumerated() {
            try track(
                "Classical/Bach/Goldberg Variations/0\(n + 1) \(title).flac",
                [
                    ("TITLE", title), ("ARTIST", "Glenn Gould"), ("ARTISTSORT", "Gould, Glenn"),
                    ("ALBUMARTIST", "Glenn Gould"), ("ALBUMARTISTSORT", "Gould, Glenn"),
                    ("COMPOSER", "Johann Sebastian Bach"), ("PERFORMER", "Glenn Gould (piano)"),
                    ("ALBUM", "Goldberg Variations"), ("GENRE", "Classical"), ("DATE", "1981"),
                    ("TRACKNUMBER", "\(n + 1)"),
                ])
        }
        // Non-ASCII names in paths and tags, no ALBUMARTIST.
        for (n, title) in ["Été", "Straße", "Ωmega"].enumerated() {
            try track(
                "Björk Ensemble/Café Nocturne/0\(n + 1) \(title).flac",
                [
                    ("TITLE", title), ("ARTIST", "Björk Ensemble"), ("ALBUM", "Café Nocturne"), ("GENRE", "Folk"),
                    ("DATE", "2020-05-01"), ("TRACKNUMBER", "\(n + 1)"),
                ])
        }
        // ALBUMARTIST with a sort tag; a cover file.
        for (n, title) in ["Low Tide", "Gulls", "Salt Marsh"].enumerated() {
            try track(
                "The Field Recorders/Coastline/0\(n + 1) \(title).flac",
                [
                    ("TITLE", title), ("ARTIST", "The Field Recorders"), ("ALBUMARTIST", "The Field Recorders"),
                    ("ALBUMARTISTSORT", "Field Recorders, The"), ("ALBUM", "Coastline"), ("GENRE", "Ambient"),
                    ("TRACKNUMBER", "\(n + 1)"),
                ])
        }
        try SyntheticLibrary.writeFile(path: root + "/The Field Recorders/Coastline/cover.jpg", bytes: cover)
        for (n, title) in ["Night Drive", "Neon", "Overpass", "Tunnel", "Dawn Patrol"].enumerated() {
            try track(
                "Kid Kilo/Night Drive/0\(n + 1) \(title).flac",
                [
                    ("TITLE", title), ("ARTIST", "Kid Kilo"), ("ALBUMARTIST", "Kid Kilo"), ("ALBUM", "Night Drive"),
                    ("GENRE", "Electronic"), ("DATE", "2020"), ("TRACKNUMBER", "\(n + 1)/5"),
                ])
        }
        // No album; deep folders.
        for (n, title) in ["Echo", "Reverb"].enumerated() {
            try track(
                "Kid Kilo/Singles/Deep/Nested/0\(n + 1) \(title).flac", [("TITLE", title), ("ARTIST", "Kid Kilo")])
        }
        try track("Loose/untagged.flac", [])
        try track(
            "Loose/duet.flac",
            [("TITLE", "Duet"), ("ARTIST", "Aurora Quartet"), ("ARTIST", "Kid Kilo"), ("ALBUM", "Collaborations")])
        try SyntheticLibrary.writeFile(
            path: root + "/Mix.m3u8",
            bytes: Array(
                "#EXTM3U\nThe Field Recorders/Coastline/02 Gulls.flac\nAurora Quartet/Northern Lights/01 Polar Night.flac\nBjörk Ensemble/Café Nocturne/01 Été.flac\n"
                    .utf8))
        try SyntheticLibrary.writeFile(
            path: root + "/Kid Kilo/Best of.m3u8",
            bytes: Array("#EXTM3U\nNight Drive/02 Neon.flac\nSingles/Deep/Nested/01 Echo.flac\n".utf8))
        return count
    }
}
