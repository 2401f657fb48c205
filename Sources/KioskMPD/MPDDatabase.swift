// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskLibrary
import KioskModel
import KioskSystem

/// The tags the server reports and filters on: MPD 0.23's tag types in its order (src/tag/Type.h),
/// with its names, but Comment, which MPD does not keep unless configured to.
enum MPDTag: String, CaseIterable, Sendable {
    case artist = "Artist"
    case artistSort = "ArtistSort"
    case album = "Album"
    case albumSort = "AlbumSort"
    case albumArtist = "AlbumArtist"
    case albumArtistSort = "AlbumArtistSort"
    case title = "Title"
    case track = "Track"
    case name = "Name"
    case genre = "Genre"
    case date = "Date"
    case originalDate = "OriginalDate"
    case composer = "Composer"
    case composerSort = "ComposerSort"
    case performer = "Performer"
    case conductor = "Conductor"
    case work = "Work"
    case movement = "Movement"
    case movementNumber = "MovementNumber"
    case ensemble = "Ensemble"
    case location = "Location"
    case grouping = "Grouping"
    case disc = "Disc"
    case label = "Label"
    case musicBrainzArtistID = "MUSICBRAINZ_ARTISTID"
    case musicBrainzAlbumID = "MUSICBRAINZ_ALBUMID"
    case musicBrainzAlbumArtistID = "MUSICBRAINZ_ALBUMARTISTID"
    case musicBrainzTrackID = "MUSICBRAINZ_TRACKID"
    case musicBrainzReleaseTrackID = "MUSICBRAINZ_RELEASETRACKID"
    case musicBrainzWorkID = "MUSICBRAINZ_WORKID"

    /// The order tags are printed in a song's description: the box's eight, then the others.
    static let printOrder: [MPDTag] =
        [.artist, .albumArtist, .title, .album, .track, .date, .genre, .disc]
        + allCases.filter { $0.extra != nil }

    /// Every tag name MPD 0.23 knows (lower case); Comment, which the library does not keep, matches "".
    static let knownNames: Set<String> = Set(allCases.map { $0.rawValue.lowercased() } + ["comment"])

