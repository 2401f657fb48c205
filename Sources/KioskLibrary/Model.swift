/// Which volume (USB stick, or a plain directory added for a demo) a track lives on.
///
/// The filesystem UUID when one is known (`/dev/disk/by-uuid`), so a stick keeps its identity
/// whatever mount point it gets; otherwise a hash of where it was found (`path-…`). Together with
/// a track's relative path it identifies the track across power loss (resume). Thread: any.
public struct VolumeID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static func < (a: VolumeID, b: VolumeID) -> Bool { a.rawValue < b.rawValue }
}

/// The tag values exactly as the file has them (no fallbacks), each field possibly repeated.
/// Thread: any (a value).
public struct TrackTags: Sendable, Hashable {
    public var titles: [String] = []
    public var artists: [String] = []
    public var albums: [String] = []
    public var albumArtists: [String] = []
    public var genres: [String] = []
    public var dates: [String] = []
    public var trackNumber: Int?
    public var trackTotal: Int?
    public var discNumber: Int?
    public var discTotal: Int?

    public init() {}

    /// Whether the file had no tag the library uses.
    public var isEmpty: Bool {
        titles.isEmpty && artists.isEmpty && albums.isEmpty && albumArtists.isEmpty && genres.isEmpty
            && dates.isEmpty && trackNumber == nil && discNumber == nil
    }
}

/// One playable FLAC file, with display values (fallbacks applied) and the raw tags.
///
/// Only files whose STREAMINFO is sane and whose first frame decodes become tracks. Identity for
/// resume: `(volume, relativePath)`. Thread: any (a value).
public struct Track: Sendable, Hashable {
    public let volume: VolumeID
    /// Path inside the volume, `/`-separated, no leading slash: `Artist/Album/01 Song.flac`.
    public let relativePath: String
    /// Where the volume is mounted now.
    public let mountPoint: String
    /// Absolute path under the volume's current mount point.
    public var path: String { mountPoint == "/" ? "/" + relativePath : mountPoint + "/" + relativePath }

    /// TITLE, else the file name without `.flac`.
    public let title: String
    /// ARTIST values joined with ", ", else "Unknown Artist".
    public let artist: String
    /// ALBUM, else "Unknown Album".
    public let album: String
    /// ALBUMARTIST values joined, else the artist (display) value.
    public let albumArtist: String
    /// GENRE values joined, else "Unknown Genre".
    public let genre: String
    public let date: String?
    public let trackNumber: Int?
    public let trackTotal: Int?
    public let discNumber: Int?

    public let sampleRate: Int
    public let channels: Int
    public let bitsPerSample: Int
    /// Samples per channel from STREAMINFO; nil when the encoder did not record it.
    public let totalFrames: Int64?
    public let durationSeconds: Double?
    public let hasEmbeddedPicture: Bool

    /// The tags as found in the file.
    public let tags: TrackTags
    public let fileSize: Int64
    /// Modification time, nanoseconds since the epoch.
    public let modificationTime: Int64

    /// The folder part of `relativePath` ("" for the volume's top folder).
    public let folder: String
    /// The file name part of `relativePath`.
    public var fileName: String {
        guard let slash = relativePath.utf8.lastIndex(of: UInt8(ascii: "/")) else { return relativePath }
        return String(relativePath[relativePath.utf8.index(after: slash)...])
    }
    /// The artists to file the track under in the artist category (at least one).
    public var artistNames: [String] { tags.artists.isEmpty ? [artist] : tags.artists }
    /// The genres to file the track under (at least one).
    public var genreNames: [String] { tags.genres.isEmpty ? [genre] : tags.genres }

    public static let unknownArtist = "Unknown Artist"
    public static let unknownAlbum = "Unknown Album"
    public static let unknownGenre = "Unknown Genre"

    static func folder(of relativePath: String) -> String {
        guard let slash = relativePath.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return String(relativePath[..<slash])
    }

    /// `folder` when it is the folder of `relativePath` (then no new String is made), else nil.
    static func sharedFolder(_ folder: String, of relativePath: String) -> String? {
        let path = relativePath.utf8
        let count = folder.utf8.count
        guard path.count > count else { return nil }
        if count == 0 { return path.contains(UInt8(ascii: "/")) ? nil : folder }
        guard path[path.index(path.startIndex, offsetBy: count)] == UInt8(ascii: "/"), path.starts(with: folder.utf8),
            !path.dropFirst(count + 1).contains(UInt8(ascii: "/"))
        else { return nil }
        return folder
    }

    /// - Parameter sameFolderAs: a track made just before, whose folder string is shared when
    ///   this one lies in the same folder (tracks of an album then share one allocation).
    init(volume: VolumeID, mountPoint: String, file: ScannedFile, info: TrackInfo, sameFolderAs previous: Track? = nil)
    {
        self.volume = volume
        relativePath = file.relativePath
        self.mountPoint = mountPoint
        folder =
            previous.flatMap { Track.sharedFolder($0.folder, of: file.relativePath) }
            ?? Track.folder(of: file.relativePath)
        fileSize = file.size
        modificationTime = file.modificationTime
        tags = info.tags
        // Values come cleaned (no control characters, trimmed, non-empty) from the reader.
        func joined(_ values: [String]) -> String? {
            values.isEmpty ? nil : values.count == 1 ? values[0] : values.joined(separator: ", ")
        }
        title = joined(info.tags.titles) ?? PlaylistParser.stem(file.relativePath)
        artist = joined(info.tags.artists) ?? Track.unknownArtist
        album = joined(info.tags.albums) ?? Track.unknownAlbum
        albumArtist = joined(info.tags.albumArtists) ?? artist
        genre = joined(info.tags.genres) ?? Track.unknownGenre
        date = info.tags.dates.first
        trackNumber = info.tags.trackNumber
        trackTotal = info.tags.trackTotal
        discNumber = info.tags.discNumber
        sampleRate = info.sampleRate
        channels = info.channels
        bitsPerSample = info.bitsPerSample
        totalFrames = info.totalFrames
        durationSeconds = info.totalFrames.map { Double($0) / Double(max(1, info.sampleRate)) }
        hasEmbeddedPicture = info.hasPicture
    }

