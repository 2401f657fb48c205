import KioskSystem

/// Everything one scan of one volume produced: the input of a `Catalog`.
/// Thread: any (a value; built on the scan worker, kept by the `Library` on the loop thread).
public struct VolumeContents: Sendable {
    public let volume: VolumeID
    public let mountPoint: String
    /// Playable tracks, any order.
    public let tracks: [Track]
    /// Playlists with at least one playable entry, entries as relative paths of playable tracks.
    let playlists: [ResolvedPlaylist]
    /// Folder (relative) → preferred cover file (relative).
    let covers: [String: String]
    public let problems: [LibraryProblem]
}

/// A playlist whose entries are relative paths of playable tracks, in list order.
struct ResolvedPlaylist: Sendable, Hashable {
    let relativePath: String
    let name: String
    let trackPaths: [String]
}

/// A snapshot of the music on all present volumes, browsable by category and queryable by
/// predicates. Immutable: built on the scan worker (or derived on the loop by `removing`), handed
/// to the loop, replaced as a whole when something changes.
///
/// Thread: any (immutable). `artwork(for:)` reads files: call it off the loop thread.
public final class Catalog: Sendable {
    /// All playable tracks in canonical order: album artist, album, disc, track, title.
    public let allTracks: [Track]
    public let problems: [LibraryProblem]
    private let lists: [Category: CategoryList]
    private let keys: [TrackKeys]
    private let mountPoints: [VolumeID: String]
    private let covers: [VolumeID: [String: String]]
    private let limits: ScanLimits

    /// Per category: sorted collections, their members (indices into `allTracks`) in play order,
    /// and key → position.
    private struct CategoryList: Sendable {
        var collections: [Collection] = []
        var members: [[Int32]] = []
        var positions: [String: Int] = [:]
    }

    /// Grouping and matching keys of a track (case and accents folded).
    private struct TrackKeys: Sendable {
        let album: String
        let albumArtist: String
        let artists: [String]
        let genres: [String]
    }

    public var trackCount: Int { allTracks.count }

    /// An empty catalog (no volumes).
    public static let empty = Catalog(volumes: [])

    /// The volumes whose tracks are in the catalog.
    public var volumes: [VolumeID] { mountPoints.keys.sorted() }

    // MARK: - reading

    /// The collections of `category`, sorted for display; never an empty one.
    public func collections(in category: Category) -> [Collection] { lists[category]?.collections ?? [] }

    /// The collection of `category` with `key`, if present.
    public func collection(_ category: Category, key: String) -> Collection? {
        guard let list = lists[category], let position = list.positions[key] else { return nil }
        return list.collections[position]
    }

    /// The tracks of `collection` in play order (empty when the collection is not in this catalog).
    public func tracks(of collection: Collection) -> [Track] {
        guard let list = lists[collection.category], let position = list.positions[collection.key] else { return [] }
        return list.members[position].map { allTracks[Int($0)] }
    }

    /// The track at `relativePath` on `volume`, if it is in the catalog (e.g. to resume).
    public func track(volume: VolumeID, relativePath: String) -> Track? {
        allTracks.first { $0.volume == volume && $0.relativePath == relativePath }
    }

    /// Tracks matching every predicate (an empty list matches all), in canonical order.
    public func query(_ predicates: [Predicate]) -> [Track] {
        let prepared = predicates.map { ($0, TextFolding.matchKey($0.value)) }
        var result: [Track] = []
        for (i, track) in allTracks.enumerated() {
            let k = keys[i]
            let matchesAll = prepared.allSatisfy { predicate, value in
                func test(_ candidate: String) -> Bool {
                    predicate.comparison == .equalTo ? candidate == value : candidate.contains(value)
                }
                switch predicate.field {
                case .artist: return k.artists.contains(where: test)
                case .album: return test(k.album)
                case .albumArtist: return test(k.albumArtist)
                case .genre: return k.genres.contains(where: test)
                case .title: return test(TextFolding.matchKey(track.title))
                case .date: return test(TextFolding.matchKey(track.date ?? ""))
                case .folder: return test(TextFolding.matchKey(track.folder))
                case .volume:
                    return predicate.comparison == .equalTo
                        ? track.volume.rawValue == predicate.value : track.volume.rawValue.contains(predicate.value)
                }
            }
            if matchesAll { result.append(track) }
        }
        return result
    }

    /// The cover art of `collection`: the representative track's embedded front cover (else its
    /// first picture), else a cover file in its folder. Reads files: not on the loop thread.
    public func artwork(for collection: Collection) -> Artwork? {
        artwork(for: collection.representative)
    }

