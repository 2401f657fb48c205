// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskCore
import KioskDisplay
import KioskLibrary
import KioskSystem

/// The demo's music: a few albums, artists, genres and a playlist, written as real FLAC files by
/// the project's own encoder (`SyntheticLibrary`, libFLAC), with one album's cover embedded, one
/// as cover.jpg, and one Japanese album; and one album of MP3, Opus and Ogg Vorbis tracks made from
/// those with Debian's encoders (lame, opusenc, oggenc, ffmpeg's AAC; left out, with a log line,
/// where missing).
/// Made once per version under a temp directory.
public enum DemoLibrary {
    static let version = "2"

    struct Album {
        let artist: String
        let album: String
        let genre: String
        let date: String
        let titles: [String]
        let art: Art
        let sampleRate: Int
        let bits: Int
        /// The file type of each track ("flac" unless told: "mp3", "opus", "ogg").
        var formats: [String] = []
        enum Art { case embedded, coverFile, none }
    }

    static let albums: [Album] = [
        Album(
            artist: "Aurora Quartet", album: "Northern Lights", genre: "Jazz", date: "2019",
            titles: ["Polar Night", "Green Curtain", "Solar Wind", "Magnetic North"], art: .embedded,
            sampleRate: 44_100, bits: 16),
        Album(
            artist: "The Field Recorders", album: "Coastline", genre: "Ambient", date: "2021",
            titles: ["Low Tide", "Gulls", "Harbour Bells"], art: .coverFile, sampleRate: 48_000, bits: 24),
        Album(
            artist: "佐藤花", album: "夜の歌", genre: "J-Pop", date: "2020",
            titles: ["月の光", "さくら通り", "最後の電車"], art: .none, sampleRate: 44_100, bits: 16),
        Album(
            artist: "Aurora Quartet", album: "Live at the Lighthouse", genre: "Jazz", date: "2022",
            titles: ["Opening", "Blue Hour (a rather long title that will not fit on a small screen)"],
            art: .coverFile, sampleRate: 96_000, bits: 24),
        Album(
            artist: "Kiosk Radio", album: "Everyday Formats", genre: "Pop", date: "2026",
            titles: ["Morning MP3", "Evening Opus", "Night Vorbis", "Afternoon AAC"], art: .embedded,
            sampleRate: 48_000, bits: 16,
            formats: ["mp3", "opus", "ogg", "m4a"]),
    ]

    /// Creates (or reuses) the demo library under `root`; returns the music folder.
    public static func prepare(root: String, seconds: Double = 30) throws -> String {
        let music = "\(root)/music"
        let marker = "\(root)/.demo-version"
        if let bytes = try? Syscalls.readFile(marker), String(decoding: bytes, as: UTF8.self) == version {
            return music
        }
        Syscalls.runAndWait("/bin/rm", arguments: ["-rf", music])
        try Syscalls.mkdirs(music)
        var playlist = ["#EXTM3U"]
        for (a, album) in albums.enumerated() {
            let folder = "\(album.artist)/\(album.album)"
            let cover = try coverArt(index: a, size: 600)
            for (t, title) in album.titles.enumerated() {
                let number = t + 1
                let format = t < album.formats.count ? album.formats[t] : "flac"
                let name = "\(number < 10 ? "0" : "")\(number) \(title.prefix(40)).\(format)"
                let path = "\(music)/\(folder)/\(name)"
                var tags: [(name: String, value: String)] = [
                    ("TITLE", title), ("ARTIST", album.artist), ("ALBUM", album.album), ("GENRE", album.genre),
                    ("DATE", album.date), ("TRACKNUMBER", "\(number)/\(album.titles.count)"),
                ]
                if a == 0 && t == 1 { tags.append(("ARTIST", "Guest Trumpet")) }
                let picture =
                    album.art == .embedded
                    ? EmbeddedPicture(bytes: cover, mimeType: "image/jpeg", type: 3, width: 600, height: 600) : nil
                let flacPath = format == "flac" ? path : "\(root)/convert.flac"
                try SyntheticLibrary.writeFLAC(
                    path: flacPath, tags: tags, picture: picture, seconds: seconds, sampleRate: album.sampleRate,
                    channels: 2, bitsPerSample: album.bits, toneHz: 220 * Double(a + 1) + 55 * Double(t))
                if format != "flac" {
                    try Syscalls.mkdirs("\(music)/\(folder)")
                    let converted = MusicFileEncoder.convert(
                        flacPath, to: path, format: format, tags: tags, cover: (cover, "jpg"))
                    guard converted else {
                        Log.info("demo: no \(format) encoder here; \(name) is left out")
                        continue
                    }
                }
                if t == 0 || (a == 2 && t == 1) {
                    playlist.append("#EXTINF:\(Int(seconds)),\(album.artist) - \(title)")
                    playlist.append("\(folder)/\(name)")
                }
            }
            if album.art == .coverFile {
                try SyntheticLibrary.writeFile(path: "\(music)/\(folder)/cover.jpg", bytes: cover)
            }
        }
        try SyntheticLibrary.writeFile(
            path: "\(music)/Demo Mix.m3u8", bytes: Array((playlist.joined(separator: "\n") + "\n").utf8))
        try AtomicFile.replace(marker, with: version)
        return music
    }

    /// A cover image: a colour gradient with a disc, different for each album.
    static func coverArt(index: Int, size: Int) throws -> [UInt8] {
        let hues: [(Double, Double, Double)] = [(0.1, 0.5, 0.9), (0.2, 0.7, 0.6), (0.9, 0.4, 0.5), (0.9, 0.7, 0.2)]
        let (r0, g0, b0) = hues[index % hues.count]
        var pixels = [UInt8](repeating: 0, count: size * size * 3)
        let c = Double(size) / 2
        for y in 0..<size {
            for x in 0..<size {
                let t = Double(x + y) / Double(2 * size)
                let d = ((Double(x) - c) * (Double(x) - c) + (Double(y) - c) * (Double(y) - c)).squareRoot()
                let ring = d < c * 0.6 && d > c * 0.15 ? 0.35 : 0
                let i = (y * size + x) * 3
                pixels[i] = UInt8(min(255, (r0 * (1 - t) + 0.1 * t + ring) * 255))
                pixels[i + 1] = UInt8(min(255, (g0 * (1 - t) + 0.1 * t + ring) * 255))
                pixels[i + 2] = UInt8(min(255, (b0 * (1 - t) + 0.2 * t + ring) * 255))
            }
        }
        return try ImageEncoder.jpeg(pixels, width: size, height: size, quality: 85)
    }

}
