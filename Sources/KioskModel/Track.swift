// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

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
    /// The tags the box does not show (for MPD clients), in the file's order; usually none.
    public var extras: [ExtraTagValue] = []
    /// The ReplayGain tags (NaN for those the file lacks).
    public var replayGain = ReplayGainInfo()

    public init() {}

    /// Whether the file had no tag the library uses.
    public var isEmpty: Bool {
        titles.isEmpty && artists.isEmpty && albums.isEmpty && albumArtists.isEmpty && genres.isEmpty
            && dates.isEmpty && trackNumber == nil && discNumber == nil && extras.isEmpty
            && replayGain.isEmpty
    }

    /// The values of `tag`, in the file's order.
    public func values(of tag: ExtraTag) -> [String] {
        extras.isEmpty ? [] : extras.compactMap { $0.tag == tag ? $0.value : nil }
    }
}

/// One playable FLAC file, with display values (fallbacks applied) and the raw tags.
///
/// Only files whose STREAMINFO is sane and whose first frame decodes become tracks. Identity for
/// resume: `(volume, relativePath)`. Thread: any (a value).
///
/// Kept small, since a library holds one per file (10 000 on a big stick): the volume and its
/// mount point are one shared reference, numbers are stored in the fewest bytes that hold them,
/// artist, album, album artist, genre and date strings are shared by the tracks that have the
/// same value (`StringPool`), and the raw tags are kept only when they cannot be told from the
/// display values (a field with several values) or the file has `ExtraTag`s (few files do):
/// otherwise `tags` is rebuilt from the display values.
public struct Track: Sendable, Hashable {
    /// The volume and where it is mounted, shared by all tracks of one scan.
    private let place: TrackVolume
    /// Path inside the volume, `/`-separated, no leading slash: `Artist/Album/01 Song.flac`.
    public let relativePath: String
    /// The folder part of `relativePath` ("" for the volume's top folder).
    public let folder: String

    /// TITLE, else the file name without `.flac`.
    public let title: String
    /// ARTIST values joined with ", ", else "Unknown Artist".
    public let artist: String
    /// ALBUM, else "Unknown Album".
    public let album: String
    /// ALBUMARTIST values joined; without the tag, decided per album folder when a scan makes the
    /// volume's contents (`Track.withAlbumArtists`): the tracks' common first artist, else
    /// "Various Artists". (A lone track: its first artist.)
    public package(set) var albumArtist: String
    /// GENRE values joined, else "Unknown Genre".
    public let genre: String
    public let date: String?

    public let fileSize: Int64
    /// Modification time, nanoseconds since the epoch.
    public let modificationTime: Int64
    /// `totalFrames`, or -1 for none.
    private let frames: Int64
    private let rate: UInt32
    /// Track number, track total, disc number, disc total; `Track.noNumber` for none.
    private let numbers: (Int32, Int32, Int32, Int32)
    private let channelCount: UInt8
    private let bits: UInt8
    private var flags: Flags
    /// The tags as read, when some field has several values or there are extra tags (else nil:
    /// `tags` is rebuilt).
    private let rawTags: RawTags?

    public var volume: VolumeID { place.id }
    /// Where the volume is mounted now.
    public var mountPoint: String { place.mountPoint }
    /// Absolute path under the volume's current mount point.
    public var path: String { mountPoint == "/" ? "/" + relativePath : mountPoint + "/" + relativePath }

    public var trackNumber: Int? { Track.number(numbers.0) }
    public var trackTotal: Int? { Track.number(numbers.1) }
    public var discNumber: Int? { Track.number(numbers.2) }

    public var sampleRate: Int { Int(rate) }
    public var channels: Int { Int(channelCount) }
    public var bitsPerSample: Int { Int(bits) }
    /// Samples per channel from STREAMINFO; nil when the encoder did not record it.
    public var totalFrames: Int64? { frames < 0 ? nil : frames }
    public var durationSeconds: Double? { totalFrames.map { Double($0) / Double(max(1, sampleRate)) } }
    public var hasEmbeddedPicture: Bool { flags.contains(.picture) }
    /// Whether `title` is the file's TITLE tag (not its file name).
    public var hasTitleTag: Bool { flags.contains(.titleTag) }
    /// Whether the track's folder, or a folder above it on the volume, holds a file named
    /// `.audiobook` (its owner's way of saying "this is an audiobook" without retagging).
    public var isInAudiobookFolder: Bool { flags.contains(.audiobookFolder) }

