// SPDX-License-Identifier: GPL-3.0-or-later
import KioskLibrary

/// The music database: the catalog of the mounted sticks and folders, as MPD's directories and
/// songs (MPD's src/command/DatabaseCommands.cxx and FileCommands.cxx). Thread: loop thread.
enum MPDDatabaseCommands {
    static func lsinfo(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let c = r.connection
        let uri = r.optional(0) ?? ""
        let db = s.database
        if uri.hasPrefix("/") && uri != "/" || uri.contains("://") { throw .noExist("No such file") }
        switch db.locate(uri) {
        case .song(let index):
            MPDFormat.song(db.catalog.allTracks[index], uri: db.uri(ofTrackAt: index), tags: c.tagMask, to: &c.output)
            return .done
        case .root:
            // MPD lists the stored playlists after the root directory (handle_lsinfo_relative).
            return directoryListing(c, db, "", then: MPDPlaylistCommands.listedPlaylists(s))
        case .directory(let path):
            return directoryListing(c, db, path)
        case nil:
            throw .noExist("No such directory")
        }
    }

    /// A directory's songs, playlists and subdirectories, in MPD's walk order, each playlist and
    /// subdirectory with its Last-Modified.
    /// `playlists` follow the entries (the stored playlists after the root's, as MPD's
    /// handle_lsinfo_relative prints them), one item each.
    private static func directoryListing(
        _ c: MPDConnection, _ db: MPDDatabase, _ path: String, then playlists: [MPDPlaylistCommands.Listed] = []
    ) -> MPDOutcome {
        var entries: [MPDDatabase.WalkEntry] = []
        db.walk(path, recursive: false) { entries.append($0) }
        let tags = c.tagMask
        return .stream(
            ItemProducer(count: entries.count + playlists.count) { i, out in
                if i >= entries.count {
                    MPDPlaylistCommands.printListed(playlists[i - entries.count], to: &out)
                } else {
                    entry(entries[i], db, tags: tags, info: true, to: &out)
                }
            })
    }

    /// One entry of a walk as `lsinfo`/`listallinfo` (`info`) or `listall` print it.
    private static func entry(
        _ entry: MPDDatabase.WalkEntry, _ db: MPDDatabase, tags: Set<MPDTag>, info: Bool, to out: inout [UInt8]
    ) {
        switch entry {
        case .song(let index):
            if info {
                MPDFormat.song(db.catalog.allTracks[index], uri: db.uri(ofTrackAt: index), tags: tags, to: &out)
            } else {
                MPDFormat.pair("file", db.uri(ofTrackAt: index), to: &out)
            }
        case .playlist(let index):
            let playlist = db.playlists[index]
            MPDFormat.pair("playlist", playlist.uri, to: &out)
            if info {
                MPDFormat.pair("Last-Modified", MPDTime.iso8601(nanoseconds: playlist.modificationTime), to: &out)
            }
        case .directory(let path):
            MPDFormat.pair("directory", path, to: &out)
            if info, let time = db.modificationTime(ofDirectory: path) {
                MPDFormat.pair("Last-Modified", MPDTime.iso8601(nanoseconds: time), to: &out)
            }
        }
    }

    static func listAll(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        try listAll(s, r.connection, r.optional(0) ?? "", info: false)
    }

    static func listAllInfo(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        try listAll(s, r.connection, r.optional(0) ?? "", info: true)
    }

    /// Everything under `uri`, depth first; songs with their tags when `info`.
    private static func listAll(_ s: MPDServer, _ c: MPDConnection, _ uri: String, info: Bool) throws(MPDError)
        -> MPDOutcome
    {
        let db = s.database
        var root = ""
        switch db.locate(uri) {
        case .song(let index):
            if info {
                MPDFormat.song(
                    db.catalog.allTracks[index], uri: db.uri(ofTrackAt: index), tags: c.tagMask, to: &c.output)
            } else {
                c.write("file: \(db.uri(ofTrackAt: index))\n")
            }
            return .done
        case .directory(let path): root = path
        case .root: root = ""
        case nil: throw .noExist("No such directory")
        }
        // The directory itself, then MPD's walk: songs, playlists, each subdirectory and its contents.
        var entries: [MPDDatabase.WalkEntry] = root.isEmpty ? [] : [.directory(root)]
        db.walk(root) { entries.append($0) }
        let tags = c.tagMask
        return .stream(
            ItemProducer(count: entries.count) { i, out in
                entry(entries[i], db, tags: tags, info: info, to: &out)
            })
    }

    /// Splits `sort TAG` and `window START:END` off the end of find/search arguments.
    private static func findOptions(_ a: [String]) throws(MPDError) -> (
        filter: ArraySlice<String>, sort: (tag: MPDTag?, descending: Bool)?, window: (Int, Int?)?
    ) {
        var rest = a[...]
        var sort: (MPDTag?, Bool)?
        var window: (Int, Int?)?
        while rest.count >= 3 {
            let name = rest[rest.endIndex - 2]
            let value = rest[rest.endIndex - 1]
            if name == "window" {
                let range = try MPDArgument.range(value)
                window = (range.start, range.end)
            } else if name == "sort" {
                let descending = value.hasPrefix("-")
                let tagName = descending ? String(value.dropFirst()) : value
                guard MPDTag.knownNames.contains(tagName.lowercased()) || tagName == "Last-Modified" else {
                    throw .argument("Unknown sort tag")
                }
                sort = (MPDTag(name: tagName), descending)
            } else {
                break
            }
            rest = rest.dropLast(2)
        }
        return (rest, sort, window)
    }

