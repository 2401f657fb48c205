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
    /// What the walk found when these contents were made, when they can stand for a later scan
    /// that finds exactly the same (nil after transient read errors or index trouble, which a
    /// later scan must retry).
    let fingerprint: ScanFingerprint?

    init(
        volume: VolumeID, mountPoint: String, tracks: [Track], playlists: [ResolvedPlaylist], covers: [String: String],
        problems: [LibraryProblem], fingerprint: ScanFingerprint? = nil
    ) {
        self.volume = volume
        self.mountPoint = mountPoint
        self.tracks = tracks
        self.playlists = playlists
        self.covers = covers
        self.problems = problems
        self.fingerprint = fingerprint
    }
}

/// Everything a scan's result depends on besides the files' contents: the files found (with
/// size and mtime), the covers, the walk's warnings, the limits and the index used. Two scans
/// with equal fingerprints produce the same `VolumeContents`. Thread: any (a value).
struct ScanFingerprint: Sendable {
    let flacFiles: [ScannedFile]
    /// What each of `flacFiles` turned out to be (as the index has it), so that a rescan that
    /// finds a few files changed reads those and takes the others from here, not from the index.
    let outcomes: [StoredOutcome]
    let playlists: [ScannedFile]
    let coverFiles: [String]
    let warnings: [LibraryProblem]
    let limits: ScanLimits
    let indexPath: String?
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
    /// Volume → relative path → index in `allTracks`.
    private let positions: [VolumeID: [String: Int32]]
    private let covers: [VolumeID: [String: String]]
    private let limits: ScanLimits

    /// Per category: sorted collections, their members (indices into `allTracks`) in play order,
    /// and key → position.
    private struct CategoryList: Sendable {
        var collections: [Collection] = []
        var members: [[Int32]] = []
        var positions: [String: Int] = [:]
    }

    /// Grouping and matching keys of a track (case and accents folded), plus facts the
    /// collections need.
    private struct TrackKeys: Sendable {
        let album: String
        let albumArtist: String
        let artists: [String]
        let genres: [String]
        /// An embedded picture or a cover file in its folder.
        let hasArt: Bool
        /// Which album collection it is in (to count albums in a subtitle).
        var albumGroup: Int32 = 0
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
        positions[volume]?[relativePath].map { allTracks[Int($0)] }
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
        if Syscalls.exists(path) { return .file(path: path) }
        // Changed since the scan: look at the folder again.
        let folder = Track.folder(of: path)
        guard let listing = try? Syscalls.readDirectory(folder, limit: 10_000),
            let name = ArtworkLookup.preferredCover(listing.entries.map(\.name))
        else { return nil }
        return .file(path: folder + "/" + name)
    }

    // MARK: - building

    /// Builds the catalog of `volumes` (sorting and grouping everything; run it on a worker).
    public convenience init(volumes: [VolumeContents], limits: ScanLimits = ScanLimits()) {
        var tracks: [Track] = []
        var problems: [LibraryProblem] = []
        var mountPoints: [VolumeID: String] = [:]
        var covers: [VolumeID: [String: String]] = [:]
        var playlists: [VolumeID: [ResolvedPlaylist]] = [:]
        for contents in volumes {
            // One volume (the usual case): share its array instead of copying every track.
            if tracks.isEmpty { tracks = contents.tracks } else { tracks.append(contentsOf: contents.tracks) }
            problems.append(contentsOf: contents.problems)
            mountPoints[contents.volume] = contents.mountPoint
            covers[contents.volume] = contents.covers
            playlists[contents.volume] = contents.playlists
        }
        // Ranks (each distinct string's place in sorted order) make every comparison an integer one.
        var ranks = Ranks(
            albumArtist: Catalog.ranks(tracks.map(\.albumArtist), ignoringArticle: true),
            album: Catalog.ranks(tracks.map(\.album)))
        // Titles decide only between tracks with the same disc and number: keys made on demand.
        let unsortedTitles = LazySortKeys(tracks.map(\.title))
        let order = (0..<tracks.count).sorted { Catalog.canonicalLess($0, $1, tracks, ranks, unsortedTitles) }
        // Folders named artist/album usually come in this order already: then nothing moves.
        if !order.elementsEqual(0..<order.count) {
            tracks = order.map { tracks[$0] }
            ranks = Ranks(albumArtist: order.map { ranks.albumArtist[$0] }, album: order.map { ranks.album[$0] })
        }

        var matchKeys: [String: String] = [:]
        func match(_ s: String) -> String {
            if let k = matchKeys[s] { return k }
            let k = TextFolding.matchKey(s)
            matchKeys[s] = k
            return k
        }
        var folderHasCover: [String: Bool] = [:]
        // Tracks of one folder come together: the last answer is asked first.
        var lastFolder: (volume: VolumeID, folder: String, cover: Bool)?
        var keys: [TrackKeys] = []
        keys.reserveCapacity(tracks.count)
        for i in tracks.indices {
            let volume = tracks[i].volume
            let folder = tracks[i].folder
            let cover: Bool
            if let last = lastFolder, last.folder == folder, last.volume == volume {
                cover = last.cover
            } else {
                let folderKey = volume.rawValue + "\u{1F}" + folder
                if let known = folderHasCover[folderKey] {
                    cover = known
                } else {
                    cover = ArtworkLookup.coverFile(forFolder: folder, in: covers[volume] ?? [:]) != nil
                    folderHasCover[folderKey] = cover
                }
                lastFolder = (volume, folder, cover)
            }
            let artists = tracks[i].tags.artists
            let genres = tracks[i].tags.genres
            keys.append(
                TrackKeys(
                    album: match(tracks[i].album), albumArtist: match(tracks[i].albumArtist),
                    artists: artists.isEmpty ? [match(tracks[i].artist)] : artists.map(match),
                    genres: genres.isEmpty ? [match(tracks[i].genre)] : genres.map(match),
                    hasArt: tracks[i].hasEmbeddedPicture || cover))
        }
        self.init(
            tracks: tracks, keys: keys, ranks: ranks, problems: problems, mountPoints: mountPoints, covers: covers,
            limits: limits, playlists: playlists)
    }