    /// The cover art of one track (embedded picture, else a cover file in its folder).
    public func artwork(for track: Track) -> Artwork? {
        if track.hasEmbeddedPicture, let picture = FLACFileReader(limits: limits).embeddedPicture(path: track.path) {
            return .embedded(bytes: picture.bytes, mimeType: picture.mimeType)
        }
        guard let mountPoint = mountPoints[track.volume],
            let cover = ArtworkLookup.coverFile(forFolder: track.folder, in: covers[track.volume] ?? [:])
        else { return nil }
        let path = mountPoint == "/" ? "/" + cover : mountPoint + "/" + cover
        return Syscalls.exists(path) ? .file(path: path) : nil
    }

    // MARK: - building

    /// Builds the catalog of `volumes` (sorting and grouping everything; run it on a worker).
    public convenience init(volumes: [VolumeContents], limits: ScanLimits = ScanLimits()) {
        var tracks: [Track] = []
        var problems: [LibraryProblem] = []
        var mountPoints: [VolumeID: String] = [:]
        var covers: [VolumeID: [String: String]] = [:]
        for contents in volumes {
            tracks.append(contentsOf: contents.tracks)
            problems.append(contentsOf: contents.problems)
            mountPoints[contents.volume] = contents.mountPoint
            covers[contents.volume] = contents.covers
        }
        var sortKeys = SortKeyCache()
        var matchKeys: [String: String] = [:]
        func match(_ s: String) -> String {
            if let k = matchKeys[s] { return k }
            let k = TextFolding.matchKey(s)
            matchKeys[s] = k
            return k
        }
        // Canonical order.
        let order = (0..<tracks.count).sorted { a, b in
            Catalog.canonicalLess(tracks[a], tracks[b], &sortKeys)
        }
        tracks = order.map { tracks[$0] }
        let keys = tracks.map { t in
            TrackKeys(
                album: match(t.album), albumArtist: match(t.albumArtist), artists: t.artistNames.map(match),
                genres: t.genreNames.map(match))
        }
        var playlistsByVolume: [VolumeID: [ResolvedPlaylist]] = [:]
        for contents in volumes { playlistsByVolume[contents.volume] = contents.playlists }
        self.init(
            tracks: tracks, keys: keys, problems: problems, mountPoints: mountPoints, covers: covers, limits: limits,
            playlists: playlistsByVolume, sortKeys: &sortKeys)
    }

    private init(
        tracks: [Track], keys: [TrackKeys], problems: [LibraryProblem], mountPoints: [VolumeID: String],
        covers: [VolumeID: [String: String]], limits: ScanLimits, playlists: [VolumeID: [ResolvedPlaylist]],
        sortKeys: inout SortKeyCache
    ) {
        allTracks = tracks
        self.keys = keys
        self.problems = problems
        self.mountPoints = mountPoints
        self.covers = covers
        self.limits = limits

        var groups: [Category: [String: (name: String, members: [Int32])]] = [:]
        var groupOrder: [Category: [String]] = [:]
        func add(_ category: Category, _ key: String, _ name: String, _ index: Int) {
            if groups[category, default: [:]][key] == nil {
                groups[category, default: [:]][key] = (name, [])
                groupOrder[category, default: []].append(key)
            }
            groups[category]![key]!.members.append(Int32(index))
        }
        for (i, track) in tracks.enumerated() {
            let k = keys[i]
            add(.album, k.albumArtist + "\u{1F}" + k.album, track.album, i)
            add(.albumArtist, k.albumArtist, track.albumArtist, i)
            var seenArtists: Set<String> = []
            for (name, key) in zip(track.artistNames, k.artists) where seenArtists.insert(key).inserted {
                add(.artist, key, name, i)
            }
            var seenGenres: Set<String> = []
            for (name, key) in zip(track.genreNames, k.genres) where seenGenres.insert(key).inserted {
                add(.genre, key, name, i)
            }
            add(.folder, track.volume.rawValue + "\u{1F}" + track.folder, Catalog.folderName(track, mountPoints), i)
        }
        // Playlists refer to tracks by volume and relative path.
        var positionOfPath: [VolumeID: [String: Int32]] = [:]
        for (i, track) in tracks.enumerated() {
            positionOfPath[track.volume, default: [:]][track.relativePath] = Int32(i)
        }
        for (volume, lists) in playlists {
            for playlist in lists {
                let members = playlist.trackPaths.compactMap { positionOfPath[volume]?[$0] }
                if members.isEmpty { continue }
                let key = volume.rawValue + "\u{1F}" + playlist.relativePath
                groups[.playlist, default: [:]][key] = (playlist.name, members)
                groupOrder[.playlist, default: []].append(key)
            }
        }

        var lists: [Category: CategoryList] = [:]
        for category in Category.allCases {
            var entries: [(collection: Collection, members: [Int32], sortKey: SortKey, fallback: Bool)] = []
            for key in groupOrder[category] ?? [] {
                guard let group = groups[category]?[key] else { continue }
                var members = group.members
                if category != .playlist {
                    Catalog.sortMembers(&members, category: category, tracks: tracks, keys: &sortKeys)
                }
                let collection = Catalog.makeCollection(
                    category, key: key, name: group.name, members: members, tracks: tracks, covers: covers)
                let sortKey: SortKey
                switch category {
                case .artist, .albumArtist: sortKey = sortKeys.key(group.name, ignoringArticle: true)
                case .folder: sortKey = sortKeys.key(tracks[Int(members[0])].folder + "\u{1F}" + key)
                default: sortKey = sortKeys.key(group.name)
                }
                let fallback: Bool
                switch category {
                case .album: fallback = group.name == Track.unknownAlbum
                case .artist, .albumArtist: fallback = group.name == Track.unknownArtist
                case .genre: fallback = group.name == Track.unknownGenre
                default: fallback = false
                }
                entries.append((collection, members, sortKey, fallback))
            }
            entries.sort { a, b in
                if a.fallback != b.fallback { return !a.fallback }
                if a.sortKey != b.sortKey { return a.sortKey < b.sortKey }
                if category == .album {
                    let x = sortKeys.key(a.collection.representative.albumArtist, ignoringArticle: true)
                    let y = sortKeys.key(b.collection.representative.albumArtist, ignoringArticle: true)
                    if x != y { return x < y }
                }
                return a.collection.key < b.collection.key
            }
            var list = CategoryList()
            for (position, entry) in entries.enumerated() {
                list.collections.append(entry.collection)
                list.members.append(entry.members)
                list.positions[entry.collection.key] = position
            }
            lists[category] = list
        }
        self.lists = lists
    }

