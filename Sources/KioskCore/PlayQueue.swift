// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// The queue the player plays: its tracks, the order they play in (the queue's own, or a shuffle),
/// the current one, whether it repeats, MPD's single and consume modes, and the ids its entries have
/// in the engine. The one place of "what plays next" (`step(after:origin:)`, as MPD's
/// `Queue::GetNextOrder`): "after the last track: the first with repeat on (not in a queue that
/// plays once: a card's one track per tap), else the end",
/// "previous restarts the track when more than 3 s have played, or on the first track", single
/// (MPD's border pause, one-shot), consume (a played entry leaves), and of shuffling: a shuffle is
/// a permutation (nothing repeats until everything has played), previous goes back along it, at the
/// wrap a new one starts that does not begin with the track just played, an album shuffle plays
/// whole albums in random order (each in its own order), and an audiobook is never shuffled.
/// A value: the player decides, the engine is told separately (it gets the entries in play order).
///
/// Engine ids: entry `i` has id `idBase + i` when the queue is handed to the engine; each new
/// queue handed to it gets a new `idBase`, so that events of an old queue (still in flight) never
/// match an entry of the new one. An entry removed while the engine plays on (MPD's consume) takes
/// its id with it and the others keep theirs, so the engine's queue needs no restart.
///
/// Thread: any (a value); the player's copy lives on the loop thread.
public struct PlayQueue: Equatable, Sendable {
    /// How the entries are ordered for playing (`ShuffleMode`, named where the config reads it).
    public typealias Shuffle = ShuffleMode

    /// Where a move through the queue lands.
    public enum Step: Equatable, Sendable {
        /// Entry `index` (of this queue).
        case entry(Int)
        /// Past the last entry with repeat on: the first entry again.
        case wrapped
        /// Past the last entry without repeat: the queue has ended.
        case end
        /// Previous within the current entry: its start again.
        case restart
    }

    /// Seconds of a track after which previous restarts it instead of going back.
    public static let restartThresholdSeconds = 3.0

    public private(set) var tracks: [Track] = []
    /// The current entry (0 when empty).
    public var index = 0
    /// The collection the queue was made from (nil for one a remote client built).
    public var collection: Collection?
    /// How the tracks' ReplayGain tags become the gain the engine plays them at.
    public var replayGain = ReplayGainSettings()
    /// Start again after the last entry.
    public var repeats = false
    /// The queue plays once whatever `repeats` says (a card's one track per tap), until replaced.
    public private(set) var playsOnce = false
    /// The id generation: entry `i` of a queue handed to the engine has `idBase + i`.
    public private(set) var idBase: UInt64 = 0
    /// `ids[i]`: the engine's id of entry `i` (increasing with `i`).
    private var ids: [UInt64] = []
    /// The shuffle chosen (the queue may still play in order: `isShuffled`).
    public private(set) var shuffle = Shuffle.off
    /// Entry indices in play order: a permutation of `tracks.indices`.
    public private(set) var order: [Int] = []
    /// Whether the queue is an audiobook's (never shuffled).
    public private(set) var isAudiobook = false
    /// The shuffles' random numbers (seeded in tests).
    private var random: SplitMix
    /// MPD's single mode (set by MPD clients): the engine gets only the current entry.
    public var single = SingleMode.off
    /// MPD's consume mode (set by MPD clients): an entry that has played leaves the queue.
    public var consume = false
    /// What remote clients know the entries by: MPD's song ids, versions and priorities.
    public private(set) var identity = QueueIdentity()
    /// Whether the current entry is MPD's "current song": one that played or was chosen (a queue a
    /// remote client built has none until it plays, and `+N` positions are refused then).
    public private(set) var hasChosenCurrent = false
    /// The engine id of the entry the player itself last started (a jump, not a track border):
    /// consume removes only entries the queue played past.
    private var startedByPlayer: UInt64?

    public init(repeats: Bool = false, seed: UInt64 = UInt64.random(in: 0...UInt64.max)) {
        self.repeats = repeats
        random = SplitMix(seed: seed)
    }

    /// Whether the play order is a shuffle now (a shuffle is chosen and the queue is not an
    /// audiobook's).
    public var isShuffled: Bool { shuffle != .off && !isAudiobook }

