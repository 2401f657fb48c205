// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// A snapshot of the music on all present volumes, browsable by category and queryable by
/// predicates. Immutable: built on the scan worker (or derived on the loop by `removing`), handed
/// to the loop, replaced as a whole when something changes.
///
/// Compact, since it lives as long as the stick is in: per track it keeps the track (shared with
/// the scan result when one volume is present, see `sharingTracks(with:)`), its grouping keys as
/// numbers into one table of distinct names, and its place in a hash table of paths.
///
/// Thread: any (immutable). `artwork(for:)` reads files: call it off the loop thread.
public final class Catalog: Sendable {
    /// All playable tracks in canonical order: album artist, album, disc, track, title.
    public let allTracks: [Track]
    public let problems: [LibraryProblem]
    private let lists: [Category: CategoryList]
    private let keys: [TrackKeys]
    /// The distinct grouping keys (case and accents folded) `keys` refer to.
    private let keyNames: [String]
    /// Keys of tracks with several artists or genres: a count, then that many key numbers.
    private let multipleKeys: [Int32]
    private let mountPoints: [VolumeID: String]
    /// (volume, relative path) → index in `allTracks`.
    private let paths: PathIndex
    private let covers: [VolumeID: [String: String]]
    private let limits: ScanLimits

    /// Per category: sorted collections, their members (indices into `allTracks`) in play order,
    /// and key → position.
    private struct CategoryList: Sendable {
        var collections: [Collection] = []
        /// Collection i's members are `members[start[i]..<start[i + 1]]`.
        var start: [Int32] = [0]
        var members: [Int32] = []
        var positions: [String: Int] = [:]

        func members(of position: Int) -> ArraySlice<Int32> {
            members[Int(start[position])..<Int(start[position + 1])]
        }
    }

    /// Grouping and matching keys of a track (numbers into `keyNames`), plus facts the
    /// collections need.
    private struct TrackKeys: Sendable {
        let album: Int32
        let albumArtist: Int32
        /// The artist key, or `-1 - offset` into `multipleKeys` when the track has several.
        let artist: Int32
        /// The genre key, or `-1 - offset` into `multipleKeys`.
        let genre: Int32
        /// Which album collection it is in (to count albums in a subtitle).
        var albumGroup: Int32 = 0
        /// An embedded picture or a cover file in its folder.
        let hasArt: Bool
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
        return list.members(of: position).map { allTracks[Int($0)] }
    }

    /// The track at `relativePath` on `volume`, if it is in the catalog (e.g. to resume).
    public func track(volume: VolumeID, relativePath: String) -> Track? {
        paths.find(volume: volume, relativePath: relativePath, in: allTracks).map { allTracks[$0] }
    }

    /// Tracks matching every predicate (an empty list matches all), in canonical order.
    public func query(_ predicates: [Predicate]) -> [Track] {
        /// A predicate on a grouping key is decided once per distinct key.
        enum Prepared {
            case keyed(Predicate.Field, [Bool])
            case text(Predicate, String)
        }
        let prepared = predicates.map { predicate -> Prepared in
            let value = TextFolding.matchKey(predicate.value)
            switch predicate.field {
            case .artist, .album, .albumArtist, .genre:
                return .keyed(
                    predicate.field,
                    keyNames.map { predicate.comparison == .equalTo ? $0 == value : $0.contains(value) })
            default:
                return .text(predicate, value)
            }
        }
        var result: [Track] = []
        for (i, track) in allTracks.enumerated() {
            let k = keys[i]
            let matchesAll = prepared.allSatisfy { prepared in
                switch prepared {
                case .keyed(let field, let matching):
                    switch field {
                    case .album: return matching[Int(k.album)]
                    case .albumArtist: return matching[Int(k.albumArtist)]
                    case .artist: return anyKey(k.artist) { matching[Int($0)] }
                    default: return anyKey(k.genre) { matching[Int($0)] }
                    }
                case .text(let predicate, let value):
                    func test(_ candidate: String) -> Bool {
                        predicate.comparison == .equalTo ? candidate == value : candidate.contains(value)
                    }
                    switch predicate.field {
                    case .title: return test(TextFolding.matchKey(track.title))
                    case .date: return test(TextFolding.matchKey(track.date ?? ""))
                    case .folder: return test(TextFolding.matchKey(track.folder))
                    default:
                        return predicate.comparison == .equalTo
                            ? track.volume.rawValue == predicate.value
                            : track.volume.rawValue.contains(predicate.value)
                    }
                }
            }
            if matchesAll { result.append(track) }
        }
        return result
    }