    /// This catalog without the tracks, playlists and problems of `removed` volumes; order is
    /// kept, so nothing is sorted again (cheap enough for the loop thread).
    public func removing(volumes removed: Set<VolumeID>) -> Catalog {
        if removed.isDisjoint(with: mountPoints.keys) { return self }
        var remap = [Int32](repeating: -1, count: allTracks.count)
        var tracks: [Track] = []
        var keys: [TrackKeys] = []
        for (i, track) in allTracks.enumerated() where !removed.contains(track.volume) {
            remap[i] = Int32(tracks.count)
            tracks.append(track)
            keys.append(self.keys[i])
        }
        var lists: [Category: CategoryList] = [:]
        let covers = self.covers.filter { !removed.contains($0.key) }
        for (category, old) in self.lists {
            var list = CategoryList()
            for (position, collection) in old.collections.enumerated() {
                let members = old.members[position].compactMap { remap[Int($0)] >= 0 ? remap[Int($0)] : nil }
                if members.isEmpty { continue }
                let updated =
                    members.count == old.members[position].count
                    ? Collection(
                        category: category, key: collection.key, name: collection.name,
                        subtitle: collection.subtitle, representative: collection.representative,
                        trackCount: collection.trackCount)
                    : Catalog.makeCollection(
                        category, key: collection.key, name: collection.name, members: members, tracks: tracks,
                        covers: covers)
                list.positions[collection.key] = list.collections.count
                list.collections.append(updated)
                list.members.append(members)
            }
            lists[category] = list
        }
        return Catalog(
            allTracks: tracks, problems: problems.filter { !removed.contains($0.volume) }, lists: lists, keys: keys,
            mountPoints: mountPoints.filter { !removed.contains($0.key) }, covers: covers, limits: limits)
    }

    private init(
        allTracks: [Track], problems: [LibraryProblem], lists: [Category: CategoryList], keys: [TrackKeys],
        mountPoints: [VolumeID: String], covers: [VolumeID: [String: String]], limits: ScanLimits
    ) {
        self.allTracks = allTracks
        self.problems = problems
        self.lists = lists
        self.keys = keys
        self.mountPoints = mountPoints
        self.covers = covers
        self.limits = limits
    }

    // MARK: - ordering and naming

    /// Album artist, album, disc, track, title, then location.
    private static func canonicalLess(_ a: Track, _ b: Track, _ keys: inout SortKeyCache) -> Bool {
        let aa = keys.key(a.albumArtist, ignoringArticle: true)
        let ba = keys.key(b.albumArtist, ignoringArticle: true)
        if aa != ba { return aa < ba }
        return albumOrderLess(a, b, &keys)
    }

