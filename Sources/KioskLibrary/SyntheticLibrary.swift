// SPDX-License-Identifier: GPL-3.0-or-later
@preconcurrency import CFLAC
import Glibc
import KioskModel
import KioskSystem

/// An image to embed in a FLAC file as a PICTURE block (bytes supplied by the caller; the
/// library never decodes them). Thread: any (a value).
public struct EmbeddedPicture: Sendable, Hashable {
    public var bytes: [UInt8]
    public var mimeType: String
    /// FLAC picture type: 3 = front cover, 4 = back cover, 0 = other…
    public var type: UInt32
    public var width: Int
    public var height: Int
    public var description: String

    public init(
        bytes: [UInt8], mimeType: String, type: UInt32 = 3, width: Int = 16, height: Int = 16, description: String = ""
    ) {
        self.bytes = bytes
        self.mimeType = mimeType
        self.type = type
        self.width = width
        self.height = height
        self.description = description
    }
}

/// One FLAC file to generate. Thread: any (a value).
public struct SyntheticTrack: Sendable {
    /// Relative to the library root, e.g. `Artist/Album/01 - Song.flac`.
    public var relativePath: String
    /// Vorbis comments in order; a name may repeat (multiple values).
    public var tags: [(name: String, value: String)]
    public var picture: EmbeddedPicture?
    public var seconds: Double
    public var sampleRate: Int
    public var channels: Int
    public var bitsPerSample: Int
    /// Frequency of the sine tone the file holds.
    public var toneHz: Double

    public init(
        relativePath: String, tags: [(name: String, value: String)], picture: EmbeddedPicture? = nil,
        seconds: Double = 1, sampleRate: Int = 44_100, channels: Int = 2, bitsPerSample: Int = 16,
        toneHz: Double = 440
    ) {
        self.relativePath = relativePath
        self.tags = tags
        self.picture = picture
        self.seconds = seconds
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitsPerSample = bitsPerSample
        self.toneHz = toneHz
    }
}

/// Why a synthetic file could not be written.
public struct SyntheticLibraryError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}

