// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
import KioskLibrary
import KioskModel

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
        let position = try s.position(ofID: argument)
        return entries(s, r.connection, position..<position + 1)
    }

    /// `plchanges VERSION [START:END]`: the entries changed since the queue's version VERSION.
    static func changes(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        entries(s, r.connection, try changedEntries(s, r))
    }

    /// `plchangesposid VERSION [START:END]`: positions and IDs only.
    static func changedPositions(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let ids = s.player.playQueue.identity.songIDs
        for position in try changedEntries(s, r) { r.connection.write("cpos: \(position)\nId: \(ids[position])\n") }
        return .done
    }

    private static func changedEntries(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> [Int] {
        guard let version = UInt32(r[0]) else { throw .argument("Integer expected: \(r[0])") }
        let count = s.player.queue.count
        var range = 0..<count
        if let argument = r.optional(1) {
            let given = try MPDArgument.range(argument)
            range = min(given.start, count)..<min(given.end ?? count, count)
        }
        return s.player.playQueue.identity.changed(since: version, in: range)
    }

    static func add(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let tracks = try tracksForAdd(s, r[0])
        let position = try insertPosition(s, r.optional(1))
        try s.checkQueueRoom(for: tracks.count)
        s.player.perform(.insert(tracks, at: position), from: .remote)
        return s.changed()
    }

    /// `addid URI [POSITION]`: one song, answering its queue ID (which it keeps until it leaves).
    static func addID(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let tracks = try tracksForAdd(s, r[0])
        if tracks.count != 1 { throw .noExist("No such song") }
        let position = try insertPosition(s, r.optional(1))
        // Where the song lands: `position` (checked by insertPosition), or the end.
        let first = position ?? s.player.queue.count
        try s.checkQueueRoom(for: tracks.count)
        s.player.perform(.insert(tracks, at: position), from: .remote)
        s.noteChanges()
        let marks = s.player.playQueue.identity.marks
        if first < marks.count { r.connection.write("Id: \(marks[first].songID)\n") }
        return .done
    }

    static func delete(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let range = try clippedRange(s, r[0])
        if !range.isEmpty { s.player.perform(.delete(range), from: .remote) }
        return s.changed()
    }

    static func deleteID(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let position = try s.position(ofID: r[0])
        s.player.perform(.delete(position..<position + 1), from: .remote)
        return s.changed()
    }

    static func clear(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        s.player.perform(.clear, from: .remote)
        return s.changed()
    }

    /// `move FROM[:TO] DEST`: DEST absolute, or `+N`/`-N` relative to the current song (0.23).
    static func move(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let given = try MPDArgument.range(r[0])
        guard let end = given.end else { throw .argument("Open-ended range not supported") }
        return try move(s, given.start..<end, to: r[1])
    }

    /// `moveid ID DEST`.
    static func moveID(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let position = try s.position(ofID: r[0])
        return try move(s, position..<position + 1, to: r[1])
    }

    private static func move(_ s: MPDServer, _ range: Range<Int>, to argument: String) throws(MPDError) -> MPDOutcome {
        // The destination first (MPD: "No current song" before a range out of the queue).
        let to = try moveDestination(s, argument, range: range)
        guard !range.isEmpty, range.upperBound <= s.player.queue.count,
            s.player.perform(.move(range, to: to), from: .remote)
        else { throw .argument("Bad song index") }
        return s.changed()
    }

    /// MPD's `ParseMoveDestination`: `+N`/`-N` count from the current song as it will be once the
    /// range is taken out; the current song cannot move relative to itself.
    private static func moveDestination(_ s: MPDServer, _ argument: String, range: Range<Int>) throws(MPDError) -> Int {
        let count = s.player.queue.count
        // MPD's limits are unsigned: a range longer than the queue makes them wrap to huge ones
        // (the move then fails as "Bad song index").
        func limit(_ value: Int) -> Int { value < 0 ? Int(UInt32.max) : value }
        guard let sign = argument.first, sign == "+" || sign == "-" else {
            return try MPDArgument.unsigned(argument, max: limit(count - range.count))
        }
        var current = try requireCurrent(s)
        if range.contains(current) { throw .argument("Cannot move current song relative to itself") }
        if current >= range.upperBound { current -= range.count }
        let offset = try MPDArgument.unsigned(String(argument.dropFirst()), max: limit(count - current - range.count))
        return sign == "+" ? current + 1 + offset : current - offset
    }

    /// `playlist` (deprecated in MPD, still sent by old clients): "POS:file: URI" lines.
    static func playlist(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let queue = s.player.queue
        return .stream(
            ItemProducer(count: queue.count) { [unowned s] i, out in
                MPDFormat.pair("\(i):file", s.uri(of: queue[i]), to: &out)
            })
    }

    /// `swap POS1 POS2`.
    static func swap(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let a = try MPDArgument.unsigned(r[0], max: Int(UInt32.max))
        let b = try MPDArgument.unsigned(r[1], max: Int(UInt32.max))
        guard s.player.perform(.swap(a, b), from: .remote) else { throw .argument("Bad song index") }
        return s.changed()
    }

    /// `swapid ID1 ID2`.
    static func swapID(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let a = try s.position(ofID: r[0])
        let b = try s.position(ofID: r[1])
        s.player.perform(.swap(a, b), from: .remote)
        return s.changed()
    }

    /// `shuffle [START:END]`: the entries' positions in random order (not random mode).
    static func shuffle(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let range = try r.optional(0).map { (a) throws(MPDError) in try clippedRange(s, a) } ?? 0..<s.player.queue.count
        s.player.perform(.shuffleEntries(range), from: .remote)
        return s.changed()
    }

    /// `prio PRIORITY START:END...`.
    static func priority(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let priority = UInt8(try MPDArgument.unsigned(r[0], max: 255))
        var ranges: [Range<Int>] = []
        for argument in r.arguments.dropFirst() { ranges.append(try clippedRange(s, argument)) }
        for range in ranges { s.player.perform(.setPriority(priority, range), from: .remote) }
        return s.changed()
    }

    /// `prioid PRIORITY ID...`.
    static func priorityID(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let priority = UInt8(try MPDArgument.unsigned(r[0], max: 255))
        var positions: [Int] = []
        for argument in r.arguments.dropFirst() { positions.append(try s.position(ofID: argument)) }
        for position in positions { s.player.perform(.setPriority(priority, position..<position + 1), from: .remote) }
        return s.changed()
    }

    /// `rangeid ID START:END`: the entry plays only seconds START to END of its song (MPD's
    /// `playlist::SetSongIdRange`): not the current song while playing or paused, not from past
    /// the song's end; an END at or past the end means the song's end.
    static func rangeID(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        _ = try MPDArgument.unsigned(r[0])
        guard var range = timeRange(r[1]) else { throw .argument("Bad range") }
        let position = try s.position(ofID: r[0])
        let player = s.player
        if player.status != .stopped && player.mpdCurrentPosition == position {
            throw MPDError(.permission, "Cannot edit the current song")
        }
        let track = player.queue[position]
        if let total = track.totalFrames, track.sampleRate > 0 {
            // MPD's tag duration: whole milliseconds (`SongTime::FromScale`).
            let duration = total * 1000 / Int64(track.sampleRate)
            if Int64(range.startMS) > duration { throw .argument("Invalid start offset") }
            if let end = range.endMS, Int64(end) >= duration { range.endMS = nil }
        }
        guard player.perform(.setRange(position, range), from: .remote) else {
            throw MPDError(.permission, "Cannot edit the current song")
        }
        return s.changed()
    }

    /// MPD's `parse_time_range`: "START:END" in seconds (parsed as C floats, kept in whole
    /// milliseconds), either may be empty; nil when malformed or when END is not after START.
    private static func timeRange(_ s: String) -> SongRange? {
        guard let colon = s.firstIndex(of: ":") else { return nil }
        let (a, b) = (s[..<colon], s[s.index(after: colon)...])
        guard let start = a.isEmpty ? 0 : milliseconds(a), let end = b.isEmpty ? 0 : milliseconds(b),
            end == 0 || end > start
        else { return nil }
        return SongRange(startMS: start, endMS: end == 0 ? nil : end)
    }

    /// Seconds as MPD's `SongTime::FromS(float)` keeps them: `seconds × 1000` in a float, truncated.
    private static func milliseconds(_ text: Substring) -> UInt32? {
        guard let seconds = Float(text), seconds.isFinite, seconds >= 0 else { return nil }
        return UInt32(min(seconds * 1000, Float(UInt32.max)).rounded(.towardZero))
    }

    /// `playlistfind FILTER` / `playlistsearch FILTER`: the queue's entries that match.
    static func playlistFind(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        try playlistMatch(s, r, foldCase: false)
    }

    static func playlistSearch(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        try playlistMatch(s, r, foldCase: true)
    }

    private static func playlistMatch(_ s: MPDServer, _ r: MPDRequest, foldCase: Bool) throws(MPDError) -> MPDOutcome {
        let filter = try MPDFilter.parse(r.arguments[...], foldCase: foldCase)
        let queue = s.player.queue
        let matching = queue.indices.filter { filter.matches(queue[$0], uri: s.uri(of: queue[$0])) }
        if filter.regexExhausted { throw MPDFilter.regexTooCostly }
        return entries(s, r.connection, matching)
    }

    /// A position range clipped to the queue (MPD's `RangeArg::CheckClip`): "Bad song index" when it
    /// starts past the end.
    private static func clippedRange(_ s: MPDServer, _ argument: String) throws(MPDError) -> Range<Int> {
        let given = try MPDArgument.range(argument)
        let count = s.player.queue.count
        let end = min(given.end ?? count, count)
        guard given.start <= end else { throw .argument("Bad song index") }
        return given.start..<end
    }

    /// MPD's current song, or its "No current song".
    private static func requireCurrent(_ s: MPDServer) throws(MPDError) -> Int {
        guard let current = s.player.mpdCurrentPosition else { throw MPDError(.playerSync, "No current song") }
        return current
    }

    /// Queue entries at `positions` with their positions, ids, priorities and ranges, written as the client reads.
    private static func entries(_ s: MPDServer, _ c: MPDConnection, _ positions: some RandomAccessCollection<Int>)
        -> MPDOutcome
    {
        let queue = s.player.queue
        let marks = s.player.playQueue.identity.marks
        let tags = c.tagMask
        let positions = Array(positions)
        return .stream(
            ItemProducer(count: positions.count) { [unowned s] i, out in
                let position = positions[i]
                MPDFormat.song(
                    queue[position], uri: s.uri(of: queue[position]), tags: tags,
                    queue: (position, Int(marks[position].songID)), priority: marks[position].priority,
                    range: marks[position].range, to: &out)
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

    /// MPD's `ParseInsertPosition`: `N`, or `+N`/`-N` relative to the current song (refused
    /// without one).
    static func insertPosition(_ s: MPDServer, _ argument: String?) throws(MPDError) -> Int? {
        guard let argument else { return nil }
        let count = s.player.queue.count
        guard let sign = argument.first, sign == "+" || sign == "-" else {
            return try MPDArgument.unsigned(argument, max: count)
        }
        let current = try requireCurrent(s)
        if sign == "+" {
            return current + 1 + (try MPDArgument.unsigned(String(argument.dropFirst()), max: count - current - 1))
        }
        return current - (try MPDArgument.unsigned(String(argument.dropFirst()), max: current))
    }
}

extension MPDServer {
    /// The queue position of the song with the id in `argument` (MPD's "No such song").
    /// Where entry `position`'s range starts, in seconds of its file: MPD counts `elapsed` and
    /// seeks in a ranged song from there (0 for no such entry).
    func rangeStartSeconds(ofEntry position: Int?) -> Double {
        let marks = player.playQueue.identity.marks
        guard let position, marks.indices.contains(position) else { return 0 }
        return Double(marks[position].range.startMS) / 1000
    }

    func position(ofID argument: String) throws(MPDError) -> Int {
        let id = try MPDArgument.unsigned(argument)
        guard id <= Int(UInt32.max), let position = player.playQueue.identity.position(ofSongID: UInt32(id)) else {
            throw .noExist("No such song")
        }
        return position
    }
}
