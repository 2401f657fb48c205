import KioskAudio
import KioskLibrary

/// The queue the player plays: its tracks, the order they play in (the queue's own, or a shuffle),
/// the current one, whether it repeats, and the ids its entries have in the engine. The one place
/// of the rules "after the last track: the first with repeat on, else the end", "previous restarts
/// the track when more than 3 s have played, or on the first track", and of shuffling: a shuffle is
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
    /// How the entries are ordered for playing.
    public enum Shuffle: String, Equatable, Sendable, CaseIterable {
        /// The queue's own order.
        case off
        /// Every track once, in random order.
        case tracks
        /// Whole albums in random order, each album's tracks in their order.
        case albums
    }

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
    /// Start again after the last entry.
    public var repeats = false
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
    /// `current` (when given) becomes the current entry and plays first.
    public mutating func replace(
        with tracks: [Track], collection: Collection?, audiobook: Bool = false, current: Int? = nil
    ) {
        self.tracks = tracks
        self.collection = collection
        isAudiobook = audiobook
        numberIDs()
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
        collection = nil
        order += arrange(Array(first..<tracks.count))
    }

    /// Empties the queue.
    public mutating func clear() {
        tracks = []
        ids = []
        index = 0
        collection = nil
        isAudiobook = false
        order = []
    }

    /// Removes entry `entry` (one that has played, MPD's consume): the play order goes on without
    /// it, the other entries keep their engine ids, the current entry stays the same track (when it
    /// is not the one removed: then the entry after it in the list becomes current).
    public mutating func remove(entry: Int) {
        guard tracks.indices.contains(entry) else { return }
        tracks.remove(at: entry)
        ids.remove(at: entry)
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

    /// Where "next" goes from the current entry: the next entry; after the last, the first with
    /// repeat on, else the end.
    public var afterCurrent: Step { step(after: index) }

    /// Where playback goes after entry `entry` ends (or is skipped): the next entry in play order;
    /// after the last, the first with repeat on (`wrap` first), else the end.
    public func step(after entry: Int) -> Step {
        let position = orderPosition(of: entry)
        if position + 1 < order.count { return .entry(order[position + 1]) }
        return repeats && !tracks.isEmpty ? .wrapped : .end
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

    // MARK: - engine ids

    /// A new generation of engine ids: call when the whole queue is handed to the engine again.
    public mutating func renewIDs() {
        idBase &+= 1 << 32
        numberIDs()
    }

    /// Ids such that entry `index` has `id` (a track that was already playing under that id
    /// becomes that entry without a restart).
    public mutating func adoptID(_ id: UInt64, forEntry index: Int) {
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

    /// Entry `index` as the engine gets it.
    public func request(_ index: Int) -> TrackRequest {
        TrackRequest(id: engineID(ofEntry: index), path: tracks[index].path)
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