    /// Where entry `entry` is in the play order.
    public func orderPosition(of entry: Int) -> Int { order.firstIndex(of: entry) ?? entry }

    /// The entry that plays first.
    public var firstInOrder: Int { order.first ?? 0 }

    /// The entry that plays last.
    public var lastInOrder: Int { order.last ?? max(0, tracks.count - 1) }

    /// Chooses the shuffle. The current entry stays current and first of the new order, so that
    /// what plays goes on and everything else follows once.
    public mutating func setShuffle(_ mode: Shuffle) {
        shuffle = mode
        reorder(startingWith: tracks.isEmpty ? nil : index)
    }

    public var isEmpty: Bool { tracks.isEmpty }
    public var count: Int { tracks.count }
    public var current: Track? { tracks.indices.contains(index) ? tracks[index] : nil }

    /// A new list of tracks (the current entry is 0 until set); a new play order. `audiobook`:
    /// the collection is an audiobook, which plays in its order whatever the shuffle.
    /// `current` (when given) becomes the current entry and plays first. `once`: it ends after its
    /// last entry even with repeat on.
    public mutating func replace(
        with tracks: [Track], collection: Collection?, audiobook: Bool = false, current: Int? = nil, once: Bool = false
    ) {
        self.tracks = tracks
        playsOnce = once
        self.collection = collection
        isAudiobook = audiobook
        numberIDs()
        identity.replaced(count: tracks.count)
        identity.commit()
        hasChosenCurrent = false
        index = min(current ?? index, max(0, tracks.count - 1))
        reorder(startingWith: current.map { _ in index })
    }

    /// Adds tracks at the end (the queue is no longer a collection's). In a shuffle they play
    /// after everything already there, in an order of their own.
    public mutating func append(_ more: [Track]) {
        let first = tracks.count
        tracks.append(contentsOf: more)
        // After the last id in use, so that ids stay increasing (an entry may have been removed).
        let next = (ids.last.map { $0 &+ 1 } ?? idBase)
        ids += (0..<UInt64(more.count)).map { next &+ $0 }
        identity.rearranged(from: Array(0..<first) + Array(repeating: nil, count: more.count))
        identity.commit()
        collection = nil
        playsOnce = false
        order += arrange(Array(first..<tracks.count))
        applyPriorities()
    }

    /// Empties the queue.
    public mutating func clear() {
        tracks = []
        ids = []
        identity.rearranged(from: [])
        identity.commit()
        hasChosenCurrent = false
        index = 0
        collection = nil
        isAudiobook = false
        playsOnce = false
        order = []
    }

    /// Removes entry `entry` (one that has played, MPD's consume): the play order goes on without
    /// it, the other entries keep their engine ids, the current entry stays the same track (when it
    /// is not the one removed: then the entry after it in the list becomes current).
    public mutating func remove(entry: Int) {
        guard tracks.indices.contains(entry) else { return }
        tracks.remove(at: entry)
        ids.remove(at: entry)
        identity.rearranged(from: tracks.indices.map { $0 < entry ? $0 : $0 + 1 })
        identity.commit()
        order = order.compactMap { $0 == entry ? nil : ($0 > entry ? $0 - 1 : $0) }
        if index > entry { index -= 1 }
        index = min(index, max(0, tracks.count - 1))
        if tracks.isEmpty { collection = nil }
    }

    /// Past the last entry with repeat on: a shuffle starts again with a new order that does not
    /// begin with `lastPlayed` (the queue's own order just starts again).
    public mutating func wrap(after lastPlayed: Int) {
        guard isShuffled, tracks.count > 1 else { return }
        order = arrange(Array(tracks.indices))
        if order.first == lastPlayed {
            // Swap the first unit (a track, or an album's tracks) with the last one.
            let units = shuffle == .albums ? albumRuns(order) : order.indices.map { $0..<($0 + 1) }
            if units.count > 1 {
                let firstUnit = Array(order[units[0]])
                let lastUnit = Array(order[units[units.count - 1]])
                let middle = Array(order[units[0].upperBound..<units[units.count - 1].lowerBound])
                order = lastUnit + middle + firstUnit
            }
        }
    }