/// Writes real FLAC files with libFLAC's stream encoder, in process: a sine tone, Vorbis
/// comments, optionally an embedded PICTURE; plus cover image files and playlists. Used by tests,
/// `kiosk-bench scan` and the demo library.
///
/// Thread: any; each call uses its own encoder.
public enum SyntheticLibrary {
    /// Writes one FLAC file at `path` (parent folders are created).
    public static func writeFLAC(
        path: String, tags: [(name: String, value: String)], picture: EmbeddedPicture? = nil, seconds: Double = 1,
        sampleRate: Int = 44_100, channels: Int = 2, bitsPerSample: Int = 16, toneHz: Double = 440,
        compressionLevel: Int = 5
    ) throws {
        guard (1...8).contains(channels), (4...32).contains(bitsPerSample), (1...655_350).contains(sampleRate),
            seconds >= 0
        else {
            throw SyntheticLibraryError(
                message: "\(path): unsupported format \(sampleRate) Hz, \(channels) ch, \(bitsPerSample) bit")
        }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex { try Syscalls.mkdirs(String(path[..<slash])) }
        guard let encoder = FLAC__stream_encoder_new() else { throw SyntheticLibraryError(message: "out of memory") }
        defer { FLAC__stream_encoder_delete(encoder) }
        var blocks: [UnsafeMutablePointer<FLAC__StreamMetadata>?] = []
        defer { for block in blocks { FLAC__metadata_object_delete(block) } }

        guard let comments = FLAC__metadata_object_new(FLAC__METADATA_TYPE_VORBIS_COMMENT) else {
            throw SyntheticLibraryError(message: "out of memory")
        }
        blocks.append(comments)
        for (name, value) in tags {
            var entry = FLAC__StreamMetadata_VorbisComment_Entry()
            guard FLAC__metadata_object_vorbiscomment_entry_from_name_value_pair(&entry, name, value) != 0,
                FLAC__metadata_object_vorbiscomment_append_comment(comments, entry, 0) != 0
            else {
                throw SyntheticLibraryError(message: "\(path): invalid tag \(name)=\(value)")
            }
        }
        if let picture {
            guard let block = FLAC__metadata_object_new(FLAC__METADATA_TYPE_PICTURE) else {
                throw SyntheticLibraryError(message: "out of memory")
            }
            blocks.append(block)
            block.pointee.data.picture.type = FLAC__StreamMetadata_Picture_Type(rawValue: picture.type)
            block.pointee.data.picture.width = UInt32(picture.width)
            block.pointee.data.picture.height = UInt32(picture.height)
            block.pointee.data.picture.depth = 24
            var ok = picture.mimeType.withCString {
                FLAC__metadata_object_picture_set_mime_type(block, UnsafeMutablePointer(mutating: $0), 1)
            }
            ok &= Array(picture.description.utf8CString).withUnsafeBufferPointer {
                $0.withMemoryRebound(to: UInt8.self) {
                    FLAC__metadata_object_picture_set_description(
                        block, UnsafeMutablePointer(mutating: $0.baseAddress!), 1)
                }
            }
            ok &= picture.bytes.withUnsafeBufferPointer {
                FLAC__metadata_object_picture_set_data(
                    block, UnsafeMutablePointer(mutating: $0.baseAddress), UInt32($0.count), 1)
            }
            guard ok != 0 else { throw SyntheticLibraryError(message: "\(path): picture rejected by libFLAC") }
        }
        if let padding = FLAC__metadata_object_new(FLAC__METADATA_TYPE_PADDING) {
            padding.pointee.length = 512
            blocks.append(padding)
        }

        let frames = Int((seconds * Double(sampleRate)).rounded())
        _ = FLAC__stream_encoder_set_verify(encoder, 0)
        _ = FLAC__stream_encoder_set_compression_level(encoder, UInt32(max(0, min(8, compressionLevel))))
        _ = FLAC__stream_encoder_set_channels(encoder, UInt32(channels))
        _ = FLAC__stream_encoder_set_bits_per_sample(encoder, UInt32(bitsPerSample))
        _ = FLAC__stream_encoder_set_sample_rate(encoder, UInt32(sampleRate))
        _ = FLAC__stream_encoder_set_total_samples_estimate(encoder, UInt64(frames))
        _ = blocks.withUnsafeMutableBufferPointer {
            FLAC__stream_encoder_set_metadata(encoder, $0.baseAddress, UInt32($0.count))
        }
        let status = FLAC__stream_encoder_init_file(encoder, path, nil, nil)
        guard status == FLAC__STREAM_ENCODER_INIT_STATUS_OK else {
            throw SyntheticLibraryError(message: "\(path): libFLAC encoder init status \(status.rawValue)")
        }
        // A quiet sine (a quarter of full scale), a little out of phase between channels.
        let amplitude = Double((Int64(1) << (bitsPerSample - 1)) - 1) * 0.25
        let chunk = 4096
        var buffer = [Int32](repeating: 0, count: chunk * channels)
        var written = 0
        var ok = true
        while written < frames && ok {
            let n = min(chunk, frames - written)
            for i in 0..<n {
                let t = Double(written + i) / Double(sampleRate)
                for c in 0..<channels {
                    buffer[i * channels + c] = Int32(amplitude * sin(2 * Double.pi * toneHz * t + Double(c) * 0.5))
                }
            }
            ok = buffer.withUnsafeBufferPointer {
                FLAC__stream_encoder_process_interleaved(encoder, $0.baseAddress, UInt32(n)) != 0
            }
            written += n
        }
        let finished = FLAC__stream_encoder_finish(encoder) != 0
        guard ok && finished else {
            throw SyntheticLibraryError(
                message: "\(path): libFLAC encoder failed (state \(FLAC__stream_encoder_get_state(encoder).rawValue))")
        }
    }

