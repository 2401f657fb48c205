// SPDX-License-Identifier: GPL-3.0-or-later
/// What a remote client knows a queue entry by, as MPD's `Queue` keeps it: a song id given when
/// the entry is added and kept through every move, swap, shuffle, consume and restart until the
/// entry leaves; the queue's version (MPD's `playlist:`), bumped once per change; the version at
/// which each entry last changed position or priority (`plchanges`); and MPD's priority. Clients
/// cache entries by id and resync with `plchanges LAST-VERSION`, so an id must never name another
/// song and a version must never go back (the next id and the version are saved with the queue).
///
/// `PlayQueue` keeps one parallel to its entries: each of its edits reports what it did here.
/// Thread: any (a value); the player's copy lives on the loop thread.
public struct QueueIdentity: Equatable, Sendable {
    /// One entry's marks.
    public struct Mark: Equatable, Sendable {
        public let songID: UInt32
        /// The queue version at which the entry last changed (its position, or its priority).
        public fileprivate(set) var version: UInt32
        /// MPD's priority (0–255): in random mode higher priorities play first.
        public fileprivate(set) var priority: UInt8
        /// The part of the song that plays (MPD's `rangeid`); it goes with the entry through moves.
        public fileprivate(set) var range = SongRange.whole
    }

    /// The marks, parallel to the queue's entries.
    public private(set) var marks: [Mark] = []
    /// The queue's version: increases with every change (MPD's `playlist:`).
    public private(set) var version: UInt32 = 1
    /// The id the next added entry gets (ids start at 1; 0 is no id, as in MPD).
    public private(set) var nextSongID: UInt32 = 1
    /// Whether the ids have wrapped (then a new id is checked against those in use).
    private var hasWrapped = false

    /// MPD's limit before its version wraps (`Queue::IncrementVersion`).
    static let maxVersion: UInt32 = (1 << 31) - 1

    public init() {}

    /// The song ids, in queue order.
    public var songIDs: [UInt32] { marks.map(\.songID) }

    /// The queue position of the entry with id `id`; nil when no entry has it.
    public func position(ofSongID id: UInt32) -> Int? { marks.firstIndex { $0.songID == id } }

    /// The entries that changed since the client's `clientVersion` (MPD's `IsNewerAtPosition`):
    /// a version from the future (a client of an older run, say) gets every entry.
    public func changed(since clientVersion: UInt32, in range: Range<Int>) -> [Int] {
        let range = range.clamped(to: marks.indices)
        if clientVersion > version { return Array(range) }
        return range.filter { marks[$0].version >= clientVersion || marks[$0].version == 0 }
    }

    // MARK: - edits, as `PlayQueue` makes them

    /// The entries were rearranged: new entry `i` is the one that was at `from[i]`, or (nil) a new
    /// one with a new id; returns the new ids. An entry whose position changed has changed (MPD
    /// gives a moved entry, and each one shifted by an insert or a removal, the new version).
    @discardableResult
    mutating func rearranged(from: [Int?]) -> [UInt32] {
        let old = marks
        var added: [UInt32] = []
        marks = []
        marks.reserveCapacity(from.count)
        for (i, source) in from.enumerated() {
            if let source {
                var mark = old[source]
                if source != i { mark.version = version }
                marks.append(mark)
            } else {
                let id = takeID()
                added.append(id)
                marks.append(Mark(songID: id, version: version, priority: 0))
            }
        }
        return added
    }

    /// A queue of `count` new entries.
    mutating func replaced(count: Int) {
        marks = []
        rearranged(from: Array(repeating: nil, count: count))
    }

    /// Entries `range` get priority `priority` (changed ones count as changed for `plchanges`).
    mutating func setPriority(_ priority: UInt8, for range: Range<Int>) {
        for i in range where marks[i].priority != priority {
            marks[i].priority = priority
            marks[i].version = version
        }
    }

    /// Entry `position` plays `range` (it counts as changed for `plchanges`, as in MPD's
    /// `ModifyAtPosition`).
    mutating func setRange(_ range: SongRange, at position: Int) {
        marks[position].range = range
        marks[position].version = version
    }

    /// The change is complete: the queue has a new version (wrapping as MPD's does).
    mutating func commit() {
        version += 1
        if version >= Self.maxVersion {
            for i in marks.indices { marks[i].version = 0 }
            version = 1
        }
    }

    /// A new id: increasing, skipping 0; after a wrap (2^31 ids, never in practice) also the ids
    /// in use, so that an id never names two entries.
    private mutating func takeID() -> UInt32 {
        while true {
            let id = nextSongID
            if nextSongID >= UInt32(Int32.max) {
                nextSongID = 1
                hasWrapped = true
            } else {
                nextSongID += 1
            }
            if !hasWrapped || marks.allSatisfy({ $0.songID != id }) { return id }
        }
    }

    // MARK: - saved with the queue

    /// The version and next id of the run before (read at start, before any entry exists): a
    /// restart neither reuses an id nor goes back in version.
    mutating func continueAfter(version: UInt32, nextSongID: UInt32) {
        self.version = max(self.version, min(version, Self.maxVersion - 1))
        self.nextSongID = max(self.nextSongID, min(nextSongID, UInt32(Int32.max)))
    }

    /// The restored queue's entries take the ids they had (`songIDs`, saved with the queue) when
    /// it has as many entries as were saved; otherwise they keep the new ids they got.
    mutating func adopt(songIDs: [UInt32]) {
        guard songIDs.count == marks.count, !songIDs.contains(0), Set(songIDs).count == songIDs.count else {
            return
        }
        marks = songIDs.map { Mark(songID: $0, version: version, priority: 0) }
        nextSongID = max(nextSongID, min((songIDs.max() ?? 0) &+ 1, UInt32(Int32.max)))
    }

    /// The ids as runs of consecutive ids ("12-40,45,47-60"), short in the resume state for a
    /// queue made from a collection; nil when there are more than `maxRuns` runs.
    static func runs(of ids: [UInt32], maxRuns: Int = 64) -> String? {
        var runs: [String] = []
        var i = 0
        while i < ids.count {
            var j = i
            while j + 1 < ids.count && ids[j + 1] == ids[j] &+ 1 { j += 1 }
            runs.append(i == j ? "\(ids[i])" : "\(ids[i])-\(ids[j])")
            if runs.count > maxRuns { return nil }
            i = j + 1
        }
        return runs.joined(separator: ",")
    }

    /// The ids of `runs` (as `runs(of:)` writes them); nil when malformed or longer than `limit`.
    static func ids(fromRuns runs: String, limit: Int = 1_000_000) -> [UInt32]? {
        var ids: [UInt32] = []
        for run in runs.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = run.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count), let first = UInt32(bounds[0]),
                let last = bounds.count == 2 ? UInt32(bounds[1]) : first, first <= last,
                Int(last - first) < limit - ids.count
            else { return nil }
            ids += first...last
        }
        return ids
    }
}