    /// The catalog's tracks that match (indices into `allTracks`), in the order MPD walks its
    /// database (folders by name, each folder's subfolders before its songs).
    private static func matching(_ filter: MPDFilter, _ db: MPDDatabase) throws(MPDError) -> [Int] {
        let tracks = db.catalog.allTracks
        let found = db.walkOrder.filter { filter.matches(tracks[$0], uri: db.uri(ofTrackAt: $0)) }
        if filter.regexExhausted { throw MPDFilter.regexTooCostly }
        return found
    }

    static func find(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        try find(s, r.connection, r.arguments, foldCase: false, addToQueue: false)
    }

    static func search(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        try find(s, r.connection, r.arguments, foldCase: true, addToQueue: false)
    }

    /// `findadd FILTER [sort TAG] [window START:END] [position POS]` (POS as `add` takes it, 0.23).
    static func findAdd(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let (arguments, position) = try queuePosition(s, r.arguments)
        return try find(s, r.connection, arguments, foldCase: false, addToQueue: true, at: position)
    }

    static func searchAdd(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let (arguments, position) = try queuePosition(s, r.arguments)
        return try find(s, r.connection, arguments, foldCase: true, addToQueue: true, at: position)
    }

    /// A trailing `position POS` (MPD's `ParseInsertPosition` of DatabaseCommands.cxx): the
    /// arguments before it and where the songs go (nil: the end).
    private static func queuePosition(_ s: MPDServer, _ a: [String]) throws(MPDError) -> ([String], Int?) {
        guard a.count >= 2, a[a.count - 2] == "position" else { return (a, nil) }
        return (Array(a.dropLast(2)), try MPDQueueCommands.insertPosition(s, a[a.count - 1]))
    }

    /// `searchaddpl NAME FILTER [sort TAG] [window START:END] [position POS]`: the songs a search
    /// matches into a stored playlist (at POS, else at its end).
    static func searchAddPlaylist(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        var a = Array(r.arguments.dropFirst())
        var position: Int?
        if a.count >= 2 && a[a.count - 2] == "position" {
            position = try MPDArgument.unsigned(a[a.count - 1])
            a.removeLast(2)
        }
        return try find(s, r.connection, a, foldCase: true, addToQueue: false, toPlaylist: (r[0], position))
    }

    /// The songs a filter matches (case folded for search), sorted and windowed; listed or queued.
    private static func find(
        _ s: MPDServer, _ c: MPDConnection, _ a: [String], foldCase: Bool, addToQueue: Bool, at position: Int? = nil,
        toPlaylist: (name: String, position: Int?)? = nil
    ) throws(MPDError) -> MPDOutcome {
        let options = try findOptions(a)
        let filter = try MPDFilter.parse(options.filter, foldCase: foldCase)
        let db = s.database
        var found = try matching(filter, db)
        if let sort = options.sort {
            let tracks = db.catalog.allTracks
            // MPD's order: by sort value (Track and Disc as numbers), stable.
            let keys = found.map { sort.tag?.sortValue(of: tracks[$0]) ?? "" }
            let numeric = sort.tag == .track || sort.tag == .disc
            func before(_ a: String, _ b: String) -> Bool {
                numeric ? Self.leadingNumber(a) < Self.leadingNumber(b) : a.utf8.lexicographicallyPrecedes(b.utf8)
            }
            let order = found.indices.sorted { x, y in
                let (a, b) = sort.descending ? (keys[y], keys[x]) : (keys[x], keys[y])
                return before(a, b) || (!before(b, a) && x < y)
            }
            found = order.map { found[$0] }
        }
        if let (start, end) = options.window {
            let upper = min(end ?? found.count, found.count)
            found = start < upper ? Array(found[start..<upper]) : []
        }
        if let (name, position) = toPlaylist {
            try MPDPlaylistCommands.insert(s, name, found.map { db.uri(ofTrackAt: $0) }, at: position)
            return .done
        }
        if addToQueue {
            try s.checkQueueRoom(for: found.count)
            s.player.perform(.insert(found.map { db.catalog.allTracks[$0] }, at: position), from: .remote)
            return s.changed()
        }
        let tags = c.tagMask
        // MPD sorts copies of its songs that have no audio format: no Format line then.
        let format = options.sort == nil
        return .stream(
            ItemProducer(count: found.count) { i, out in
                let index = found[i]
                MPDFormat.song(
                    db.catalog.allTracks[index], uri: db.uri(ofTrackAt: index), tags: tags, format: format, to: &out)
            })
    }