    /// The tags as found in the file.
    public var tags: TrackTags {
        if let several = rawTags?.several { return several.tags }
        var tags = TrackTags()
        tags.extras = rawTags?.extras ?? []
        tags.replayGain = rawTags?.replayGain ?? ReplayGainInfo()
        if flags.contains(.titleTag) { tags.titles = [title] }
        if flags.contains(.artistTag) { tags.artists = [artist] }
        if flags.contains(.albumTag) { tags.albums = [album] }
        if flags.contains(.albumArtistTag) { tags.albumArtists = [albumArtist] }
        if flags.contains(.genreTag) { tags.genres = [genre] }
        if let date { tags.dates = [date] }
        tags.trackNumber = trackNumber
        tags.trackTotal = trackTotal
        tags.discNumber = discNumber
        tags.discTotal = Track.number(numbers.3)
        return tags
    }

    /// The file name part of `relativePath`.
    public var fileName: String {
        guard let slash = relativePath.utf8.lastIndex(of: UInt8(ascii: "/")) else { return relativePath }
        return String(relativePath[relativePath.utf8.index(after: slash)...])
    }
    /// The file name of `relativePath` without its extension: the title of a track without a
    /// TITLE tag, and a playlist's name.
    package static func stem(_ relativePath: String) -> String {
        var name = Substring(relativePath)
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
        return String(name)
    }

    /// What stands for "album artist" on a compilation tagged without ALBUMARTIST.
    public static let variousArtists = "Various Artists"

    /// `tracks` with the album artist of every track that has no ALBUMARTIST tag decided from its
    /// album: the tracks of one folder with the same ALBUM (and no ALBUMARTIST) share an album
    /// artist, their common first ARTIST value, or "Various Artists" when those differ. So a guest
    /// artist on one track (ARTIST=Band, ARTIST=Guest) does not split the album off, and a
    /// compilation tagged without ALBUMARTIST stays one album instead of one per track. Albums
    /// spread over disc folders (CD1, CD2) meet again in the catalog when their artist agrees.
    /// Returns `tracks` itself (no copy) when nothing changes.
    package static func withAlbumArtists(_ tracks: [Track]) -> [Track] {
        struct AlbumFolder: Hashable {
            let folder: String
            let album: String
        }
        var firstArtist: [AlbumFolder: String] = [:]
        var mixed: Set<AlbumFolder> = []  // albums whose tracks' first artists differ
        for track in tracks where !track.flags.contains(.albumArtistTag) {
            let key = AlbumFolder(folder: track.folder, album: track.album)
            let first = track.firstArtist
            if let seen = firstArtist[key] {
                if seen != first { mixed.insert(key) }
            } else {
                firstArtist[key] = first
            }
        }
        var result = tracks
        for i in result.indices where !result[i].flags.contains(.albumArtistTag) {
            let key = AlbumFolder(folder: result[i].folder, album: result[i].album)
            let artist = mixed.contains(key) ? Track.variousArtists : firstArtist[key] ?? result[i].firstArtist
            if result[i].albumArtist != artist { result[i].albumArtist = artist }
        }
        return result
    }