    // MARK: - edits of remote clients (MPD's src/queue/PlaylistEdit.cxx)

    /// The queue is no longer the collection it was made from (a remote client edited it).
    public mutating func detachFromCollection() {
        collection = nil
        isAudiobook = false
    }

    /// Continues the song ids and the version of the run before (read at start).
    public mutating func continueIdentity(version: UInt32, nextSongID: UInt32) {
        identity.continueAfter(version: version, nextSongID: nextSongID)
    }

    /// The restored queue's entries take their saved ids (when it has as many entries).
    public mutating func adoptSongIDs(_ ids: [UInt32]) { identity.adopt(songIDs: ids) }

    /// The entry MPD's current song is from now on: it played, or the listener or a client chose it.
    public mutating func chooseCurrent() { hasChosenCurrent = !tracks.isEmpty }

    /// A jump to entry `entry` in a shuffle (MPD's `play N` in random mode): it moves in the play
    /// order to right after the current entry, so that what was still to play still plays and
    /// what played does not come again (MPD swaps the two, which plays the current one again
    /// later); the rest keeps its priorities. Outside a shuffle it only becomes current.
    public mutating func jump(to entry: Int) {
        guard tracks.indices.contains(entry) else { return }
        if isShuffled && entry != index {
            order.remove(at: orderPosition(of: entry))
            let slot = hasChosenCurrent ? orderPosition(of: index) + 1 : 0
            order.insert(entry, at: slot)
        }
        index = entry
        applyPriorities()
    }

    /// No current song (MPD's after its current entry was deleted while stopped).
    public mutating func forgetCurrent() { hasChosenCurrent = false }

    /// Inserts `more` before entry `position` (clamped; the end appends); returns their song ids.
    /// The current entry stays current.
    @discardableResult
    public mutating func insert(_ more: [Track], at position: Int) -> [UInt32] {
        let at = min(max(0, position), tracks.count)
        var edited = tracks
        edited.insert(contentsOf: more, at: at)
        let from: [Int?] = Array(0..<at) + Array(repeating: nil, count: more.count) + Array(at..<tracks.count)
        return rearrange(edited, from: from)
    }

    /// Removes the entries at `positions`. The current entry stays current; when it is among them,
    /// the one after it in play order (with repeat: around the end) that stays becomes current,
    /// and that is returned as `successor` (nil: none stays after it).
    @discardableResult
    public mutating func removeEntries(_ positions: Set<Int>) -> (currentRemoved: Bool, successor: Int?) {
        let positions = positions.filter { tracks.indices.contains($0) }
        guard !positions.isEmpty else { return (false, nil) }
        let currentRemoved = positions.contains(index)
        var successor: Int?
        if currentRemoved {
            let at = orderPosition(of: index)
            let after = Array(order[(at + 1)...]) + (repeats ? Array(order[..<at]) : [])
            successor = after.first { !positions.contains($0) }
        }
        let from = tracks.indices.filter { !positions.contains($0) }
        let successorID = successor.map { identity.marks[$0].songID }
        rearrange(from.map { tracks[$0] }, from: from)
        if let successorID, let at = identity.position(ofSongID: successorID) {
            index = at
            return (true, at)
        }
        if currentRemoved { index = 0 }
        return (currentRemoved, nil)
    }

    /// Moves the entries `range` so that the first is at `position`: false when either is out of
    /// the queue (MPD's "Bad song index").
    public mutating func move(_ range: Range<Int>, to position: Int) -> Bool {
        guard range.lowerBound >= 0, range.upperBound <= tracks.count, !range.isEmpty, position >= 0,
            position + range.count <= tracks.count
        else { return false }
        // MPD: a move to where it is changes nothing (not even the version).
        if range.lowerBound == position { return true }
        var from = Array(tracks.indices)
        from.removeSubrange(range)
        from.insert(contentsOf: range, at: position)
        rearrange(from.map { tracks[$0] }, from: from)
        return true
    }

    /// Swaps entries `a` and `b`; false when either does not exist.
    public mutating func swap(_ a: Int, _ b: Int) -> Bool {
        guard tracks.indices.contains(a), tracks.indices.contains(b) else { return false }
        var from = Array(tracks.indices)
        from.swapAt(a, b)
        rearrange(from.map { tracks[$0] }, from: from)
        return true
    }