    /// Per-track ranks, aligned with the tracks.
    private struct Ranks {
        let albumArtist: [Int32]
        let album: [Int32]
    }

    /// Groups of one category in first-seen order: key, display name (the first spelling seen)
    /// and member track indices.
    private struct GroupTable {
        var index: [String: Int] = [:]
        var keys: [String] = []
        var names: [String] = []
        var members: [[Int32]] = []

        @discardableResult
        mutating func add(_ key: String, _ name: @autoclosure () -> String, _ track: Int) -> Int {
            if let group = index[key] {
                members[group].append(Int32(track))
                return group
            }
            index[key] = keys.count
            keys.append(key)
            names.append(name())
            members.append([Int32(track)])
            return keys.count - 1
        }

        /// Adds `track` to `group` (known to have its key).
        mutating func add(to group: Int, _ track: Int) -> Int {
            members[group].append(Int32(track))
            return group
        }

        mutating func addGroup(_ key: String, _ name: String, _ tracks: [Int32]) {
            index[key] = keys.count
            keys.append(key)
            names.append(name)
            members.append(tracks)
        }
    }

    /// Sort keys of a list of names, each made the first time it is compared.
    private final class LazySortKeys {
        let names: [String]
        var keys: [SortKey?]

        init(_ names: [String]) {
            self.names = names
            keys = Array(repeating: nil, count: names.count)
        }

        func key(_ i: Int) -> SortKey {
            if let key = keys[i] { return key }
            let key = SortKey(names[i])
            keys[i] = key
            return key
        }

        func less(_ a: Int, _ b: Int) -> Bool {
            if names[a] == names[b] { return false }
            return key(a) < key(b)
        }
    }