    private static let byName: [String: MPDTag] = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0.rawValue.lowercased(), $0) })

    /// The tag for a name in any case; nil for Comment and for unknown names (check `knownNames`).
    init?(name: String) {
        guard let tag = MPDTag.byName[name.lowercased()] else { return nil }
        self = tag
    }

    /// MPD's spelling of a known tag name ("albumartistsort" → "AlbumArtistSort").
    static func canonicalName(_ name: String) -> String {
        if let tag = MPDTag(name: name) { return tag.rawValue }
        return name.lowercased() == "comment" ? "Comment" : name
    }

    /// The library's tag of the same name, for the tags the box does not show (a switch: looking
    /// it up by name made `search any` a third slower).
    var extra: ExtraTag? {
        switch self {
        case .artist, .album, .albumArtist, .title, .track, .genre, .date, .disc: nil
        case .artistSort: .artistSort
        case .albumSort: .albumSort
        case .albumArtistSort: .albumArtistSort
        case .name: .name
        case .originalDate: .originalDate
        case .composer: .composer
        case .composerSort: .composerSort
        case .performer: .performer
        case .conductor: .conductor
        case .work: .work
        case .movement: .movement
        case .movementNumber: .movementNumber
        case .ensemble: .ensemble
        case .location: .location
        case .grouping: .grouping
        case .label: .label
        case .musicBrainzArtistID: .musicBrainzArtistID
        case .musicBrainzAlbumID: .musicBrainzAlbumID
        case .musicBrainzAlbumArtistID: .musicBrainzAlbumArtistID
        case .musicBrainzTrackID: .musicBrainzTrackID
        case .musicBrainzReleaseTrackID: .musicBrainzReleaseTrackID
        case .musicBrainzWorkID: .musicBrainzWorkID
        }
    }

    /// The track's values of this tag, as the file has them (no fallbacks).
    func values(of track: Track) -> [String] {
        switch self {
        case .artist: track.tags.artists
        case .album: track.tags.albums
        case .albumArtist: track.tags.albumArtists
        case .title: track.tags.titles
        case .genre: track.tags.genres
        case .date: track.tags.dates
        case .track: track.trackNumber.map { ["\($0)"] } ?? []
        case .disc: track.discNumber.map { ["\($0)"] } ?? []
        default: extra.map { track.values(of: $0) } ?? []
        }
    }

    /// The tags MPD looks at when a song lacks this one, in turn (src/tag/Fallback.hxx): AlbumArtist
    /// and ArtistSort fall back to Artist, AlbumSort to Album, AlbumArtistSort to AlbumArtist, then
    /// Artist (MPD's code skips ArtistSort there, whatever its comment says).
    var fallbacks: [MPDTag] {
        switch self {
        case .albumArtist, .artistSort: [.artist]
        case .albumSort: [.album]
        case .albumArtistSort: [.albumArtist, .artist]
        default: []
        }
    }

    /// The values MPD filters, lists and groups by: the tag's own, else those of the first of its
    /// `fallbacks` the song has; none when it has none of them.
    func valuesWithFallback(of track: Track) -> [String] {
        let own = values(of: track)
        if !own.isEmpty { return own }
        for tag in fallbacks {
            let found = tag.values(of: track)
            if !found.isEmpty { return found }
        }
        return []
    }

    /// The value `find … sort` orders by (MPD's `Tag::GetSortValue`): the tag's first value, else
    /// that of the tag without "Sort", else of AlbumArtist's and MUSICBRAINZ_ALBUMARTISTID's
    /// fallbacks (Artist, MUSICBRAINZ_ARTISTID), else "".
    func sortValue(of track: Track) -> String {
        if let value = values(of: track).first { return value }
        let unsorted: MPDTag? =
            switch self {
            case .artistSort: .artist
            case .albumSort: .album
            case .albumArtistSort: .albumArtist
            default: nil
            }
        if let unsorted, let value = unsorted.values(of: track).first { return value }
        func fallback(_ tag: MPDTag) -> MPDTag? {
            tag == .albumArtist ? .artist : tag == .musicBrainzAlbumArtistID ? .musicBrainzArtistID : nil
        }
        if let next = fallback(self) { return next.sortValue(of: track) }
        if let unsorted, let next = fallback(unsorted) { return next.sortValue(of: track) }
        return ""
    }
}

/// The catalog seen as MPD's database: every track has a URI `<volume>/<path in the volume>`,
/// where `<volume>` is the name of the volume's mount point (the stick's label or UUID under
/// /media/kiosk) or, when two volumes share a name, the volume's ID. Directories are the folders
/// that hold tracks; stored playlists are the sticks' playlists.
///
/// Names with control characters keep them in their URIs (as MPD lists them; a client sends them
/// back quoted), except line breaks, which no protocol line can carry: MPD leaves such files out of
/// its database; here they are listed with U+2424 (␤) for `\n` and U+240D (␍) for `\r`, and a URI
/// that another name already has gets ` (2)`, ` (3)`… so every URI names one track.
///
/// Nothing here touches the file system: a URI can only name what the catalog holds, so nothing
/// outside the mounted volumes is reachable. Built on the loop thread when a client first needs it
/// after the catalog changed. Thread: loop thread.
final class MPDDatabase {
    struct Directory {
        var subdirectories: [String] = []
        /// Indices into `catalog.allTracks`, in MPD's song order (`SongOrder`).
        var tracks: [Int] = []
        /// Indices into `playlists`.
        var playlists: [Int] = []
    }

    /// A stick's playlist as a stored playlist.
    struct StoredPlaylist {
        /// The name `listplaylists` shows: the playlist's title, or its URI when two share a title.
        let name: String
        /// `<volume>/<path of the .m3u>`.
        let uri: String
        let collection: Collection
        let modificationTime: Int64
    }

    /// What a URI names.
    enum Location {
        case root
        case directory(String)
        case song(Int)
    }

    let catalog: any CatalogSnapshot
    /// Seconds since the epoch when this view was built (MPD's `db_update`).
    let builtAt: Int
    private(set) var volumeNames: [VolumeID: String] = [:]
    private(set) var mountPoints: [VolumeID: String] = [:]
    private var volumesByName: [String: VolumeID] = [:]
    private var uris: [String] = []
    private var trackByURI: [String: Int] = [:]
    /// URIs that differ from `<volume>/<relative path>`, by the track's path.
    private var uriByPath: [String: String] = [:]
    private(set) var directories: [String: Directory] = [:]
    private(set) var playlists: [StoredPlaylist] = []
    private var playlistByName: [String: Int] = [:]