    /// Whether `test` holds for the key `key` stands for, or for one of them when it stands for several.
    private func anyKey(_ key: Int32, _ test: (Int32) -> Bool) -> Bool {
        if key >= 0 { return test(key) }
        let start = Int(-1 - key)
        let count = Int(multipleKeys[start])
        return multipleKeys[(start + 1)..<(start + 1 + count)].contains(where: test)
    }

    /// The cover art of `collection`: the representative track's embedded front cover (else its
    /// first picture), else a cover file in its folder. Reads files: not on the loop thread.
    public func artwork(for collection: Collection) -> Artwork? {
        artwork(for: collection.representative)
    }

    /// The cover art of one track (embedded picture, else a cover file in its folder).
    public func artwork(for track: Track) -> Artwork? {
        if track.hasEmbeddedPicture, let picture = MusicFileReader(limits: limits).embeddedPicture(path: track.path) {
            return .embedded(bytes: picture.bytes, mimeType: picture.mimeType)
        }
        guard let mountPoint = mountPoints[track.volume],
            let cover = ArtworkLookup.coverFile(forFolder: track.folder, in: covers[track.volume] ?? [:])
        else { return nil }
        let path = mountPoint == "/" ? "/" + cover : mountPoint + "/" + cover
        if Syscalls.exists(path) { return .file(path: path, volumePath: mountPoint) }
        // Changed since the scan: look at the folder again.
        let folder = Track.folder(of: path)
        guard let listing = try? Syscalls.readDirectory(folder, limit: 10_000),
            let name = ArtworkLookup.preferredCover(listing.entries.map(\.name))
        else { return nil }
        return .file(path: folder + "/" + name, volumePath: mountPoint)
    }

    /// `contents` holding this catalog's track array when the catalog is made of exactly that
    /// volume (the same tracks in canonical order), so the tracks are stored once; else `contents`.
    public func sharingTracks(with contents: VolumeContents) -> VolumeContents {
        guard mountPoints.count == 1, mountPoints[contents.volume] == contents.mountPoint,
            allTracks.count == contents.tracks.count
        else { return contents }
        let same = allTracks.withUnsafeBufferPointer { a in
            contents.tracks.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress }
        }
        if same { return contents }
        var newIndex = [Int32](repeating: -1, count: allTracks.count)
        var taken = [Bool](repeating: false, count: allTracks.count)
        for (i, track) in contents.tracks.enumerated() {
            guard let j = paths.find(volume: track.volume, relativePath: track.relativePath, in: allTracks),
                !taken[j], allTracks[j] == track
            else { return contents }
            taken[j] = true
            newIndex[i] = Int32(j)
        }
        return VolumeContents(
            volume: contents.volume, mountPoint: contents.mountPoint, tracks: allTracks,
            playlists: contents.playlists, covers: contents.covers, problems: contents.problems,
            fingerprint: contents.fingerprint?.reordered(newIndex), unconfirmed: contents.unconfirmed)
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