    /// `tracks` with `isInAudiobookFolder` set for those in (or below) one of `markerFolders`
    /// (relative folders holding `.audiobook`; "" is the volume's top) and cleared for the others,
    /// since a track may come from an index made when the marker was elsewhere. Returns `tracks`
    /// itself (no copy) when nothing changes.
    package static func withAudiobookFolders(_ tracks: [Track], markerFolders: [String]) -> [Track] {
        let markers = Set(markerFolders)
        func marked(_ folder: String) -> Bool {
            if markers.isEmpty { return false }
            if markers.contains("") || markers.contains(folder) { return true }
            var rest = Substring(folder)
            while let slash = rest.lastIndex(of: "/") {
                rest = rest[..<slash]
                if markers.contains(String(rest)) { return true }
            }
            return false
        }
        var result = tracks
        var known: [String: Bool] = [:]
        for i in result.indices {
            let folder = result[i].folder
            let inside: Bool
            if let k = known[folder] {
                inside = k
            } else {
                inside = marked(folder)
                known[folder] = inside
            }
            if inside != result[i].flags.contains(.audiobookFolder) {
                if inside { result[i].flags.insert(.audiobookFolder) } else { result[i].flags.remove(.audiobookFolder) }
            }
        }
        return result
    }

    /// The values of an extra tag (none without a `rawTags`).
    public func values(of tag: ExtraTag) -> [String] {
        guard let extras = rawTags?.extras, !extras.isEmpty else { return [] }
        return extras.compactMap { $0.tag == tag ? $0.value : nil }
    }

    /// The ReplayGain tags; nil when the file has none (boxed with the raw tags, so a track without
    /// them carries no room for them).
    public var replayGain: ReplayGainInfo? { rawTags?.replayGain }

    /// The first ALBUM tag value, nil when the file has none (without building `tags`).
    public var firstAlbumTag: String? {
        if let several = rawTags?.several { return several.tags.albums.first }
        return flags.contains(.albumTag) ? album : nil
    }

    /// Calls `body` with each ARTIST tag value, then each ALBUM tag value (without building
    /// `tags`): what MPD's `stats` counts.
    public func forEachArtistAndAlbumTag(artist: (String) -> Void, album: (String) -> Void) {
        if let several = rawTags?.several {
            several.tags.artists.forEach(artist)
            several.tags.albums.forEach(album)
            return
        }
        if flags.contains(.artistTag) { artist(self.artist) }
        if flags.contains(.albumTag) { album(self.album) }
    }

    /// The first ARTIST value (the display fallback when there is none).
    package var firstArtist: String { rawTags?.several?.tags.artists.first ?? artist }

    /// The artists to file the track under in the artist category (at least one).
    public var artistNames: [String] {
        if let artists = rawTags?.several?.tags.artists, !artists.isEmpty { return artists }
        return [artist]
    }
    /// The genres to file the track under (at least one).
    public var genreNames: [String] {
        if let genres = rawTags?.several?.tags.genres, !genres.isEmpty { return genres }
        return [genre]
    }
    /// The artists of `artistNames` when there are several (no array is made for one).
    package var multipleArtists: [String]? {
        rawTags?.several.flatMap { $0.tags.artists.count > 1 ? $0.tags.artists : nil }
    }
    /// The genres of `genreNames` when there are several.
    package var multipleGenres: [String]? {
        rawTags?.several.flatMap { $0.tags.genres.count > 1 ? $0.tags.genres : nil }
    }

    public static let unknownArtist = "Unknown Artist"
    public static let unknownAlbum = "Unknown Album"
    public static let unknownGenre = "Unknown Genre"

    /// Stands for a missing number in `numbers`.
    private static let noNumber = Int32.min

    private static func number(_ stored: Int32) -> Int? { stored == noNumber ? nil : Int(stored) }

    private static func storedNumber(_ value: Int?) -> Int32 {
        // The reader makes numbers of at most 4 digits; anything else (a damaged index) is none.
        guard let value, value > Int(noNumber), value <= Int(Int32.max) else { return noNumber }
        return Int32(value)
    }

    private struct Flags: OptionSet, Sendable, Hashable {
        let rawValue: UInt8
        static let picture = Flags(rawValue: 1)
        static let titleTag = Flags(rawValue: 2)
        static let artistTag = Flags(rawValue: 4)
        static let albumTag = Flags(rawValue: 8)
        static let albumArtistTag = Flags(rawValue: 16)
        static let genreTag = Flags(rawValue: 32)
        /// Set by the scan, not read from the file (`withAudiobookFolders`).
        static let audiobookFolder = Flags(rawValue: 64)
    }