    /// MPD's `shuffle`: the entries `range` in a random order of positions (not the play order);
    /// with `keepingCurrentFirst` (playing) the current entry, when in the range, moves to its start
    /// and the rest is shuffled after it.
    public mutating func shuffleEntries(_ range: Range<Int>, keepingCurrentFirst: Bool) {
        let range = range.clamped(to: tracks.indices)
        guard range.count >= 2 else { return }
        var from = Array(tracks.indices)
        var rest = range
        if keepingCurrentFirst && range.contains(index) {
            from.swapAt(range.lowerBound, index)
            rest = (range.lowerBound + 1)..<range.upperBound
        }
        let shuffledRest = shuffled(Array(from[rest]))
        from.replaceSubrange(rest, with: shuffledRest)
        rearrange(from.map { tracks[$0] }, from: from)
    }

    /// MPD's `prio`: entries `range` get `priority`; in a shuffle the entries after the current one
    /// play in priority order (higher first), each priority in its shuffled order.
    public mutating func setPriority(_ priority: UInt8, for range: Range<Int>) {
        let range = range.clamped(to: tracks.indices)
        guard !range.isEmpty else { return }
        identity.setPriority(priority, for: range)
        identity.commit()
        applyPriorities()
    }

    /// MPD's `rangeid`: entry `entry` plays `range` from now on (what the engine holds of it is
    /// the player's to renew).
    public mutating func setRange(_ range: SongRange, at entry: Int) {
        guard tracks.indices.contains(entry) else { return }
        identity.setRange(range, at: entry)
        identity.commit()
    }

    /// Installs `edited`, whose entry `i` was entry `from[i]` (nil: new): ids, versions, the engine
    /// ids, the play order (kept for the entries that stay; new ones after them) and the current
    /// entry (by identity). Returns the new entries' song ids.
    @discardableResult
    private mutating func rearrange(_ edited: [Track], from: [Int?]) -> [UInt32] {
        let currentID = tracks.indices.contains(index) ? identity.marks[index].songID : nil
        var newPosition = [Int?](repeating: nil, count: tracks.count)
        for (i, source) in from.enumerated() { if let source { newPosition[source] = i } }
        let kept = order.compactMap { newPosition[$0] }
        tracks = edited
        let added = identity.rearranged(from: from)
        identity.commit()
        numberIDs()
        order = isShuffled ? kept + arrange(from.indices.filter { from[$0] == nil }) : Array(tracks.indices)
        if let currentID, let at = identity.position(ofSongID: currentID) { index = at }
        index = min(index, max(0, tracks.count - 1))
        if tracks.isEmpty {
            hasChosenCurrent = false
            collection = nil
        }
        applyPriorities()
        return added
    }

    /// In a shuffle with priorities set, the entries after the current one in play order sorted by
    /// priority, higher first (a stable sort: each priority keeps its shuffled order), as MPD's
    /// `queue_sort_order_by_priority`.
    private mutating func applyPriorities() {
        guard isShuffled, identity.marks.contains(where: { $0.priority != 0 }) else { return }
        let start = hasChosenCurrent ? orderPosition(of: index) + 1 : 0
        guard start < order.count else { return }
        let marks = identity.marks
        var rest = order[start...].enumerated().map { ($0.offset, $0.element) }
        rest.sort { a, b in
            let (pa, pb) = (marks[a.1].priority, marks[b.1].priority)
            return pa != pb ? pa > pb : a.0 < b.0
        }
        order.replaceSubrange(start..., with: rest.map(\.1))
    }

    /// Builds `order` afresh: the queue's order, or a shuffle; `first` (when given) plays first.
    private mutating func reorder(startingWith first: Int?) {
        guard isShuffled else {
            order = Array(tracks.indices)
            return
        }
        var arranged = arrange(Array(tracks.indices))
        if let first, let at = arranged.firstIndex(of: first) {
            if shuffle == .albums, let run = albumRuns(arranged).first(where: { $0.contains(at) }) {
                // The current album first, from the current track on; its earlier tracks last.
                let album = Array(arranged[run])
                arranged.removeSubrange(run)
                let split = album.firstIndex(of: first)!
                arranged = Array(album[split...]) + arranged + Array(album[..<split])
            } else {
                arranged.remove(at: at)
                arranged.insert(first, at: 0)
            }
        }
        order = arranged
    }