        // Display value → key number, key → key number.
        var keyOfName: [String: Int32] = [:]
        var numberOfKey: [String: Int32] = [:]
        var keyNames: [String] = []
        func key(_ name: String) -> Int32 {
            if let k = keyOfName[name] { return k }
            let folded = TextFolding.matchKey(name)
            let k: Int32
            if let known = numberOfKey[folded] {
                k = known
            } else {
                k = Int32(keyNames.count)
                keyNames.append(folded)
                numberOfKey[folded] = k
            }
            keyOfName[name] = k
            return k
        }
        var multipleKeys: [Int32] = []
        func keys(_ names: [String]) -> Int32 {
            let start = Int32(multipleKeys.count)
            multipleKeys.append(Int32(names.count))
            for name in names { multipleKeys.append(key(name)) }
            return -1 - start
        }
        var folderHasCover: [PathKey: Bool] = [:]
        // Tracks of one folder come together: the last answer is asked first.
        var lastFolder: (volume: VolumeID, folder: String, cover: Bool)?
        var trackKeys: [TrackKeys] = []
        trackKeys.reserveCapacity(tracks.count)
        for i in tracks.indices {
            let volume = tracks[i].volume
            let folder = tracks[i].folder
            let cover: Bool
            if let last = lastFolder, PathKey.sameBytes(last.folder, folder), last.volume == volume {
                cover = last.cover
            } else {
                let folderKey = PathKey(volume.rawValue + "\u{1F}" + folder)
                if let known = folderHasCover[folderKey] {
                    cover = known
                } else {
                    cover = ArtworkLookup.coverFile(forFolder: folder, in: covers[volume] ?? [:]) != nil
                    folderHasCover[folderKey] = cover
                }
                lastFolder = (volume, folder, cover)
            }
            trackKeys.append(
                TrackKeys(
                    album: key(tracks[i].album), albumArtist: key(tracks[i].albumArtist),
                    artist: tracks[i].multipleArtists.map(keys) ?? key(tracks[i].artist),
                    genre: tracks[i].multipleGenres.map(keys) ?? key(tracks[i].genre),
                    hasArt: tracks[i].hasEmbeddedPicture || cover))
        }
        self.init(
            tracks: tracks, keys: trackKeys, keyNames: keyNames, multipleKeys: multipleKeys, ranks: ranks,
            problems: problems, mountPoints: mountPoints, covers: covers, limits: limits, playlists: playlists)
    }

    /// Per-track ranks, aligned with the tracks.
    private struct Ranks {
        let albumArtist: [Int32]
        let album: [Int32]
    }

    /// One category's groups while the catalog is built (temporary): each group's display name
    /// (the first spelling seen), first track and key number (artist, album artist, genre), and
    /// the (group, track) memberships in the order they were added.
    private struct Grouping {
        var names: [String] = []
        var firstTracks: [Int32] = []
        var keyNumbers: [Int32] = []
        var groupOf: [Int32] = []
        var trackOf: [Int32] = []

        var count: Int { names.count }

        /// Starts a group with `track`; returns its number.
        mutating func newGroup(_ name: String, _ track: Int, key: Int32 = -1) -> Int32 {
            names.append(name)
            firstTracks.append(Int32(track))
            keyNumbers.append(key)
            add(Int32(names.count - 1), track)
            return Int32(names.count - 1)
        }

        mutating func add(_ group: Int32, _ track: Int) {
            groupOf.append(group)
            trackOf.append(Int32(track))
        }

        /// The members of each group in the order they were added: group g's are
        /// `members[start[g]..<start[g + 1]]` (a stable counting sort).
        func grouped() -> (members: [Int32], start: [Int32]) {
            var start = [Int32](repeating: 0, count: count + 1)
            for group in groupOf { start[Int(group) + 1] += 1 }
            for g in 0..<count { start[g + 1] += start[g] }
            var next = start
            var members = [Int32](repeating: 0, count: groupOf.count)
            for (group, track) in zip(groupOf, trackOf) {
                members[Int(next[Int(group)])] = track
                next[Int(group)] += 1
            }
            return (members, start)
        }
    }

    /// Groups keyed by one key number each (artist, album artist, genre).
    private struct KeyedGrouping {
        var grouping = Grouping()
        /// Key number → group, -1 for none yet.
        var groupOfKey: [Int32]

        init(keys: Int) { groupOfKey = [Int32](repeating: -1, count: keys) }

        mutating func add(key: Int32, name: String, track: Int) {
            let group = groupOfKey[Int(key)]
            if group >= 0 {
                grouping.add(group, track)
            } else {
                groupOfKey[Int(key)] = grouping.newGroup(name, track, key: key)
            }
        }
    }

    /// One category laid out, before its collections are made: members sorted within each group,
    /// the groups' display order, keys, and what the collections' subtitles need.
    private struct CategoryPlan {
        var members: [Int32]
        var start: [Int32]
        var names: [String]
        var keys: [String]
        var order: [Int32]
        var representatives: [Int32]
        /// Albums among a group's tracks (artist, album artist, genre), else 0.
        var albumCounts: [Int32]
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

    /// Groups, sorts and lays out every category, then makes what the catalog keeps. The work
    /// comes in two phases so that what is kept is allocated together at the end, after the
    /// sorting and grouping scratch is gone: interleaved with it, the kept pieces would pin
    /// partly used pages (measured: the catalog cost 2.5× its bytes in resident memory).
    private convenience init(
        tracks: [Track], keys: [TrackKeys], keyNames: [String], multipleKeys: [Int32], ranks: Ranks,
        problems: [LibraryProblem], mountPoints: [VolumeID: String], covers: [VolumeID: [String: String]],
        limits: ScanLimits, playlists: [VolumeID: [ResolvedPlaylist]]
    ) {
        var keys = keys
        var plans: [(Category, CategoryPlan)] = []
        do {
            var groupings = Catalog.group(
                tracks: tracks, keys: &keys, keyNames: keyNames, multipleKeys: multipleKeys, mountPoints: mountPoints)
            // Playlists refer to tracks by volume and relative path.
            let paths = PathIndex(tracks)
            var playlist = Grouping()
            var playlistKeys: [String] = []
            for volume in playlists.keys.sorted() {
                for list in playlists[volume] ?? [] {
                    let members = list.trackPaths.compactMap {
                        paths.find(volume: volume, relativePath: $0, in: tracks)
                    }
                    guard let first = members.first else { continue }
                    let group = playlist.newGroup(list.name, first)
                    for member in members.dropFirst() { playlist.add(group, member) }
                    playlistKeys.append(volume.rawValue + "\u{1F}" + list.relativePath)
                }
            }
            groupings[.playlist] = playlist
            let titles = LazySortKeys(tracks.map(\.title))
            let fileNames = LazySortKeys(tracks.map(\.fileName))
            for category in Category.allCases {
                guard let grouping = groupings[category] else { continue }
                plans.append(
                    (
                        category,
                        Catalog.plan(
                            category, grouping, playlistKeys: playlistKeys, tracks: tracks, keys: keys,
                            keyNames: keyNames, ranks: ranks, titles: titles, fileNames: fileNames)
                    ))
            }
        }
        // What the catalog keeps, made together.
        var lists: [Category: CategoryList] = [:]
        for (category, plan) in plans {
            var list = CategoryList()
            list.collections.reserveCapacity(plan.order.count)
            list.start.reserveCapacity(plan.order.count + 1)
            list.members.reserveCapacity(plan.members.count)
            list.positions.reserveCapacity(plan.order.count)
            for group in plan.order.map(Int.init) {
                let members = plan.members[Int(plan.start[group])..<Int(plan.start[group + 1])]
                list.members.append(contentsOf: members)
                list.start.append(Int32(list.members.count))
                list.positions[plan.keys[group]] = list.collections.count
                list.collections.append(
                    Catalog.collection(
                        category, key: plan.keys[group], name: plan.names[group],
                        representative: tracks[Int(plan.representatives[group])], trackCount: members.count,
                        albums: Int(plan.albumCounts[group])))
            }
            lists[category] = list
        }
        plans = []
        self.init(
            allTracks: tracks, problems: problems, lists: lists, keys: keys, keyNames: keyNames,
            multipleKeys: multipleKeys, mountPoints: mountPoints, covers: covers, limits: limits,
            paths: PathIndex(tracks))
    }

    /// Each track into its album, album artist, artists, genres and folder (sets `albumGroup`).
    private static func group(
        tracks: [Track], keys: inout [TrackKeys], keyNames: [String], multipleKeys: [Int32],
        mountPoints: [VolumeID: String]
    ) -> [Category: Grouping] {
        var album = Grouping()
        var albumOfKeys: [Int64: Int32] = [:]
        var albumArtist = KeyedGrouping(keys: keyNames.count)
        var artist = KeyedGrouping(keys: keyNames.count)
        var genre = KeyedGrouping(keys: keyNames.count)
        var folder = Grouping()
        var folderOfKey: [PathKey: Int32] = [:]
        /// Adds track `i` to the groups of `key` (one key, or several: each distinct one once).
        func add(_ groups: inout KeyedGrouping, key: Int32, names: @autoclosure () -> [String], _ i: Int) {
            if key >= 0 {
                groups.add(key: key, name: names()[0], track: i)
                return
            }
            let start = Int(-1 - key)
            var seen: Set<Int32> = []
            for (n, name) in names().enumerated() {
                let k = multipleKeys[start + 1 + n]
                if seen.insert(k).inserted { groups.add(key: k, name: name, track: i) }
            }
        }
        // Tracks come in canonical order, so an album's tracks (and often a folder's) are
        // neighbours: when a track's key equals the previous track's, nothing is looked up.
        var previousFolderGroup: Int32 = 0
        for i in tracks.indices {
            let k = keys[i]
            if i > 0 && keys[i - 1].albumArtist == k.albumArtist && keys[i - 1].album == k.album {
                album.add(keys[i - 1].albumGroup, i)
                keys[i].albumGroup = keys[i - 1].albumGroup
            } else {
                let both = Int64(k.albumArtist) << 32 | Int64(k.album)
                if let group = albumOfKeys[both] {
                    album.add(group, i)
                    keys[i].albumGroup = group
                } else {
                    let group = album.newGroup(tracks[i].album, i)
                    albumOfKeys[both] = group
                    keys[i].albumGroup = group
                }
            }
            albumArtist.add(key: k.albumArtist, name: tracks[i].albumArtist, track: i)
            add(&artist, key: k.artist, names: tracks[i].artistNames, i)
            add(&genre, key: k.genre, names: tracks[i].genreNames, i)
            if i > 0 && PathKey.sameBytes(tracks[i].folder, tracks[i - 1].folder)
                && tracks[i].volume == tracks[i - 1].volume
            {
                folder.add(previousFolderGroup, i)
            } else {
                let key = PathKey(tracks[i].volume.rawValue + "\u{1F}" + tracks[i].folder)
                if let group = folderOfKey[key] {
                    folder.add(group, i)
                    previousFolderGroup = group
                } else {
                    previousFolderGroup = folder.newGroup(Catalog.folderName(tracks[i], mountPoints), i)
                    folderOfKey[key] = previousFolderGroup
                }
            }
        }
        return [
            .album: album, .albumArtist: albumArtist.grouping, .artist: artist.grouping, .genre: genre.grouping,
            .folder: folder,
        ]
    }

    /// Sorts a category's members within each group and its groups for display.
    private static func plan(
        _ category: Category, _ grouping: Grouping, playlistKeys: [String], tracks: [Track], keys: [TrackKeys],
        keyNames: [String], ranks: Ranks, titles: LazySortKeys, fileNames: LazySortKeys
    ) -> CategoryPlan {
        var (members, start) = grouping.grouped()
        let count = grouping.count
        for g in 0..<count {
            let range = Int(start[g])..<Int(start[g + 1])
            switch category {
            case .album:
                members[range].sort { Catalog.discTrackLess(Int($0), Int($1), tracks, ranks, titles) }
            case .artist, .albumArtist:
                members[range].sort { Catalog.albumOrderLess(Int($0), Int($1), tracks, ranks, titles) }
            case .genre:
                break  // canonical order already
            case .folder:
                // A folder plays in file-name order, as a file manager lists it.
                members[range].sort { fileNames.less(Int($0), Int($1)) }
            case .playlist:
                break  // list order
            }
        }
        func key(_ g: Int) -> String {
            let first = Int(grouping.firstTracks[g])
            switch category {
            case .album:
                return keyNames[Int(keys[first].albumArtist)] + "\u{1F}" + keyNames[Int(keys[first].album)]
            case .artist, .albumArtist, .genre:
                return keyNames[Int(grouping.keyNumbers[g])]
            case .folder:
                return tracks[first].volume.rawValue + "\u{1F}" + tracks[first].folder
            case .playlist:
                return playlistKeys[g]
            }
        }
        let groupKeys = (0..<count).map(key)
        var representatives = [Int32](repeating: 0, count: count)
        var albumCounts = [Int32](repeating: 0, count: count)
        for g in 0..<count {
            let group = members[Int(start[g])..<Int(start[g + 1])]
            // Embedded art first (it has precedence), then a cover file, then simply the first track.
            representatives[g] =
                group.first { tracks[Int($0)].hasEmbeddedPicture } ?? group.first { keys[Int($0)].hasArt }
                ?? group.first!
            switch category {
            case .artist, .albumArtist, .genre:
                albumCounts[g] = Int32(Set(group.map { keys[Int($0)].albumGroup }).count)
            default:
                break
            }
        }
        let sortKeys = (0..<count).map { g -> SortKey in
            switch category {
            case .artist, .albumArtist: return SortKey(grouping.names[g], ignoringArticle: true)
            case .folder: return SortKey(tracks[Int(members[Int(start[g])])].folder + "\u{1F}" + groupKeys[g])
            default: return SortKey(grouping.names[g])
            }
        }
        let fallbacks = grouping.names.map { name -> Bool in
            switch category {
            case .album: return name == Track.unknownAlbum
            case .artist, .albumArtist: return name == Track.unknownArtist
            case .genre: return name == Track.unknownGenre
            default: return false
            }
        }
        let order = (0..<Int32(count)).sorted { a, b in
            let (x, y) = (Int(a), Int(b))
            if fallbacks[x] != fallbacks[y] { return !fallbacks[x] }
            if sortKeys[x] != sortKeys[y] { return sortKeys[x] < sortKeys[y] }
            if category == .album {
                let p = ranks.albumArtist[Int(members[Int(start[x])])]
                let q = ranks.albumArtist[Int(members[Int(start[y])])]
                if p != q { return p < q }
            }
            return groupKeys[x] < groupKeys[y]
        }
        return CategoryPlan(
            members: members, start: start, names: grouping.names, keys: groupKeys, order: order,
            representatives: representatives, albumCounts: albumCounts)
    }

    /// This catalog without the tracks, playlists and problems of `removed` volumes; order is
    /// kept, so nothing is sorted again (cheap enough for the loop thread).
    public func removing(volumes removed: Set<VolumeID>) -> Catalog {
        if removed.isDisjoint(with: mountPoints.keys) { return self }
        return keeping(
            { !removed.contains($0.volume) }, problems: problems.filter { !removed.contains($0.volume) },
            mountPoints: mountPoints.filter { !removed.contains($0.key) },
            covers: covers.filter { !removed.contains($0.key) })
    }

    /// This catalog without the tracks of `volume` that the background `PlayabilityPass` found
    /// unplayable (`gone`, relative paths), `failed` added to the problems; order is kept, as in
    /// `removing(volumes:)`.
    func removing(unplayable gone: Set<String>, of volume: VolumeID, problems failed: [LibraryProblem]) -> Catalog {
        keeping(
            { $0.volume != volume || !gone.contains($0.relativePath) }, problems: problems + failed,
            mountPoints: mountPoints, covers: covers)
    }

    /// This catalog with only the tracks `keep` says, and the given problems, mount points and
    /// covers; collections left empty go, the others keep their order.
    private func keeping(
        _ keep: (Track) -> Bool, problems: [LibraryProblem], mountPoints: [VolumeID: String],
        covers: [VolumeID: [String: String]]
    ) -> Catalog {
        var remap = [Int32](repeating: -1, count: allTracks.count)
        var tracks: [Track] = []
        var keys: [TrackKeys] = []
        for (i, track) in allTracks.enumerated() where keep(track) {
            remap[i] = Int32(tracks.count)
            tracks.append(track)
            keys.append(self.keys[i])
        }
        var lists: [Category: CategoryList] = [:]
        for (category, old) in self.lists {
            var list = CategoryList()
            for (position, collection) in old.collections.enumerated() {
                let members = old.members(of: position).compactMap { remap[Int($0)] >= 0 ? remap[Int($0)] : nil }
                if members.isEmpty { continue }
                let updated: Collection
                if members.count == old.members(of: position).count {
                    updated = collection
                } else {
                    let representative =
                        members.first { tracks[Int($0)].hasEmbeddedPicture } ?? members.first { keys[Int($0)].hasArt }
                        ?? members[0]
                    let albums = Set(members.map { keys[Int($0)].albumGroup }).count
                    updated = Catalog.collection(
                        category, key: collection.key, name: collection.name,
                        representative: tracks[Int(representative)], trackCount: members.count, albums: albums)
                }
                list.positions[collection.key] = list.collections.count
                list.collections.append(updated)
                list.members.append(contentsOf: members)
                list.start.append(Int32(list.members.count))
            }
            lists[category] = list
        }
        return Catalog(
            allTracks: tracks, problems: problems, lists: lists, keys: keys, keyNames: keyNames,
            multipleKeys: multipleKeys, mountPoints: mountPoints, covers: covers, limits: limits,
            paths: PathIndex(tracks))
    }

    private init(
        allTracks: [Track], problems: [LibraryProblem], lists: [Category: CategoryList], keys: [TrackKeys],
        keyNames: [String], multipleKeys: [Int32], mountPoints: [VolumeID: String],
        covers: [VolumeID: [String: String]], limits: ScanLimits, paths: PathIndex
    ) {
        self.paths = paths
        self.allTracks = allTracks
        self.problems = problems
        self.lists = lists
        self.keys = keys
        self.keyNames = keyNames
        self.multipleKeys = multipleKeys
        self.mountPoints = mountPoints
        self.covers = covers
        self.limits = limits
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

    private static func collection(
        _ category: Category, key: String, name: String, representative: Track, trackCount count: Int, albums: Int
    ) -> Collection {
        let tracksText = count == 1 ? "1 track" : "\(count) tracks"
        let subtitle: String
        switch category {
        case .album:
            subtitle = "\(representative.albumArtist) · \(tracksText)"
        case .artist, .albumArtist, .genre:
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

extension Catalog: CatalogSnapshot {}