    private convenience init(
        tracks: [Track], keys: [TrackKeys], ranks: Ranks, problems: [LibraryProblem], mountPoints: [VolumeID: String],
        covers: [VolumeID: [String: String]], limits: ScanLimits, playlists: [VolumeID: [ResolvedPlaylist]]
    ) {
        var keys = keys
        var tables: [Category: GroupTable] = [:]
        var album = GroupTable()
        var albumArtist = GroupTable()
        var artist = GroupTable()
        var genre = GroupTable()
        var folder = GroupTable()
        // Tracks come in canonical order, so an album's tracks (and often a folder's) are
        // neighbours: when a track's key equals the previous track's, no key is made or looked up.
        var previousFolderGroup = 0
        for i in tracks.indices {
            let k = keys[i]
            let previous = i > 0 ? keys[i - 1] : nil
            let sameAlbum = previous.map { $0.albumArtist == k.albumArtist && $0.album == k.album } ?? false
            keys[i].albumGroup = Int32(
                sameAlbum
                    ? album.add(to: Int(keys[i - 1].albumGroup), i)
                    : album.add(k.albumArtist + "\u{1F}" + k.album, tracks[i].album, i))
            albumArtist.add(k.albumArtist, tracks[i].albumArtist, i)
            if k.artists.count == 1 {
                artist.add(k.artists[0], tracks[i].artistNames[0], i)
            } else {
                var seen: Set<String> = []
                for (name, key) in zip(tracks[i].artistNames, k.artists) where seen.insert(key).inserted {
                    artist.add(key, name, i)
                }
            }
            if k.genres.count == 1 {
                genre.add(k.genres[0], tracks[i].genreNames[0], i)
            } else {
                var seen: Set<String> = []
                for (name, key) in zip(tracks[i].genreNames, k.genres) where seen.insert(key).inserted {
                    genre.add(key, name, i)
                }
            }
            if i > 0 && tracks[i].folder == tracks[i - 1].folder && tracks[i].volume == tracks[i - 1].volume {
                previousFolderGroup = folder.add(to: previousFolderGroup, i)
            } else {
                previousFolderGroup = folder.add(
                    tracks[i].volume.rawValue + "\u{1F}" + tracks[i].folder, Catalog.folderName(tracks[i], mountPoints),
                    i)
            }
        }
        // Playlists refer to tracks by volume and relative path.
        var playlist = GroupTable()
        let positionOfPath = Catalog.positions(of: tracks)
        for volume in playlists.keys.sorted() {
            for list in playlists[volume] ?? [] {
                let members = list.trackPaths.compactMap { positionOfPath[volume]?[$0] }
                if members.isEmpty { continue }
                playlist.addGroup(volume.rawValue + "\u{1F}" + list.relativePath, list.name, members)
            }
        }
        tables = [
            .album: album, .albumArtist: albumArtist, .artist: artist, .genre: genre, .folder: folder,
            .playlist: playlist,
        ]
        let titles = LazySortKeys(tracks.map(\.title))
        let fileNames = LazySortKeys(tracks.map(\.fileName))

        var lists: [Category: CategoryList] = [:]
        for category in Category.allCases {
            guard let table = tables[category] else { continue }
            var entries: [(collection: Collection, members: [Int32], sortKey: SortKey, fallback: Bool)] = []
            entries.reserveCapacity(table.keys.count)
            for group in 0..<table.keys.count {
                let key = table.keys[group]
                let name = table.names[group]
                var members = table.members[group]
                switch category {
                case .album:
                    members.sort { Catalog.discTrackLess(Int($0), Int($1), tracks, ranks, titles) }
                case .artist, .albumArtist:
                    members.sort { Catalog.albumOrderLess(Int($0), Int($1), tracks, ranks, titles) }
                case .genre:
                    break  // canonical order already
                case .folder:
                    // A folder plays in file-name order, as a file manager lists it.
                    members.sort { fileNames.less(Int($0), Int($1)) }
                case .playlist:
                    break  // list order
                }
                let collection = Catalog.makeCollection(
                    category, key: key, name: name, members: members, tracks: tracks, keys: keys)
                let sortKey: SortKey
                switch category {
                case .artist, .albumArtist: sortKey = SortKey(name, ignoringArticle: true)
                case .folder: sortKey = SortKey(tracks[Int(members[0])].folder + "\u{1F}" + key)
                default: sortKey = SortKey(name)
                }
                let fallback: Bool
                switch category {
                case .album: fallback = name == Track.unknownAlbum
                case .artist, .albumArtist: fallback = name == Track.unknownArtist
                case .genre: fallback = name == Track.unknownGenre
                default: fallback = false
                }
                entries.append((collection, members, sortKey, fallback))
            }
            entries.sort { a, b in
                if a.fallback != b.fallback { return !a.fallback }
                if a.sortKey != b.sortKey { return a.sortKey < b.sortKey }
                if category == .album {
                    let x = ranks.albumArtist[Int(a.members[0])]
                    let y = ranks.albumArtist[Int(b.members[0])]
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
        self.init(
            allTracks: tracks, problems: problems, lists: lists, keys: keys, mountPoints: mountPoints, covers: covers,
            limits: limits, positions: positionOfPath)
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
                        keys: keys)
                list.positions[collection.key] = list.collections.count
                list.collections.append(updated)
                list.members.append(members)
            }
            lists[category] = list
        }
        return Catalog(
            allTracks: tracks, problems: problems.filter { !removed.contains($0.volume) }, lists: lists, keys: keys,
            mountPoints: mountPoints.filter { !removed.contains($0.key) }, covers: covers, limits: limits,
            positions: Catalog.positions(of: tracks))
    }