    /// `entries` (in queue order) in the shuffle's order.
    private mutating func arrange(_ entries: [Int]) -> [Int] {
        guard isShuffled else { return entries }
        switch shuffle {
        case .off: return entries
        case .tracks: return shuffled(entries)
        case .albums:
            var albums: [[Int]] = []
            var keys: [String: Int] = [:]
            for entry in entries {
                let key = albumKey(tracks[entry])
                if let at = keys[key] {
                    albums[at].append(entry)
                } else {
                    keys[key] = albums.count
                    albums.append([entry])
                }
            }
            return shuffled(Array(albums.indices)).flatMap { albums[$0] }
        }
    }

    /// The runs of consecutive entries of `order` that belong to one album.
    private func albumRuns(_ order: [Int]) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start = 0
        for i in order.indices.dropFirst() where albumKey(tracks[order[i]]) != albumKey(tracks[order[i - 1]]) {
            runs.append(start..<i)
            start = i
        }
        if !order.isEmpty { runs.append(start..<order.count) }
        return runs
    }

    /// What makes two tracks one album: the same album in the same folder of the same volume.
    private func albumKey(_ track: Track) -> String {
        "\(track.volume.rawValue)\u{1F}\(track.folder)\u{1F}\(track.album)"
    }

    /// A Fisher–Yates shuffle with this queue's generator.
    private mutating func shuffled(_ items: [Int]) -> [Int] {
        var items = items
        if items.count < 2 { return items }
        for i in stride(from: items.count - 1, to: 0, by: -1) {
            let j = Int(random.next() % UInt64(i + 1))
            items.swapAt(i, j)
        }
        return items
    }

    // MARK: - the rules

    /// Who moves the queue on: the rule is one, the origin says where its meaning differs.
    public enum Origin: Equatable, Sendable {
        /// The engine played entry `after` to its end (the end of its queue).
        case ended
        /// Next from a button (or a card): the play state is kept, a move inside the engine's
        /// queue is gapless.
        case next
        /// Previous from a button, `playedSeconds` into the current entry: its start again when
        /// more than `restartThresholdSeconds` have played or on the first entry.
        case previous(playedSeconds: Double)
        /// MPD's `next`: always plays (also from pause).
        case remoteNext
        /// MPD's `previous`: the entry before, playing; on the first, the last with repeat on,
        /// else the first again.
        case remotePrevious
    }

    /// How the player goes on after a step.
    public enum Transition: Equatable, Sendable {
        /// The engine moves to entry `entry` by itself (`next`/`previous` inside its queue): no gap.
        case gapless(to: Int)
        /// The engine gets the queue again at entry `entry`, from its start, in `state`.
        case start(at: Int, state: StartState)
        /// The current entry from its start (the engine seeks).
        case restart
        /// The queue played out: stopped at the start of the first entry of the play order.
        case end
        /// Nothing is left (consume took the last entry).
        case empty
    }

    /// The play state after a `start`.
    public enum StartState: Equatable, Sendable {
        /// As it was (a button's next keeps a pause).
        case kept
        case playing
        /// MPD's border pause (single mode), at the start of the next entry.
        case paused
    }

    /// Where "next" goes from the current entry: the next entry; after the last, the first with
    /// repeat on, else the end.
    public var afterCurrent: Step { step(after: index) }

    /// Where playback goes after entry `entry` ends (or is skipped): the next entry in play order;
    /// after the last, the first with repeat on (`wrap` first), else the end.
    public func step(after entry: Int) -> Step {
        let position = orderPosition(of: entry)
        if position + 1 < order.count { return .entry(order[position + 1]) }
        return repeats && !playsOnce && !tracks.isEmpty ? .wrapped : .end
    }

    /// Where "previous" goes, `playedSeconds` into the current entry: its start when more than
    /// `restartThresholdSeconds` have played or on the first entry of the play order, else the
    /// entry before it in play order.
    public func beforeCurrent(playedSeconds: Double) -> Step {
        let position = orderPosition(of: index)
        return playedSeconds > Self.restartThresholdSeconds || position == 0 ? .restart : .entry(order[position - 1])
    }

    /// The entry "previous" of a remote client (MPD) plays: the one before in play order; on the
    /// first, the last with repeat on, else the first again.
    public var remotePrevious: Int {
        let position = orderPosition(of: index)
        if position > 0 { return order[position - 1] }
        return repeats ? lastInOrder : firstInOrder
    }

    /// The one home of "what plays next": moves the queue on from entry `entry` (the current one,
    /// or for `.ended` the last the engine held) as `origin` asks, applying repeat, single,
    /// one-shot, consume and the shuffle's new order at a wrap, and says how the player goes on.
    /// The entry consumed (if any) is already out of the queue; indices in the transition are
    /// after its removal.
    public mutating func step(after entry: Int, origin: Origin) -> (transition: Transition, consumed: Int?) {
        guard !tracks.isEmpty else { return (.empty, nil) }
        switch origin {
        case .ended, .next, .remoteNext:
            let ended = origin == .ended
            // MPD: single with repeat plays the entry again at its end.
            if ended && single != .off && repeats && !playsOnce { return (.start(at: entry, state: .playing), nil) }
            let state: StartState = origin == .next ? .kept : .playing
            switch step(after: entry) {
            case .entry(let next):
                let (kept, consumed) = consumeIfOn(entry, keeping: next)
                if ended && single != .off {
                    // MPD's border pause at the start of the next entry; one-shot turns itself off.
                    if single == .oneshot { single = .off }
                    return (.start(at: kept, state: .paused), consumed)
                }
                // The engine holds the current entry alone (single) or must drop it (consume): a
                // new queue; a button's next inside the engine's queue is gapless.
                if origin == .next && single == .off && consumed == nil { return (.gapless(to: next), nil) }
                return (.start(at: kept, state: state), consumed)
            case .wrapped:
                wrap(after: entry)
                let (kept, consumed) = consumeIfOn(entry, keeping: firstInOrder)
                return (tracks.isEmpty ? .empty : .start(at: kept, state: state), consumed)
            case .end, .restart:
                let (_, consumed) = consumeIfOn(entry, keeping: entry)
                return (tracks.isEmpty ? .empty : .end, consumed)
            }
        case .previous(let playedSeconds):
            switch beforeCurrent(playedSeconds: playedSeconds) {
            case .entry(let before):
                // Inside the engine's queue the move is gapless; not in single mode (the engine holds
                // the current entry alone) nor with consume (the engine's start of the entry before
                // would look like a border played past and consume the current one).
                let gapless = single == .off && !consume
                return (gapless ? .gapless(to: before) : .start(at: before, state: .kept), nil)
            case .restart, .wrapped, .end:
                return (.restart, nil)
            }
        case .remotePrevious:
            return (.start(at: remotePrevious, state: .playing), nil)
        }
    }

    /// Consume: entry `entry` (played past) leaves the queue; `keep`'s index after the removal.
    private mutating func consumeIfOn(_ entry: Int, keeping keep: Int) -> (kept: Int, consumed: Int?) {
        guard consume else { return (keep, nil) }
        remove(entry: entry)
        return (keep > entry ? keep - 1 : keep, entry)
    }

    /// The engine started the track of `id` (its `trackStarted`): the entry it names becomes
    /// current; with consume on, the entry the queue played past (a track border, not a jump the
    /// player made) leaves the queue. Returns the current entry, nil when `id` names none (an old
    /// generation's, or a removed entry's).
    public mutating func engineStarted(id: UInt64) -> Int? {
        guard var entry = entry(ofEngineID: id) else { return nil }
        if consume && id != startedByPlayer && entry != index {
            entry = consumeIfOn(index, keeping: entry).kept
        }
        startedByPlayer = nil
        index = entry
        return entry
    }

    /// A position report of the track of `id`: the entry it names becomes current. False when it
    /// names none, or with consume on for an entry before its `trackStarted` (which removes the
    /// last one).
    public mutating func takePosition(ofEngineID id: UInt64) -> Bool {
        guard let entry = entry(ofEngineID: id), !(consume && entry != index) else { return false }
        index = entry
        return true
    }

    /// The entry the engine's queue ends with: the current one in single mode (the engine holds it
    /// alone), else the last of the play order.
    public var lastHandedToEngine: Int { single != .off ? index : lastInOrder }

    /// Sets MPD's single mode; true when the engine's queue must be handed again (it holds the
    /// current entry alone in single mode, all of them otherwise).
    public mutating func setSingle(_ mode: SingleMode) -> Bool {
        defer { single = mode }
        return (mode == .off) != (single == .off)
    }

    // MARK: - handing the queue to the engine

    /// Makes entry `entry` current and returns the engine's queue for playing from it, with where
    /// `entry` is in it: the whole queue in play order (new ids), or in single mode the entry
    /// alone. `entry` is a jump of the player's (consume keeps the entry it leaves).
    public mutating func handOver(at entry: Int) -> (requests: [TrackRequest], start: Int) {
        renewIDs()
        index = entry
        startedByPlayer = engineID(ofEntry: entry)
        return engineQueue(at: entry)
    }

    /// The engine's queue positioned at `entry` without a new generation of ids.
    public func engineQueue(at entry: Int) -> (requests: [TrackRequest], start: Int) {
        if single != .off { return ([request(entry)], 0) }
        return (requests, orderPosition(of: entry))
    }

    /// Appends `more` and returns what the engine appends to its queue (nothing in single mode,
    /// where it holds the current entry alone).
    public mutating func appendHandingOver(_ more: [Track]) -> [TrackRequest] {
        let first = tracks.count
        append(more)
        // The new entries are the last of the play order (a shuffle plays them after the rest).
        return single == .off ? order.suffix(tracks.count - first).map(request) : []
    }

    // MARK: - engine ids

    /// A new generation of engine ids: call when the whole queue is handed to the engine again.
    public mutating func renewIDs() {
        idBase &+= 1 << 32
        numberIDs()
    }

    /// Ids such that entry `index` has `id`, and that entry current (a track that was already
    /// playing under that id becomes that entry without a restart).
    public mutating func adoptID(_ id: UInt64, forEntry index: Int) {
        self.index = index
        idBase = id &- UInt64(index)
        numberIDs()
    }

    private mutating func numberIDs() { ids = (0..<UInt64(tracks.count)).map { idBase &+ $0 } }

    /// The engine's id of entry `index`.
    public func engineID(ofEntry index: Int) -> UInt64 { ids[index] }

    /// The entry the engine's `id` names in this generation, nil for another generation's (or a
    /// removed entry's).
    public func entry(ofEngineID id: UInt64) -> Int? {
        // Ids increase with the entry: a binary search (no wrap inside one generation's range).
        guard let first = ids.first, id &- first <= ids.last! &- first else { return nil }
        var low = 0
        var high = ids.count - 1
        while low <= high {
            let mid = (low + high) / 2
            let offset = ids[mid] &- first
            if offset == id &- first { return mid }
            if offset < id &- first { low = mid + 1 } else { high = mid - 1 }
        }
        return nil
    }

    /// The frame entry `index` starts playing at: its range's start (0 for the whole song).
    public func firstFrame(ofEntry index: Int) -> Int64 {
        identity.marks[index].range.startFrame(sampleRate: tracks[index].sampleRate)
    }

    /// Entry `index` as the engine gets it: the frames of its range, and its ReplayGain scale
    /// (album gain in `auto` when the queue is an album).
    public func request(_ index: Int) -> TrackRequest {
        let track = tracks[index]
        let range = identity.marks[index].range
        let gain =
            replayGain.mode == .off
            ? 1 : replayGain.scale(for: track.replayGain, queueIsAlbum: collection?.category == .album)
        return TrackRequest(
            id: engineID(ofEntry: index), path: track.path, startFrame: firstFrame(ofEntry: index),
            endFrame: range.endFrame(sampleRate: track.sampleRate), gain: gain)
    }

    /// The whole queue as the engine gets it: in play order.
    public var requests: [TrackRequest] { order.map(request) }
}

/// SplitMix64: a small, fast generator for shuffles (not for secrets), seedable for tests.
/// Thread: any (a value).
struct SplitMix: Equatable, Sendable {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