    package static func folder(of relativePath: String) -> String {
        guard let slash = relativePath.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return String(relativePath[..<slash])
    }

    /// `folder` when it is the folder of `relativePath` (then no new String is made), else nil.
    package static func sharedFolder(_ folder: String, of relativePath: String) -> String? {
        let path = relativePath.utf8
        let count = folder.utf8.count
        guard path.count > count else { return nil }
        if count == 0 { return path.contains(UInt8(ascii: "/")) ? nil : folder }
        guard path[path.index(path.startIndex, offsetBy: count)] == UInt8(ascii: "/"), path.starts(with: folder.utf8),
            !path.dropFirst(count + 1).contains(UInt8(ascii: "/"))
        else { return nil }
        return folder
    }

    /// The tag values a track is made of: each field's values joined with ", " (nil when the
    /// file has none), the numbers, and the stream's facts. Thread: any (a value).
    package struct Values {
        package var title: String?
        package var artist: String?
        package var album: String?
        package var albumArtist: String?
        package var genre: String?
        package var date: String?
        package var trackNumber: Int?
        package var trackTotal: Int?
        package var discNumber: Int?
        package var discTotal: Int?
        package var sampleRate = 0
        package var channels = 0
        package var bitsPerSample = 0
        package var totalFrames: Int64?
        package var hasPicture = false

        package init(
            title: String? = nil, artist: String? = nil, album: String? = nil, albumArtist: String? = nil,
            genre: String? = nil, date: String? = nil, trackNumber: Int? = nil, trackTotal: Int? = nil,
            discNumber: Int? = nil, discTotal: Int? = nil, sampleRate: Int = 0, channels: Int = 0,
            bitsPerSample: Int = 0, totalFrames: Int64? = nil, hasPicture: Bool = false
        ) {
            self.title = title
            self.artist = artist
            self.album = album
            self.albumArtist = albumArtist
            self.genre = genre
            self.date = date
            self.trackNumber = trackNumber
            self.trackTotal = trackTotal
            self.discNumber = discNumber
            self.discTotal = discTotal
            self.sampleRate = sampleRate
            self.channels = channels
            self.bitsPerSample = bitsPerSample
            self.totalFrames = totalFrames
            self.hasPicture = hasPicture
        }
    }

    /// A track from its values (strings already shared through a `StringPool`); `rawTags` when
    /// some field has several values (`values` then hold them joined with ", ", the first date) or
    /// there are extra tags.
    package init(
        volume: TrackVolume, relativePath: String, fileSize: Int64, modificationTime: Int64, values: Values,
        rawTags: TrackTags?, sameFolderAs previous: Track?
    ) {
        place = volume
        self.relativePath = relativePath
        folder =
            previous.flatMap { Track.sharedFolder($0.folder, of: relativePath) }
            ?? Track.folder(of: relativePath)
        self.fileSize = fileSize
        self.modificationTime = modificationTime
        title = values.title ?? Track.stem(relativePath)
        artist = values.artist ?? Track.unknownArtist
        album = values.album ?? Track.unknownAlbum
        albumArtist = values.albumArtist ?? artist
        genre = values.genre ?? Track.unknownGenre
        date = values.date
        numbers = (
            Track.storedNumber(values.trackNumber), Track.storedNumber(values.trackTotal),
            Track.storedNumber(values.discNumber), Track.storedNumber(values.discTotal)
        )
        rate = UInt32(clamping: values.sampleRate)
        channelCount = UInt8(clamping: values.channels)
        bits = UInt8(clamping: values.bitsPerSample)
        frames = values.totalFrames.map { max(0, $0) } ?? -1
        var flags: Flags = values.hasPicture ? [.picture] : []
        if values.title != nil { flags.insert(.titleTag) }
        if values.artist != nil { flags.insert(.artistTag) }
        if values.album != nil { flags.insert(.albumTag) }
        if values.albumArtist != nil { flags.insert(.albumArtistTag) }
        if values.genre != nil { flags.insert(.genreTag) }
        self.flags = flags
        self.rawTags = rawTags.flatMap(RawTags.make)
    }