    init(catalog: any CatalogSnapshot) {
        self.catalog = catalog
        builtAt = Int(Syscalls.realtimeNanoseconds() / 1_000_000_000)
        build()
    }

    // MARK: - URIs

    /// The URI of `track`, or nil when its volume is not in this catalog.
    func uri(of track: Track) -> String? {
        if let uri = uriByPath[track.path] { return uri }
        guard let name = volumeNames[track.volume] else { return nil }
        return name + "/" + track.relativePath
    }

    /// `path` with its line breaks replaced by their control pictures (`\n` → ␤, `\r` → ␍), so that
    /// it fits on a protocol line.
    static func uriText(_ path: String) -> String {
        guard path.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return path }
        var text = ""
        text.unicodeScalars.reserveCapacity(path.unicodeScalars.count)
        for scalar in path.unicodeScalars {
            switch scalar {
            case "\n": text.unicodeScalars.append("\u{2424}")
            case "\r": text.unicodeScalars.append("\u{240D}")
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    func uri(ofTrackAt index: Int) -> String { uris[index] }

    /// Index into `catalog.allTracks` of the track at `uri`.
    func trackIndex(uri: String) -> Int? { trackByURI[uri] }

    /// Why a URI cannot name anything in the database: absolute paths, schemes (`file://`,
    /// `http://`), `.` and `..` components, empty components, line breaks. Such URIs never reach a
    /// lookup. Other control characters and backslashes are allowed: file names have them, and the
    /// lookup is in the catalog, never in the file system.
    static func isSafe(_ uri: String) -> Bool {
        if uri.hasPrefix("/") || uri.contains("://") { return false }
        for part in uri.split(separator: "/", omittingEmptySubsequences: false) {
            if part.isEmpty || part == "." || part == ".." { return false }
        }
        for byte in uri.utf8 where byte == 0x0A || byte == 0x0D || byte == 0 { return false }
        return true
    }

    /// The directory or song `uri` names; `""` and `"/"` are the root, a trailing `/` is allowed.
    func locate(_ uri: String) -> Location? {
        if uri.isEmpty || uri == "/" { return .root }
        var path = uri
        if path.hasSuffix("/") { path.removeLast() }
        guard MPDDatabase.isSafe(path) else { return nil }
        if let index = trackByURI[path], !uri.hasSuffix("/") { return .song(index) }
        if directories[path] != nil { return .directory(path) }
        // The volume may be named by its ID as well.
        let first = path.prefix { $0 != "/" }
        if let volume = volumesByName[String(first)], let name = volumeNames[volume], name != first {
            return locate(name + path.dropFirst(first.count) + (uri.hasSuffix("/") ? "/" : ""))
        }
        return nil
    }

    /// Where directory `path` of the database is on its stick (nil for the root, a volume of
    /// another catalog, or a name the URI had to change: line breaks).
    func filePath(ofDirectory path: String) -> String? {
        guard directories[path] != nil else { return nil }
        let first = String(path.prefix { $0 != "/" })
        guard let volume = volumesByName[first], let mount = mountPoints[volume] else { return nil }
        let rest = path.dropFirst(first.count)
        let file = (mount == "/" ? "" : mount) + rest
        return file.isEmpty ? "/" : file
    }

    /// What a walk of the database meets.
    enum WalkEntry {
        case directory(String)
        case song(Int)
        case playlist(Int)
    }

    /// Walks `directory` (`""` = the root) as MPD's `Directory::Walk`: its songs (in MPD's song
    /// order), its playlists, then each subdirectory (in name order): its line, then its contents.
    func walk(_ directory: String, recursive: Bool = true, _ visit: (WalkEntry) -> Void) {
        guard let node = directories[directory] else { return }
        for track in node.tracks { visit(.song(track)) }
        for playlist in node.playlists { visit(.playlist(playlist)) }
        for sub in node.subdirectories {
            let path = directory.isEmpty ? sub : directory + "/" + sub
            visit(.directory(path))
            if recursive { walk(path, visit) }
        }
    }

    /// Every track under `directory` (`""` = all), in the order MPD walks its database.
    func tracks(under directory: String) -> [Int] {
        var result: [Int] = []
        walk(directory) { if case .song(let track) = $0 { result.append(track) } }
        return result
    }

    /// The modification time of directory `path` on its stick (MPD's `Last-Modified` of a
    /// directory), read once per database view; nil when it cannot be read.
    func modificationTime(ofDirectory path: String) -> Int64? {
        if let known = directoryTimes[path] { return known }
        guard let file = filePath(ofDirectory: path), let st = try? Syscalls.fileStatus(file) else { return nil }
        let time = FileMetadata(st).modificationTime
        directoryTimes[path] = time
        return time
    }
    private var directoryTimes: [String: Int64] = [:]

    /// Every track, in the order MPD walks its database (`tracks(under: "")`).
    private(set) lazy var walkOrder: [Int] = tracks(under: "")

    /// The stored playlist called `name` (its title or its URI).
    func playlist(named name: String) -> StoredPlaylist? {
        if let index = playlistByName[name] { return playlists[index] }
        return playlists.first { $0.uri == name }
    }

    // MARK: - building

    /// MPD's order of names (ICU collation there): case ignored first, then the bytes.
    static func collates(_ a: String, _ b: String) -> Bool {
        let (la, lb) = (a.lowercased(), b.lowercased())
        return la != lb ? la.utf8.lexicographicallyPrecedes(lb.utf8) : a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// MPD's order of the songs of a directory (src/db/plugins/simple/SongSort.cxx): by album
    /// (none first), disc, track (none or 0 first), then file name.
    ///
    /// A song's place in that order, made once per song so a directory's sort compares prepared
    /// keys (lower-cased once) instead of making them at each comparison.
    struct SongOrder {
        let album: String?
        let albumLowered: String?
        let disc: Int
        let track: Int
        let uri: String
        let uriLowered: String

        init(_ song: Track, uri: String) {
            album = song.firstAlbumTag
            albumLowered = album?.lowercased()
            disc = max(0, song.discNumber ?? 0)
            track = max(0, song.trackNumber ?? 0)
            self.uri = uri
            uriLowered = uri.lowercased()
        }

        func precedes(_ other: SongOrder) -> Bool {
            if let a = album, let b = other.album {
                if a != b, let la = albumLowered, let lb = other.albumLowered {
                    return la != lb
                        ? la.utf8.lexicographicallyPrecedes(lb.utf8) : a.utf8.lexicographicallyPrecedes(b.utf8)
                }
            } else if album != nil || other.album != nil {
                return album == nil
            }
            if disc != other.disc { return disc < other.disc }
            if track != other.track { return track < other.track }
            return uriLowered != other.uriLowered
                ? uriLowered.utf8.lexicographicallyPrecedes(other.uriLowered.utf8)
                : uri.utf8.lexicographicallyPrecedes(other.uri.utf8)
        }
    }

    private func build() {
        let tracks = catalog.allTracks
        // Mount points from the tracks' paths; names from the mount points.
        for track in tracks where mountPoints[track.volume] == nil {
            let mount = String(track.path.utf8.dropLast(track.relativePath.utf8.count + 1)) ?? ""
            mountPoints[track.volume] = mount
        }
        var nameCount: [String: Int] = [:]
        var proposed: [VolumeID: String] = [:]
        for (volume, mount) in mountPoints {
            let last = mount.split(separator: "/").last.map(String.init) ?? ""
            let name = MPDDatabase.isSafe(last) && !last.isEmpty ? last : volume.rawValue
            proposed[volume] = name
            nameCount[name, default: 0] += 1
        }
        for (volume, name) in proposed {
            let unique = nameCount[name] == 1 && MPDDatabase.isSafe(name) ? name : volume.rawValue
            volumeNames[volume] = unique
            volumesByName[unique] = volume
        }
        for volume in proposed.keys where volumesByName[volume.rawValue] == nil {
            volumesByName[volume.rawValue] = volume
        }

        uris.reserveCapacity(tracks.count)
        var subdirectorySets: [String: Set<String>] = [:]
        directories[""] = Directory()
        // By index, the fields read in place: a Track copied out of the array is a retain and a
        // release of each of its strings (measured: a fifth of the build).
        for index in tracks.indices {
            let volume = tracks[index].volume
            let relativePath = tracks[index].relativePath
            let name = volumeNames[volume] ?? volume.rawValue
            let escaped = relativePath.utf8.contains { $0 == 0x0A || $0 == 0x0D }
            let plain = name + "/" + (escaped ? MPDDatabase.uriText(relativePath) : relativePath)
            var uri = plain
            var copy = 1
            while trackByURI[uri] != nil {
                copy += 1
                uri = plain + " (\(copy))"
            }
            if copy > 1 || escaped { uriByPath[tracks[index].path] = uri }
            uris.append(uri)
            trackByURI[uri] = index
            let trackFolder = tracks[index].folder
            let folder = trackFolder.isEmpty ? name : name + "/" + MPDDatabase.uriText(trackFolder)
            directories[folder, default: Directory()].tracks.append(index)
            // Register the folder chain up to the root.
            var child = folder
            while true {
                let parent = child.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(child[..<$0]) } ?? ""
                let leaf = parent.isEmpty ? child : String(child.utf8.dropFirst(parent.utf8.count + 1))!
                if subdirectorySets[parent, default: []].insert(leaf).inserted == false { break }
                if directories[child] == nil { directories[child] = Directory() }
                if parent.isEmpty { break }
                child = parent
            }
        }
        for (path, names) in subdirectorySets {
            directories[path, default: Directory()].subdirectories = names.sorted(by: MPDDatabase.collates)
        }
        for path in Array(directories.keys) {
            let members = directories[path]!.tracks
            let order = members.map { SongOrder(tracks[$0], uri: uris[$0]) }
            directories[path]!.tracks = members.indices.sorted { order[$0].precedes(order[$1]) }.map { members[$0] }
        }

        // Stored playlists: the playlist collections (key = volume ID, U+001F, relative path).
        var titleCount: [String: Int] = [:]
        let collections = catalog.collections(in: .playlist)
        for collection in collections { titleCount[collection.name, default: 0] += 1 }
        for collection in collections {
            let parts = collection.key.split(separator: "\u{1F}", maxSplits: 1).map(String.init)
            guard parts.count == 2, let name = volumeNames[VolumeID(rawValue: parts[0])] else { continue }
            let uri = name + "/" + MPDDatabase.uriText(parts[1])
            let title = titleCount[collection.name] == 1 ? collection.name : uri
            let modified = collection.representative.modificationTime
            playlistByName[title] = playlists.count
            playlists.append(StoredPlaylist(name: title, uri: uri, collection: collection, modificationTime: modified))
            let folder = uri.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(uri[..<$0]) } ?? ""
            if directories[folder] != nil { directories[folder]!.playlists.append(playlists.count - 1) }
        }
    }
}

/// Time stamps as MPD prints them (`2024-05-01T12:00:00Z`).
enum MPDTime {
    static func iso8601(nanoseconds: Int64) -> String {
        var seconds = time_t(nanoseconds / 1_000_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// Parses `modified-since` values: a UNIX time stamp or `YYYY-MM-DD[THH:MM[:SS]][Z]`.
    static func parse(_ text: String) -> Int64? {
        if let seconds = Int64(text), seconds >= 0 { return seconds * 1_000_000_000 }
        let digits = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int32($0) }
        guard digits.count >= 3, text.utf8.first.map({ $0 >= 0x30 && $0 <= 0x39 }) == true else { return nil }
        var parts = tm()
        parts.tm_year = digits[0] - 1900
        parts.tm_mon = digits[1] - 1
        parts.tm_mday = digits[2]
        parts.tm_hour = digits.count > 3 ? digits[3] : 0
        parts.tm_min = digits.count > 4 ? digits[4] : 0
        parts.tm_sec = digits.count > 5 ? digits[5] : 0
        guard (0...11).contains(parts.tm_mon), (1...31).contains(parts.tm_mday) else { return nil }
        let seconds = timegm(&parts)
        guard seconds >= 0 else { return nil }
        return Int64(seconds) * 1_000_000_000
    }
}