    /// Writes `track` under `root`: a FLAC, or a FLAC re-encoded by `MusicFileEncoder` when its
    /// path ends in one of `MusicFileEncoder.formats`.
    public static func write(_ track: SyntheticTrack, under root: String, compressionLevel: Int = 5) throws {
        let path = root + "/" + track.relativePath
        let suffix = track.relativePath.split(separator: ".").last.map(String.init) ?? ""
        let encoded = MusicFileEncoder.formats.contains(suffix)
        let flac = encoded ? path + ".source.flac" : path
        try writeFLAC(
            path: flac, tags: track.tags, picture: track.picture, seconds: track.seconds,
            sampleRate: track.sampleRate, channels: track.channels, bitsPerSample: track.bitsPerSample,
            toneHz: track.toneHz, compressionLevel: compressionLevel)
        guard encoded else { return }
        let cover = track.picture.map { ($0.bytes, $0.mimeType == "image/png" ? "png" : "jpg") }
        guard MusicFileEncoder.convert(flac, to: path, format: suffix, tags: track.tags, cover: cover) else {
            throw SyntheticLibraryError(
                message:
                    "\(path): \(MusicFileEncoder.programs(for: suffix).joined(separator: " and ")) could not make it (installed?)"
            )
        }
    }

    /// Writes `bytes` to `path` (parent folders are created), e.g. a cover image or a playlist.
    public static func writeFile(path: String, bytes: [UInt8]) throws {
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex { try Syscalls.mkdirs(String(path[..<slash])) }
        let fd = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_TRUNC)
        try fd.writeAll(bytes)
    }

    // MARK: - a whole library

    /// What `generate` made.
    public struct Summary: Sendable {
        public var tracks = 0
        public var albums = 0
        public var embeddedPictures = 0
        public var coverFiles = 0
        public var playlists = 0
        public var bytes: Int64 = 0
    }

    /// The layout `generate` writes: `Artist NNN/Album NNNN/NN - Title NNNNN.flac`, artists with
    /// 5 albums each, 12 genres, dates 1960…; every `embeddedArtEvery`-th album with an embedded
    /// front cover (a `pictureSide`² PNG, 270 KB at 300: the size of a typical embedded cover;
    /// 0 embeds the small sample JPEG), every `coverFileEvery`-th with a `cover.jpg`, and a few
    /// playlists in `Playlists/`. Deterministic, so tests and the benchmark know what to expect.
    public struct Layout: Sendable, Hashable {
        public var albums = 500
        public var tracksPerAlbum = 20
        public var secondsPerTrack = 0.25
        public var embeddedArtEvery = 5
        public var pictureSide = 300
        public var coverFileEvery = 3
        public var playlists = 5
        public var tracksPerPlaylist = 50
        public var compressionLevel = 5
        /// Tracks in the formats people have on sticks rather than all FLAC: of every 20, 10 FLAC,
        /// 6 MP3, 2 M4A (AAC), 1 Ogg Vorbis and 1 Opus (by track index), made from the FLAC with
        /// Debian's encoders (`MusicFileEncoder`).
        public var mixedFormats = false
        public init() {}

        /// The file suffix of track `index` (0-based over the whole library).
        public func suffix(ofTrack index: Int) -> String {
            guard mixedFormats else { return "flac" }
            switch index % 20 {
            case 10..<16: return "mp3"
            case 16..<18: return "m4a"
            case 18: return "ogg"
            case 19: return "opus"
            default: return "flac"
            }
        }

        public var trackCount: Int { albums * tracksPerAlbum }
    }

    public static let genres = [
        "Rock", "Jazz", "Classical", "Electronic", "Folk", "Blues", "Hip-Hop", "Ambient", "Soul", "Reggae", "Metal",
        "Pop",
    ]

    /// The track `number` (0-based) of album `album` (0-based) in `layout`.
    public static func track(album: Int, number: Int, layout: Layout) -> SyntheticTrack {
        let artist = album / 5
        let albumTitle = "Album \(pad(album + 1, 4))"
        let artistName = "Artist \(pad(artist + 1, 3))"
        let trackIndex = album * layout.tracksPerAlbum + number
        let title = "Title \(pad(trackIndex + 1, 5))"
        let tags: [(name: String, value: String)] = [
            ("TITLE", title), ("ARTIST", artistName), ("ALBUMARTIST", artistName), ("ALBUM", albumTitle),
            ("GENRE", genres[album % genres.count]), ("DATE", String(1960 + album % 60)),
            ("TRACKNUMBER", "\(number + 1)/\(layout.tracksPerAlbum)"), ("DISCNUMBER", "1"),
        ]
        let picture =
            layout.embeddedArtEvery > 0 && album % layout.embeddedArtEvery == 0
            ? (layout.pictureSide > 0
                ? EmbeddedPicture(
                    bytes: solidPNG(
                        width: layout.pictureSide, height: layout.pictureSide, red: UInt8(album % 256), green: 90,
                        blue: 160),
                    mimeType: "image/png", width: layout.pictureSide, height: layout.pictureSide)
                : EmbeddedPicture(bytes: sampleJPEG, mimeType: "image/jpeg")) : nil
        return SyntheticTrack(
            relativePath:
                "\(artistName)/\(albumTitle)/\(pad(number + 1, 2)) - \(title).\(layout.suffix(ofTrack: trackIndex))",
            tags: tags,
            picture: picture, seconds: layout.secondsPerTrack, toneHz: 220 + Double(trackIndex % 48) * 10)
    }

    /// Generates the library of `layout` under `root`. `progress` gets the number of tracks written.
    @discardableResult
    public static func generate(at root: String, layout: Layout, progress: (Int) -> Void = { _ in }) throws -> Summary {
        var summary = Summary()
        for album in 0..<layout.albums {
            var folder = ""
            for number in 0..<layout.tracksPerAlbum {
                let track = track(album: album, number: number, layout: layout)
                try write(track, under: root, compressionLevel: layout.compressionLevel)
                folder = Track.folder(of: track.relativePath)
                summary.tracks += 1
                if track.picture != nil { summary.embeddedPictures += 1 }
                if summary.tracks % 100 == 0 { progress(summary.tracks) }
            }
            summary.albums += 1
            if layout.coverFileEvery > 0 && album % layout.coverFileEvery == 1 {
                try writeFile(path: "\(root)/\(folder)/cover.jpg", bytes: sampleJPEG)
                summary.coverFiles += 1
            }
        }
        for p in 0..<layout.playlists {
            var lines = ["#EXTM3U"]
            for i in 0..<layout.tracksPerPlaylist {
                let n = (p * 7919 + i * 104_729) % max(1, layout.trackCount)
                let track = track(album: n / layout.tracksPerAlbum, number: n % layout.tracksPerAlbum, layout: layout)
                lines.append("#EXTINF:\(Int(layout.secondsPerTrack)),\(track.tags[1].value) - \(track.tags[0].value)")
                lines.append("../" + track.relativePath)
            }
            try writeFile(
                path: "\(root)/Playlists/Mix \(p + 1).m3u8", bytes: Array((lines.joined(separator: "\n") + "\n").utf8))
            summary.playlists += 1
        }
        progress(summary.tracks)
        return summary
    }

    static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    // MARK: - images

    /// A valid 16×16 baseline JPEG (642 bytes, a blue gradient), for embedded art and cover files.
    public static let sampleJPEG: [UInt8] = [
        0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01,
        0x00, 0x01, 0x00, 0x00, 0xFF, 0xDB, 0x00, 0x43, 0x00, 0x08, 0x06, 0x06, 0x07, 0x06, 0x05, 0x08,
        0x07, 0x07, 0x07, 0x09, 0x09, 0x08, 0x0A, 0x0C, 0x14, 0x0D, 0x0C, 0x0B, 0x0B, 0x0C, 0x19, 0x12,
        0x13, 0x0F, 0x14, 0x1D, 0x1A, 0x1F, 0x1E, 0x1D, 0x1A, 0x1C, 0x1C, 0x20, 0x24, 0x2E, 0x27, 0x20,
        0x22, 0x2C, 0x23, 0x1C, 0x1C, 0x28, 0x37, 0x29, 0x2C, 0x30, 0x31, 0x34, 0x34, 0x34, 0x1F, 0x27,
        0x39, 0x3D, 0x38, 0x32, 0x3C, 0x2E, 0x33, 0x34, 0x32, 0xFF, 0xDB, 0x00, 0x43, 0x01, 0x09, 0x09,
        0x09, 0x0C, 0x0B, 0x0C, 0x18, 0x0D, 0x0D, 0x18, 0x32, 0x21, 0x1C, 0x21, 0x32, 0x32, 0x32, 0x32,
        0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32,
        0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32,
        0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0x32, 0xFF, 0xC0,
        0x00, 0x11, 0x08, 0x00, 0x10, 0x00, 0x10, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11,
        0x01, 0xFF, 0xC4, 0x00, 0x1F, 0x00, 0x00, 0x01, 0x05, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09,
        0x0A, 0x0B, 0xFF, 0xC4, 0x00, 0xB5, 0x10, 0x00, 0x02, 0x01, 0x03, 0x03, 0x02, 0x04, 0x03, 0x05,
        0x05, 0x04, 0x04, 0x00, 0x00, 0x01, 0x7D, 0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21,
        0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xA1, 0x08, 0x23,
        0x42, 0xB1, 0xC1, 0x15, 0x52, 0xD1, 0xF0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0A, 0x16, 0x17,
        0x18, 0x19, 0x1A, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A,
        0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A,
        0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A,
        0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99,
        0x9A, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7,
        0xB8, 0xB9, 0xBA, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5,
        0xD6, 0xD7, 0xD8, 0xD9, 0xDA, 0xE1, 0xE2, 0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF1,
        0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8, 0xF9, 0xFA, 0xFF, 0xC4, 0x00, 0x1F, 0x01, 0x00, 0x03,
        0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
        0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0xFF, 0xC4, 0x00, 0xB5, 0x11, 0x00,
        0x02, 0x01, 0x02, 0x04, 0x04, 0x03, 0x04, 0x07, 0x05, 0x04, 0x04, 0x00, 0x01, 0x02, 0x77, 0x00,
        0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13,
        0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xA1, 0xB1, 0xC1, 0x09, 0x23, 0x33, 0x52, 0xF0, 0x15,
        0x62, 0x72, 0xD1, 0x0A, 0x16, 0x24, 0x34, 0xE1, 0x25, 0xF1, 0x17, 0x18, 0x19, 0x1A, 0x26, 0x27,
        0x28, 0x29, 0x2A, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
        0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
        0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88,
        0x89, 0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6,
        0xA7, 0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3, 0xC4,
        0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA, 0xE2,
        0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8, 0xF9,
        0xFA, 0xFF, 0xDA, 0x00, 0x0C, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3F, 0x00, 0xC2,
        0x80, 0xD6, 0x9C, 0x06, 0xB2, 0x60, 0x35, 0xA7, 0x01, 0xAF, 0x72, 0xAE, 0x20, 0x79, 0x7A, 0xD8,
        0xFF, 0xD9,
    ]

    /// A valid PNG of one colour (8-bit RGB, stored/uncompressed deflate blocks), for tests and
    /// demo covers that should differ per album.
    public static func solidPNG(width: Int, height: Int, red: UInt8, green: UInt8, blue: UInt8) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity((width * 3 + 1) * height)
        for _ in 0..<height {
            raw.append(0)  // filter: none
            for _ in 0..<width { raw.append(contentsOf: [red, green, blue]) }
        }
        // zlib stream of stored blocks (at most 65535 bytes each) + Adler-32.
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65_535, raw.count - offset)
            let last: UInt8 = offset + n == raw.count ? 1 : 0
            zlib.append(last)
            zlib.append(contentsOf: [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)])
            zlib.append(contentsOf: raw[offset..<offset + n])
            offset += n
        } while offset < raw.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in raw {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        zlib.append(contentsOf: bigEndian(b << 16 | a))

        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func chunk(_ type: String, _ data: [UInt8]) {
            png.append(contentsOf: bigEndian(UInt32(data.count)))
            let body = Array(type.utf8) + data
            png.append(contentsOf: body)
            png.append(contentsOf: bigEndian(CRC32.checksum(body)))
        }
        chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0])
        chunk("IDAT", zlib)
        chunk("IEND", [])
        return png
    }

    private static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
}