    /// The number a Track or Disc value starts with (MPD's `CompareNumeric`), 0 for none.
    private static func leadingNumber(_ text: String) -> Int {
        var n = 0
        for byte in text.utf8 {
            guard byte >= 0x30 && byte <= 0x39, n < 100_000_000 else { break }
            n = n * 10 + Int(byte - 0x30)
        }
        return n
    }

    /// `list TYPE [FILTER] [group GROUPTYPE ...]`.
    static func list(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let a = r.arguments
        let typeName = a[0]
        let isFile = typeName.lowercased() == "file"
        guard isFile || MPDTag.knownNames.contains(typeName.lowercased()) else {
            throw .argument("Unknown tag type: \(typeName)")
        }
        var rest = a.dropFirst()
        var groups: [String] = []
        while rest.count >= 2 && rest[rest.endIndex - 2] == "group" {
            let name = rest[rest.endIndex - 1]
            guard MPDTag.knownNames.contains(name.lowercased()) else { throw .argument("Unknown tag type: \(name)") }
            groups.insert(name, at: 0)
            rest = rest.dropLast(2)
        }
        var filter: MPDFilter?
        if rest.count == 1 && !(rest.first?.hasPrefix("(") ?? false) {
            // The old "list album ARTIST".
            guard typeName.lowercased() == "album" else {
                throw .argument("should be \"Album\" for 3 arguments")
            }
            filter = .tag(
                .tag(.artist), .init(rest[rest.startIndex], foldCase: false, substring: false, negated: false))
        } else if !rest.isEmpty {
            filter = try MPDFilter.parse(rest, foldCase: false)
        }
        let db = s.database
        let tracks =
            try filter.map { (f) throws(MPDError) in try matching(f, db) } ?? Array(db.catalog.allTracks.indices)
        func values(_ name: String, _ index: Int) -> [String] {
            if name.lowercased() == "file" { return [db.uri(ofTrackAt: index)] }
            let found = MPDTag(name: name)?.valuesWithFallback(of: db.catalog.allTracks[index]) ?? []
            // A song without the tag (nor its fallbacks) counts as an empty value, as in MPD.
            return found.isEmpty ? [""] : found
        }
        let typeLabel = isFile ? "file" : MPDTag.canonicalName(typeName)
        // Grouping: each combination of group values, then the type's values in it.
        var lines: [String] = []
        func emit(_ subset: [Int], level: Int) {
            if level == groups.count {
                var seen = Set<String>()
                for index in subset { for value in values(typeName, index) { seen.insert(value) } }
                for value in seen.sorted() where !(isFile && value.isEmpty) { lines.append("\(typeLabel): \(value)") }
                return
            }
            var byValue: [String: [Int]] = [:]
            for index in subset {
                for value in values(groups[level], index) { byValue[value, default: []].append(index) }
            }
            let label = MPDTag.canonicalName(groups[level])
            for value in byValue.keys.sorted() {
                lines.append("\(label): \(value)")
                emit(byValue[value]!, level: level + 1)
            }
        }
        emit(tracks, level: 0)
        return .stream(
            ItemProducer(count: lines.count) { i, out in
                out.append(contentsOf: lines[i].utf8)
                out.append(0x0A)
            })
    }

    static func count(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let c = r.connection
        let a = r.arguments
        var rest = a[...]
        var group: String?
        if rest.count >= 2 && rest[rest.endIndex - 2] == "group" {
            let name = rest[rest.endIndex - 1]
            guard MPDTag.knownNames.contains(name.lowercased()) else { throw .argument("Unknown tag type: \(name)") }
            group = name
            rest = rest.dropLast(2)
        }
        let db = s.database
        let found =
            rest.isEmpty
            ? Array(db.catalog.allTracks.indices) : try matching(try MPDFilter.parse(rest, foldCase: false), db)
        func seconds(_ list: [Int]) -> Int {
            Int(list.reduce(0.0) { $0 + (db.catalog.allTracks[$1].durationSeconds ?? 0) }.rounded())
        }
        guard let group else {
            c.write("songs: \(found.count)\nplaytime: \(seconds(found))\n")
            return .done
        }
        var byValue: [String: [Int]] = [:]
        for index in found {
            let values = MPDTag(name: group)?.valuesWithFallback(of: db.catalog.allTracks[index]) ?? []
            for value in values.isEmpty ? [""] : values { byValue[value, default: []].append(index) }
        }
        for value in byValue.keys.sorted() {
            let list = byValue[value]!
            c.write("\(MPDTag.canonicalName(group)): \(value)\nsongs: \(list.count)\nplaytime: \(seconds(list))\n")
        }
        return .done
    }

    /// `update`/`rescan [URI]`: the whole library is scanned again (scans are incremental anyway).
    static func update(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        if let path = r.optional(0), !path.isEmpty, s.database.locate(path) == nil {
            throw .argument("Malformed path")
        }
        s.library?.rescanAll()
        // Seen as scanning now, so that its end is an "update" change (mpc update --wait).
        s.noteChanges()
        r.connection.write("updating_db: 1\n")
        return .done
    }
}
