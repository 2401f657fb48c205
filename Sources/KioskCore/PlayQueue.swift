import KioskAudio
import KioskLibrary

/// The queue the player plays: its tracks in order, the current one, whether it repeats, and the
/// ids its entries have in the engine. The one place of the rules "after the last track: the
/// first with repeat on, else the end" and "previous restarts the track when more than 3 s have
/// played, or on the first track". A value: the player decides, the engine is told separately.
///
/// Engine ids: entry `i` has id `idBase + i`; each new queue handed to the engine gets a new
/// `idBase`, so that events of an old queue (still in flight) never match an entry of the new one.
///
/// Thread: any (a value); the player's copy lives on the loop thread.
public struct PlayQueue: Equatable, Sendable {
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
    /// Ids of the engine's entries: `idBase + index`.
    public private(set) var idBase: UInt64 = 0

    public init(repeats: Bool = false) { self.repeats = repeats }

    public var isEmpty: Bool { tracks.isEmpty }
    public var count: Int { tracks.count }
    public var current: Track? { tracks.indices.contains(index) ? tracks[index] : nil }

    /// A new list of tracks (the current entry is 0 until set).
    public mutating func replace(with tracks: [Track], collection: Collection?) {
        self.tracks = tracks
        self.collection = collection
        index = min(index, max(0, tracks.count - 1))
    }

    /// Adds tracks at the end (the queue is no longer a collection's).
    public mutating func append(_ more: [Track]) {
        tracks.append(contentsOf: more)
        collection = nil
    }

    /// Empties the queue.
    public mutating func clear() {
        tracks = []
        index = 0
        collection = nil
    }

    // MARK: - the rules

    /// Where "next" goes from the current entry: the next entry; after the last, the first with
    /// repeat on, else the end.
    public var afterCurrent: Step { step(after: index) }

    /// Where playback goes after entry `entry` ends (or is skipped): the next entry; after the
    /// last, the first with repeat on, else the end.
    public func step(after entry: Int) -> Step {
        if entry + 1 < tracks.count { return .entry(entry + 1) }
        return repeats && !tracks.isEmpty ? .wrapped : .end
    }

    /// Where "previous" goes, `playedSeconds` into the current entry: its start when more than
    /// `restartThresholdSeconds` have played or on the first entry, else the entry before.
    public func beforeCurrent(playedSeconds: Double) -> Step {
        playedSeconds > Self.restartThresholdSeconds || index == 0 ? .restart : .entry(index - 1)
    }

    /// The entry "previous" of a remote client (MPD) plays: the one before; on the first, the
    /// last with repeat on, else the first again.
    public var remotePrevious: Int {
        index > 0 ? index - 1 : (repeats ? tracks.count - 1 : 0)
    }

    // MARK: - engine ids

    /// A new generation of engine ids: call when the whole queue is handed to the engine again.
    public mutating func renewIDs() { idBase &+= 1 << 32 }

    /// Ids such that entry `index` has `id` (a track that was already playing under that id
    /// becomes that entry without a restart).
    public mutating func adoptID(_ id: UInt64, forEntry index: Int) { idBase = id &- UInt64(index) }

    /// The engine's id of entry `index`.
    public func engineID(ofEntry index: Int) -> UInt64 { idBase &+ UInt64(index) }

    /// The entry the engine's `id` names in this generation, nil for another generation's.
    public func entry(ofEngineID id: UInt64) -> Int? {
        guard id >= idBase, id - idBase < UInt64(tracks.count) else { return nil }
        return Int(id - idBase)
    }

    /// Entry `index` as the engine gets it.
    public func request(_ index: Int) -> TrackRequest {
        TrackRequest(id: engineID(ofEntry: index), path: tracks[index].path)
    }

    /// The whole queue as the engine gets it.
    public var requests: [TrackRequest] { tracks.indices.map(request) }
}
