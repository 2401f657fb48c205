// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel
import KioskSystem

/// What the player tells the rest of the appliance, typed: each change carries its data, so a
/// listener never reads the player back to find out what happened.
///
/// Thread: any (a value); sent on the loop thread.
public enum PlayerChange: Equatable, Sendable {
    /// The one-line status for systemd (`STATUS=`) changed.
    case status(String)
    /// The status light's state changed.
    case light(LightState)
    /// Words to speak (a message on the screen, a browse move in `names` mode, the volume's top).
    case speak(String)
    /// The user asked for a shutdown (the chord, the sleep timer, idle power-off): the appliance
    /// decides what it means.
    case shutdownRequested
    /// Exhibit mode's daily restart is due (`exhibit.restartAt`): the appliance exits cleanly and
    /// systemd starts it again.
    case dailyRestart
    /// Exhibit mode's heartbeat (a JSON text) changed.
    case exhibitStatus(String)
    /// What remote clients see changed (MPD's idle subsystems are made from it).
    case remote(PlayerAspects)
    /// Something to ask of BlueZ (the app's `BluetoothWatch` does it, off the loop).
    case bluetooth(BluetoothRequest)

    /// The kind of this change, for a listener's interests.
    public var kind: Kinds {
        switch self {
        case .status: .status
        case .light: .light
        case .speak: .speech
        case .shutdownRequested: .shutdown
        case .dailyRestart: .dailyRestart
        case .exhibitStatus: .exhibitStatus
        case .remote: .remote
        case .bluetooth: .bluetooth
        }
    }

    /// Kinds of change a listener hears of.
    public struct Kinds: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let status = Kinds(rawValue: 1 << 0)
        public static let light = Kinds(rawValue: 1 << 1)
        public static let speech = Kinds(rawValue: 1 << 2)
        public static let shutdown = Kinds(rawValue: 1 << 3)
        public static let dailyRestart = Kinds(rawValue: 1 << 4)
        public static let exhibitStatus = Kinds(rawValue: 1 << 5)
        public static let remote = Kinds(rawValue: 1 << 6)
        public static let bluetooth = Kinds(rawValue: 1 << 7)
        public static let all = Kinds(rawValue: (1 << 8) - 1)
    }
}

/// The parts of the player a remote client sees, as they change (one `PlayerChange.remote` names
/// every aspect changed since the one before).
///
/// Thread: any (a value).
public struct PlayerAspects: OptionSet, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The queue's entries (its version moved).
    public static let queue = PlayerAspects(rawValue: 1 << 0)
    /// The play state, the current song, or a jump within it (every seek, however short).
    public static let playback = PlayerAspects(rawValue: 1 << 1)
    public static let volume = PlayerAspects(rawValue: 1 << 2)
    /// Repeat, shuffle, single, consume, replay gain.
    public static let options = PlayerAspects(rawValue: 1 << 3)
    /// The output device in use, or the one chosen.
    public static let output = PlayerAspects(rawValue: 1 << 4)
    /// The catalog (a new one was built).
    public static let catalog = PlayerAspects(rawValue: 1 << 5)
    /// The library reported something (a scan began, progressed or ended).
    public static let library = PlayerAspects(rawValue: 1 << 6)
    /// A card was shown to a reader, or a card's link changed (the phone page follows it).
    public static let cards = PlayerAspects(rawValue: 1 << 7)

    public var description: String {
        let names: [(PlayerAspects, String)] = [
            (.queue, "queue"), (.playback, "playback"), (.volume, "volume"), (.options, "options"),
            (.output, "output"), (.catalog, "catalog"), (.library, "library"), (.cards, "cards"),
        ]
        return "[" + names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
    }
}

/// Hears the player's changes (`Player.listen`).
public typealias PlayerListener = (PlayerChange) -> Void

/// Who listens to the player, and for what.
///
/// Thread: the loop thread (the player's part).
struct PlayerListeners {
    private var entries: [(id: Int, kinds: PlayerChange.Kinds, listener: PlayerListener)] = []
    private var nextID = 1

    /// Adds `listener` for `kinds`; its id removes it.
    mutating func add(_ kinds: PlayerChange.Kinds, _ listener: @escaping PlayerListener) -> Int {
        defer { nextID += 1 }
        entries.append((nextID, kinds, listener))
        return nextID
    }

    mutating func remove(_ id: Int) { entries.removeAll { $0.id == id } }

    /// Whether anyone listens for `kind` (a shutdown nobody handles is not asked for).
    func hears(_ kind: PlayerChange.Kinds) -> Bool { entries.contains { $0.kinds.contains(kind) } }

    /// The listeners of `change`'s kind, in the order they were added.
    func listeners(of change: PlayerChange) -> [PlayerListener] {
        let kind = change.kind
        return entries.filter { $0.kinds.contains(kind) }.map(\.listener)
    }
}

/// The aspects remote clients will be told of at the next publication, noted where the parts
/// change (the queue's version and current song are counters the queue keeps: a moved counter
/// is the event).
///
/// Thread: the loop thread (the player's part).
struct RemoteChanges {
    private(set) var pending: PlayerAspects = []
    private var queueVersion: UInt32?
    private var currentSongID: UInt32?
    private var options: QueueOptions?

    /// What MPD calls options: a change of any is an `options` event.
    private struct QueueOptions: Equatable {
        var repeats: Bool
        var shuffle: PlayQueue.Shuffle
        var single: SingleMode
        var consume: Bool
        var replayGain: ReplayGainMode

        init(_ queue: PlayQueue) {
            repeats = queue.repeats
            shuffle = queue.shuffle
            single = queue.single
            consume = queue.consume
            replayGain = queue.replayGain.mode
        }
    }

    mutating func note(_ aspects: PlayerAspects) { pending.formUnion(aspects) }

    /// The queue after a change: its version, MPD's current song and its options.
    mutating func queueChanged(_ queue: PlayQueue) {
        let version = queue.identity.version
        if version != queueVersion {
            if queueVersion != nil { pending.insert(.queue) }
            queueVersion = version
        }
        // MPD's current song: the current entry once it played or was chosen.
        let current = queue.hasChosenCurrent && !queue.isEmpty ? queue.identity.marks[queue.index].songID : nil
        if current != currentSongID {
            // A queue that just got its first entries had no current song: not a player change.
            if currentSongID != nil { pending.insert(.playback) }
            currentSongID = current
        }
        let options = QueueOptions(queue)
        if options != self.options {
            if self.options != nil { pending.insert(.options) }
            self.options = options
        }
    }

    /// What changed since the last take, and none pending now.
    mutating func take() -> PlayerAspects {
        defer { pending = [] }
        return pending
    }
}

/// The player's outgoing side: who listens, what remote clients will be told, the light's state
/// last sent, and the loop timers armed for `PlayerTimers`, exhibit mode and `BedtimeRules`.
///
/// Thread: the loop thread (the player's part).
struct PlayerOutbox {
    var listeners = PlayerListeners()
    var remoteChanges = RemoteChanges()
    /// The state last sent as `.light`.
    var lightState: LightState?
    /// The loop timer armed for each alarm of `PlayerTimers` (`PlayerEffect.arm`) and of exhibit
    /// mode (`.armExhibit`), until it rings (a repeating one: until disarmed) or is disarmed.
    var alarms: [AlarmKey: TimerID] = [:]

    /// Whose alarm a timer is.
    enum AlarmKey: Hashable {
        case timers(PlayerTimers.Alarm)
        case exhibit(ExhibitSession.Alarm)
        /// The bedtime rules' next look at the time.
        case bedtime
    }
}