    private init(
        allTracks: [Track], problems: [LibraryProblem], lists: [Category: CategoryList], keys: [TrackKeys],
        mountPoints: [VolumeID: String], covers: [VolumeID: [String: String]], limits: ScanLimits,
        positions: [VolumeID: [String: Int32]]
    ) {
        self.positions = positions
        self.allTracks = allTracks
        self.problems = problems
        self.lists = lists
        self.keys = keys
        self.mountPoints = mountPoints
        self.covers = covers
        self.limits = limits
    }

    private static func positions(of tracks: [Track]) -> [VolumeID: [String: Int32]] {
        var byVolume: [VolumeID: [Int32]] = [:]
        for i in tracks.indices { byVolume[tracks[i].volume, default: []].append(Int32(i)) }
        return byVolume.mapValues { members in
            var positions: [String: Int32] = [:]
            positions.reserveCapacity(members.count)
            for i in members { positions[tracks[Int(i)].relativePath] = i }
            return positions
        }
    }

    // MARK: - ordering and naming

    /// Each value's place among the distinct values sorted by `SortKey`.
    private static func ranks(_ values: [String], ignoringArticle: Bool = false) -> [Int32] {
        var rank: [String: Int32] = [:]
        var distinct: [String] = []
        for value in values where rank.updateValue(0, forKey: value) == nil { distinct.append(value) }
        let sorted = distinct.map { (SortKey($0, ignoringArticle: ignoringArticle), $0) }.sorted { $0.0 < $1.0 }
        for (i, entry) in sorted.enumerated() { rank[entry.1] = Int32(i) }
        return values.map { rank[$0]! }
    }

    /// Album artist, album, disc, track, title, then location.
    private static func canonicalLess(
        _ a: Int, _ b: Int, _ tracks: [Track], _ ranks: Ranks, _ titles: LazySortKeys
    ) -> Bool {
        if ranks.albumArtist[a] != ranks.albumArtist[b] { return ranks.albumArtist[a] < ranks.albumArtist[b] }
        return albumOrderLess(a, b, tracks, ranks, titles)
    }

    /// Album, disc, track, title, location: the play order within an artist.
    private static func albumOrderLess(
        _ a: Int, _ b: Int, _ tracks: [Track], _ ranks: Ranks, _ titles: LazySortKeys
    ) -> Bool {
        if ranks.album[a] != ranks.album[b] { return ranks.album[a] < ranks.album[b] }
        return discTrackLess(a, b, tracks, ranks, titles)
    }

    /// Disc, track number (unnumbered tracks last), title, then location.
    private static func discTrackLess(
        _ a: Int, _ b: Int, _ tracks: [Track], _ ranks: Ranks, _ titles: LazySortKeys
    ) -> Bool {
        let xd = tracks[a].discNumber ?? 1
        let yd = tracks[b].discNumber ?? 1
        if xd != yd { return xd < yd }
        let xt = tracks[a].trackNumber ?? Int.max
        let yt = tracks[b].trackNumber ?? Int.max
        if xt != yt { return xt < yt }
        if titles.less(a, b) { return true }
        if titles.less(b, a) { return false }
        if tracks[a].volume != tracks[b].volume { return tracks[a].volume < tracks[b].volume }
        return tracks[a].relativePath < tracks[b].relativePath
    }

    private static func folderName(_ track: Track, _ mountPoints: [VolumeID: String]) -> String {
        let folder = track.folder
        if !folder.isEmpty {
            let name = Track.folder(of: folder)
            return name.isEmpty ? folder : String(folder.utf8.dropFirst(name.utf8.count + 1))!
        }
        // The volume's top folder: the mount point's last component (the stick's label).
        let mount = mountPoints[track.volume] ?? ""
        let last = mount.split(separator: "/").last.map(String.init) ?? ""
        return last.isEmpty ? "/" : last
    }

    private static func makeCollection(
        _ category: Category, key: String, name: String, members: [Int32], tracks: [Track], keys: [TrackKeys]
    ) -> Collection {
        // Embedded art first (it has precedence), then a cover file, then simply the first track.
        let representativeIndex =
            members.first { tracks[Int($0)].hasEmbeddedPicture } ?? members.first { keys[Int($0)].hasArt }
            ?? members[0]
        let representative = tracks[Int(representativeIndex)]
        let count = members.count
        let tracksText = count == 1 ? "1 track" : "\(count) tracks"
        let subtitle: String
        switch category {
        case .album:
            subtitle = "\(representative.albumArtist) · \(tracksText)"
        case .artist, .albumArtist, .genre:
            let albums = Set(members.map { keys[Int($0)].albumGroup }).count
            subtitle = "\(albums == 1 ? "1 album" : "\(albums) albums") · \(tracksText)"
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
