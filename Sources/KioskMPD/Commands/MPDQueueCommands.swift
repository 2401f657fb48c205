import KioskLibrary

/// The queue ("the current playlist" in MPD's words; src/command/QueueCommands.cxx). Thread: loop thread.
enum MPDQueueCommands {
    static func playlistInfo(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let count = s.player.queue.count
        guard let argument = r.optional(0) else { return entries(s, r.connection, 0..<count) }
        let range = try MPDArgument.range(argument)
        let end = min(range.end ?? count, count)
        guard range.start < end || (range.start == 0 && count == 0 && range.end == nil) else {
            throw .argument("Bad song index")
        }
        return entries(s, r.connection, range.start..<max(range.start, end))
    }

    static func playlistID(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        guard let argument = r.optional(0) else { return entries(s, r.connection, 0..<s.player.queue.count) }
        let id = try MPDArgument.unsigned(argument)
        guard let position = s.state.position(ofID: id) else { throw .noExist("No such song") }
        return entries(s, r.connection, position..<position + 1)
    }

    /// `plchanges VERSION [START:END]`: the entries changed since the queue's version VERSION.
    static func changes(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let changed = try changedEntries(s, r)
        let queue = s.player.queue
        let ids = s.state.ids
        let tags = r.connection.tagMask
        return .stream(
            ItemProducer(count: changed.count) { [unowned s] i, out in
                let position = changed[i]
                MPDFormat.song(
                    queue[position], uri: s.uri(of: queue[position]), tags: tags, queue: (position, ids[position]),
                    to: &out)
            })
    }

    /// `plchangesposid VERSION [START:END]`: positions and IDs only.
    static func changedPositions(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let ids = s.state.ids
        for position in try changedEntries(s, r) { r.connection.write("cpos: \(position)\nId: \(ids[position])\n") }
        return .done
    }

    private static func changedEntries(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> [Int] {
        let version = try MPDArgument.int(r[0])
        let count = s.player.queue.count
        var range = 0..<count
        if let argument = r.optional(1) {
            let given = try MPDArgument.range(argument)
            range = min(given.start, count)..<min(given.end ?? count, count)
        }
        let versions = s.state.entryVersions
        return range.filter { $0 < versions.count && versions[$0] > version }
    }

    static func add(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let tracks = try tracksForAdd(s, r[0])
        let position = try insertPosition(s, r.optional(1))
        s.player.perform(.insert(tracks, at: position), from: .remote)
        return s.changed()
    }

    /// `addid URI [POSITION]`: one song, answering its queue ID.
    static func addID(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let tracks = try tracksForAdd(s, r[0])
        if tracks.count != 1 { throw .noExist("No such song") }
        let position = try insertPosition(s, r.optional(1))
        // Where the song lands: `position` (checked by insertPosition), or the end.
        let first = position ?? s.player.queue.count
        s.player.perform(.insert(tracks, at: position), from: .remote)
        s.noteChanges()
        if first < s.state.ids.count { r.connection.write("Id: \(s.state.ids[first])\n") }
        return .done
    }

    static func delete(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let range = try MPDArgument.range(r[0])
        let count = s.player.queue.count
        guard range.start < count else { throw .argument("Bad song index") }
        s.player.perform(.delete(range.start..<min(range.end ?? count, count)), from: .remote)
        return s.changed()
    }

    static func deleteID(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let id = try MPDArgument.unsigned(r[0])
        guard let position = s.state.position(ofID: id) else { throw .noExist("No such song") }
        s.player.perform(.delete(position..<position + 1), from: .remote)
        return s.changed()
    }

    static func clear(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        s.player.perform(.clear, from: .remote)
        return s.changed()
    }

    static func move(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let range = try MPDArgument.range(r[0])
        let to = try MPDArgument.int(r[1])
        let count = s.player.queue.count
        let end = min(range.end ?? count, count)
        guard range.start < end, s.player.perform(.move(range.start..<end, to: to), from: .remote) else {
            throw .argument("Bad song index")
        }
        return s.changed()
    }

    /// Queue entries `range` with their positions and IDs, written as the client reads.
    private static func entries(_ s: MPDServer, _ c: MPDConnection, _ range: Range<Int>) -> MPDOutcome {
        let queue = s.player.queue
        let ids = s.state.ids
        let tags = c.tagMask
        let start = range.lowerBound
        return .stream(
            ItemProducer(count: range.count) { [unowned s] i, out in
                let position = start + i
                MPDFormat.song(
                    queue[position], uri: s.uri(of: queue[position]), tags: tags,
                    queue: (position, position < ids.count ? ids[position] : 0), to: &out)
            })
    }

    /// The tracks a URI names for `add`: one song, or everything under a directory.
    static func tracksForAdd(_ s: MPDServer, _ uri: String) throws(MPDError) -> [Track] {
        let db = s.database
        if uri.hasPrefix("/") && uri != "/" || uri.hasPrefix("file:") { throw .noExist("No such song") }
        if uri.contains("://") { throw .noExist("Unsupported URI scheme") }
        switch db.locate(uri) {
        case .song(let index): return [db.catalog.allTracks[index]]
        case .directory(let path): return db.tracks(under: path).map { db.catalog.allTracks[$0] }
        case .root: return db.tracks(under: "").map { db.catalog.allTracks[$0] }
        case nil: throw .noExist("No such directory")
        }
    }

    /// A queue position argument: `N`, or `+N`/`-N` relative to the current entry.
    static func insertPosition(_ s: MPDServer, _ argument: String?) throws(MPDError) -> Int? {
        guard let argument else { return nil }
        let count = s.player.queue.count
        let value = try MPDArgument.int(argument)
        var position = value
        if argument.hasPrefix("+") {
            position = s.player.queueIndex + 1 + value
        } else if argument.hasPrefix("-") {
            position = s.player.queueIndex + value
        }
        guard position >= 0, position <= count else { throw .argument("Bad song index") }
        return position
    }
}