    /// Trims whitespace and turns control characters (which a display cannot show) into spaces.
    static func clean(_ value: String) -> String {
        var clean = true
        for byte in value.utf8 where byte < 0x20 || byte == 0x7F {
            clean = false
            break
        }
        if clean {
            guard let firstByte = value.utf8.first, let lastByte = value.utf8.last else { return value }
            // Visible ASCII at both ends (the usual case): nothing to trim, no Character needed.
            // (A Character is whitespace when its first scalar is; an ASCII scalar other than CR
            // LF always starts a Character of its own.)
            if firstByte > 0x20 && firstByte < 0x7F && lastByte > 0x20 && lastByte < 0x7F { return value }
            guard let first = value.first, let last = value.last else { return value }
            if !first.isWhitespace && !last.isWhitespace { return value }
        }
        var scalars = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            scalars.append(scalar.value < 0x20 || scalar.value == 0x7F ? " " : scalar)
        }
        var text = Substring(String(scalars))
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}

/// The ways to browse the library. Thread: any.
public enum Category: String, CaseIterable, Sendable {
    /// Grouped by album artist + album, so "Greatest Hits" of two artists stay apart.
    case album
    case artist
    case albumArtist
    case genre
    case playlist
    /// The folders of the volumes that directly hold playable tracks.
    case folder

    /// A name for a screen heading.
    public var title: String {
        switch self {
        case .album: "Albums"
        case .artist: "Artists"
        case .albumArtist: "Album Artists"
        case .genre: "Genres"
        case .playlist: "Playlists"
        case .folder: "Folders"
        }
    }
}

/// One entry of a category: an album, an artist, a playlist, a folder…
///
/// Never empty. `key` is unique within the category (and stable across rescans); `name` is what
/// the screen shows. Thread: any (a value).
public struct Collection: Sendable, Hashable {
    public let category: Category
    public let key: String
    public let name: String
    /// A second line for the screen, e.g. "Artist · 12 tracks".
    public let subtitle: String
    /// The track whose artwork stands for the collection (the first with an embedded picture or a
    /// cover file, else the first in play order).
    public let representative: Track
    public let trackCount: Int
}

/// Cover art: bytes to decode, or a file to decode. Decoding is the display's job. Thread: any.
public enum Artwork: Sendable, Hashable {
    case embedded(bytes: [UInt8], mimeType: String)
    case file(path: String)
}

/// A file the library left out (or used with a caveat), and why. Thread: any.
public struct LibraryProblem: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable {
        /// The file is not in the catalog.
        case excluded
        /// The file is in the catalog, but something was ignored (e.g. an oversized tag block),
        /// or a limit of the walk was hit.
        case warning
    }

    public let volume: VolumeID
    /// Relative to the volume ("" for the volume itself).
    public let relativePath: String
    public let reason: String
    public let severity: Severity

    public init(volume: VolumeID, relativePath: String, reason: String, severity: Severity = .excluded) {
        self.volume = volume
        self.relativePath = relativePath
        self.reason = reason
        self.severity = severity
    }

    public var description: String {
        let what = relativePath.isEmpty ? "(volume \(volume.rawValue))" : relativePath
        return severity == .warning ? "\(what): warning: \(reason)" : "\(what): \(reason)"
    }
}

/// What the `Library` tells its owner, on the loop thread. Thread: any (a value).
public enum LibraryEvent: Sendable, Hashable {
    case volumeAdded(VolumeID, mountPoint: String)
    case volumeRemoved(VolumeID, mountPoint: String)
    /// `tracksFound` counts the FLAC files examined so far (read, or taken from the index).
    case scanProgress(VolumeID, tracksFound: Int)
    case scanFinished(VolumeID, tracks: Int, problems: Int, seconds: Double)
    /// `Library.catalog` is a new snapshot.
    case catalogChanged
}

/// A condition on tracks for `Catalog.query`, like MPMediaPropertyPredicate: a field, a
/// comparison and a value. Comparison ignores case and accents. Thread: any.
public struct Predicate: Sendable, Hashable {
    /// The track property compared.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        /// Any of the track's artists (or the fallback "Unknown Artist").
        case artist
        case album
        case albumArtist
        /// Any of the track's genres (or "Unknown Genre").
        case genre
        case title
        case date
        /// The folder part of the relative path.
        case folder
        /// The volume's ID.
        case volume
    }

    public enum Comparison: String, Sendable, Hashable {
        case equalTo
        case contains
    }

    public let field: Field
    public let comparison: Comparison
    public let value: String

    public init(_ field: Field, _ comparison: Comparison = .equalTo, _ value: String) {
        self.field = field
        self.comparison = comparison
        self.value = value
    }

    public static func artist(_ value: String) -> Predicate { Predicate(.artist, .equalTo, value) }
    public static func album(_ value: String) -> Predicate { Predicate(.album, .equalTo, value) }
    public static func albumArtist(_ value: String) -> Predicate { Predicate(.albumArtist, .equalTo, value) }
    public static func genre(_ value: String) -> Predicate { Predicate(.genre, .equalTo, value) }
    public static func title(_ value: String) -> Predicate { Predicate(.title, .equalTo, value) }
}