    /// Album, disc, track, title, location: the play order within an artist or genre.
    private static func albumOrderLess(_ a: Track, _ b: Track, _ keys: inout SortKeyCache) -> Bool {
        let al = keys.key(a.album)
        let bl = keys.key(b.album)
        if al != bl { return al < bl }
        return discTrackLess(a, b, &keys)
    }

    /// Disc, track number (unnumbered tracks last), title, then location.
    private static func discTrackLess(_ a: Track, _ b: Track, _ keys: inout SortKeyCache) -> Bool {
        let ad = a.discNumber ?? 1
        let bd = b.discNumber ?? 1
        if ad != bd { return ad < bd }
        let at = a.trackNumber ?? Int.max
        let bt = b.trackNumber ?? Int.max
        if at != bt { return at < bt }
        let ak = keys.key(a.title)
        let bk = keys.key(b.title)
        if ak != bk { return ak < bk }
        if a.volume != b.volume { return a.volume < b.volume }
        return a.relativePath < b.relativePath
    }

    private static func sortMembers(
        _ members: inout [Int32], category: Category, tracks: [Track], keys: inout SortKeyCache
    ) {
        switch category {
        case .album:
            members.sort { discTrackLess(tracks[Int($0)], tracks[Int($1)], &keys) }
        case .artist, .albumArtist:
            members.sort { albumOrderLess(tracks[Int($0)], tracks[Int($1)], &keys) }
        case .genre:
            members.sort { canonicalLess(tracks[Int($0)], tracks[Int($1)], &keys) }
        case .folder:
            // A folder plays in file-name order, as a file manager lists it.
            members.sort {
                let a = keys.key(tracks[Int($0)].fileName)
                let b = keys.key(tracks[Int($1)].fileName)
                return a != b ? a < b : tracks[Int($0)].relativePath < tracks[Int($1)].relativePath
            }
        case .playlist:
            break
        }
    }

    private static func folderName(_ track: Track, _ mountPoints: [VolumeID: String]) -> String {
        let folder = track.folder
        if let slash = folder.lastIndex(of: "/") { return String(folder[folder.index(after: slash)...]) }
        if !folder.isEmpty { return folder }
        // The volume's top folder: the mount point's last component (the stick's label).
        let mount = mountPoints[track.volume] ?? ""
        let last = mount.split(separator: "/").last.map(String.init) ?? ""
        return last.isEmpty ? "/" : last
    }

    private static func makeCollection(
        _ category: Category, key: String, name: String, members: [Int32], tracks: [Track],
        covers: [VolumeID: [String: String]]
    ) -> Collection {
        let memberTracks = members.lazy.map { tracks[Int($0)] }
        let representative =
            memberTracks.first { $0.hasEmbeddedPicture }
            ?? memberTracks.first { ArtworkLookup.coverFile(forFolder: $0.folder, in: covers[$0.volume] ?? [:]) != nil }
            ?? tracks[Int(members[0])]
        let count = members.count
        let tracksText = count == 1 ? "1 track" : "\(count) tracks"
        let subtitle: String
        switch category {
        case .album:
            subtitle = "\(representative.albumArtist) · \(tracksText)"
        case .artist, .albumArtist, .genre:
            var albums: Set<String> = []
            for t in memberTracks { albums.insert(TextFolding.matchKey(t.albumArtist) + "\u{1F}" + t.album) }
            subtitle = "\(albums.count == 1 ? "1 album" : "\(albums.count) albums") · \(tracksText)"
        case .playlist:
            subtitle = tracksText
        case .folder:
            let parent = Track.folder(of: representative.folder)
            subtitle = parent.isEmpty ? tracksText : "\(parent) · \(tracksText)"
        }
        return Collection(
            category: category, key: key, name: name, subtitle: subtitle, representative: representative,
            trackCount: count)
    }
}

/// Sort keys computed once per distinct string during a build.
private struct SortKeyCache {
    private var plain: [String: SortKey] = [:]
    private var withoutArticle: [String: SortKey] = [:]

    mutating func key(_ text: String, ignoringArticle: Bool = false) -> SortKey {
        if ignoringArticle {
            if let k = withoutArticle[text] { return k }
            let k = SortKey(text, ignoringArticle: true)
            withoutArticle[text] = k
            return k
        }
        if let k = plain[text] { return k }
        let k = SortKey(text)
        plain[text] = k
        return k
    }
}