    /// The volume and mount point reference of this track (for tracks made next to it).
    package var volumePlace: TrackVolume { place }

    public static func == (a: Track, b: Track) -> Bool {
        a.relativePath == b.relativePath && a.place == b.place && a.fileSize == b.fileSize
            && a.modificationTime == b.modificationTime && a.title == b.title && a.artist == b.artist
            && a.album == b.album && a.albumArtist == b.albumArtist && a.genre == b.genre && a.date == b.date
            && a.folder == b.folder && a.frames == b.frames && a.rate == b.rate && a.numbers == b.numbers
            && a.channelCount == b.channelCount && a.bits == b.bits && a.flags == b.flags && a.rawTags == b.rawTags
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(place.id)
        hasher.combine(relativePath)
        hasher.combine(fileSize)
        hasher.combine(modificationTime)
        hasher.combine(title)
    }

    /// Trims whitespace and turns control characters (which a display cannot show) into spaces.
    package static func clean(_ value: String) -> String {
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

/// A volume and its mount point, shared by the tracks of one scan. Thread: any (immutable).
package final class TrackVolume: Sendable, Hashable {
    package let id: VolumeID
    package let mountPoint: String

    package init(id: VolumeID, mountPoint: String) {
        self.id = id
        self.mountPoint = mountPoint
    }

    package static func == (a: TrackVolume, b: TrackVolume) -> Bool {
        a === b || (a.id == b.id && a.mountPoint == b.mountPoint)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(mountPoint)
    }
}

/// What a track's display values cannot stand for: the raw tags when a field has several values,
/// and the extra tags (kept apart, so a file with only those costs no copy of its other fields).
/// Thread: any (immutable).
package final class RawTags: Sendable, Hashable {
    /// The tags as read (extras included), when some field has several values; boxed, so a track
    /// with only extra tags does not carry room for them (measured: 110 bytes a track).
    package let several: Several?
    package let extras: [ExtraTagValue]
    /// The ReplayGain tags, when the file has some.
    package let replayGain: ReplayGainInfo?

    /// The boxed copy of the tags. Thread: any (immutable).
    package final class Several: Sendable {
        package let tags: TrackTags

        package init(_ tags: TrackTags) { self.tags = tags }
    }

    private init(several: Several?, extras: [ExtraTagValue], replayGain: ReplayGainInfo?) {
        self.several = several
        self.extras = extras
        self.replayGain = replayGain
    }

    /// What of `tags` the display values cannot stand for; nil when they stand for all of it.
    package static func make(_ tags: TrackTags) -> RawTags? {
        let several =
            tags.titles.count > 1 || tags.artists.count > 1 || tags.albums.count > 1 || tags.albumArtists.count > 1
            || tags.genres.count > 1 || tags.dates.count > 1
        let replayGain = tags.replayGain.isEmpty ? nil : tags.replayGain
        if !several && tags.extras.isEmpty && replayGain == nil { return nil }
        return RawTags(several: several ? Several(tags) : nil, extras: tags.extras, replayGain: replayGain)
    }

    package static func == (a: RawTags, b: RawTags) -> Bool {
        a === b || (a.several?.tags == b.several?.tags && a.extras == b.extras && a.replayGain == b.replayGain)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(several?.tags)
        hasher.combine(extras)
        hasher.combine(replayGain)
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

    package init(
        category: Category, key: String, name: String, subtitle: String, representative: Track, trackCount: Int
    ) {
        self.category = category
        self.key = key
        self.name = name
        self.subtitle = subtitle
        self.representative = representative
        self.trackCount = trackCount
    }
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
    /// `tracksFound` counts the music files examined so far (read, or taken from the index).
    case scanProgress(VolumeID, tracksFound: Int)
    case scanFinished(VolumeID, tracks: Int, problems: Int, seconds: Double)
    /// `Library.catalog` is a new snapshot.
    case catalogChanged
}
