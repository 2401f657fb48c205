// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// What a card does (`cards.json`): play a collection, or act like a button.
///
/// Thread: a value; any thread.
public enum CardLink: Sendable, Equatable {
    case collection(CardCollection)
    case action(CardAction)

    /// For the screen, the menu and `kiosk-player cards list`.
    public var summary: String {
        switch self {
        case .collection(let c): "\(c.category.title.dropLast()) \"\(c.name)\" on \(c.stickName)"
        case .action(let a): a.summary
        }
    }
}

/// A collection a card plays, kept so that it is found again after the stick is pulled and plugged
/// in again and after a rescan: the volume (its filesystem UUID, and its label as a second way to
/// find it when the stick was reformatted with the same name), the category and the collection's
/// key (stable across rescans), and its name for messages.
///
/// Thread: a value; any thread.
public struct CardCollection: Sendable, Equatable {
    public var volumeID: String
    /// The stick's label (its mount point's name), nil for a folder on the SD card without one.
    public var volumeLabel: String?
    public var category: KioskModel.Category
    public var key: String
    public var name: String
    /// How each tap plays it (`"mode"` in `cards.json`; a file without it: `album`).
    public var mode: CardMode

    public init(
        volumeID: String, volumeLabel: String?, category: KioskModel.Category, key: String, name: String,
        mode: CardMode = .album
    ) {
        self.volumeID = volumeID
        self.volumeLabel = volumeLabel
        self.category = category
        self.key = key
        self.name = name
        self.mode = mode
    }

    /// "the stick 'KIDS'", for messages.
    public var stickName: String { volumeLabel.map { "the stick '\($0)'" } ?? "its stick" }

    /// A stick's label as the links keep it: its mount point's name (`/media/kiosk/KIDS` → KIDS).
    static func label(ofMountPoint mountPoint: String) -> String? {
        mountPoint.split(separator: "/").last.map(String.init)
    }

    /// The link for `collection` of `catalog`: the volume of its first track.
    public static func of(_ collection: Collection, in catalog: any CatalogSnapshot) -> CardCollection {
        let track = catalog.tracks(of: collection).first ?? collection.representative
        return CardCollection(
            volumeID: track.volume.rawValue, volumeLabel: label(ofMountPoint: track.mountPoint),
            category: collection.category, key: collection.key,
            name: collection.name)
    }
}

/// How a card plays its collection at each tap (`--mode` of `kiosk-player cards link`, the second
/// gesture while linking on the box).
///
/// Thread: a value; any thread.
public enum CardMode: String, Sendable, Equatable, CaseIterable {
    /// The collection, from its first track or where its bookmark is (config `bookmarks`).
    case album
    /// The next track of the collection alone, then stop; after the last, the first again.
    case trackPerTap = "track-per-tap"
    /// One random track alone, then stop; none again until all have played.
    case randomTrack = "random-track"
    /// Where the collection was left, whatever config `bookmarks` says.
    case `continue`

    /// For the screen: "one track per tap".
    public var title: String {
        switch self {
        case .album: "album"
        case .trackPerTap: "one track per tap"
        case .randomTrack: "a random track"
        case .continue: "continue"
        }
    }

    /// The mode after this one, for the box's mode gesture while linking.
    public var following: CardMode {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }

    /// Whether a tap plays one track alone (the tracks played are remembered with the card).
    public var playsOneTrack: Bool { self == .trackPerTap || self == .randomTrack }

    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// A card that acts like a button (`"action"` in `cards.json`, `--action` of `kiosk-player cards link`).
///
/// Thread: a value; any thread.
public enum CardAction: Sendable, Equatable {
    case playPause, stop, next, previous
    case shuffleOn, shuffleOff
    /// The sleep timer set to this many minutes.
    case sleep(minutes: Int)
    /// The volume kept at or below this until another such card or a restart ("bedtime").
    case volumeLimit(percent: Int)
    /// Back to the config's limits.
    case volumeLimitOff
    case shutdown
    /// Locks the inputs, or unlocks them (`Player.locked`).
    case lock
    /// The parent's card: the bedtime rules off until their reset hour, or on again.
    case parentOverride
    /// Bluetooth headphones on, or back to the speaker.
    case bluetooth
    /// Pairs new Bluetooth headphones.
    case bluetoothPair

    /// Parses "play-pause", "stop", "next", "previous", "shuffle-on", "shuffle-off", "sleep-30",
    /// "volume-limit-40", "volume-limit-off", "shutdown", "lock", "parent-override", "bluetooth", "bluetooth-pair".
    public init?(_ text: String) {
        switch text {
        case "play-pause": self = .playPause
        case "stop": self = .stop
        case "next": self = .next
        case "previous": self = .previous
        case "shuffle-on": self = .shuffleOn
        case "shuffle-off": self = .shuffleOff
        case "volume-limit-off": self = .volumeLimitOff
        case "shutdown": self = .shutdown
        case "lock": self = .lock
        case "parent-override": self = .parentOverride
        case "bluetooth": self = .bluetooth
        case "bluetooth-pair": self = .bluetoothPair
        default:
            if text.hasPrefix("sleep-"), let n = Int(text.dropFirst(6)), (1...720).contains(n) {
                self = .sleep(minutes: n)
            } else if text.hasPrefix("volume-limit-"), let n = Int(text.dropFirst(13)), (1...100).contains(n) {
                self = .volumeLimit(percent: n)
            } else {
                return nil
            }
        }
    }

    public static let names =
        "play-pause, stop, next, previous, shuffle-on, shuffle-off, sleep-MINUTES (1…720), volume-limit-PERCENT (1…100), volume-limit-off, shutdown, lock, parent-override, bluetooth, bluetooth-pair"

    public var name: String {
        switch self {
        case .playPause: "play-pause"
        case .stop: "stop"
        case .next: "next"
        case .previous: "previous"
        case .shuffleOn: "shuffle-on"
        case .shuffleOff: "shuffle-off"
        case .sleep(let m): "sleep-\(m)"
        case .volumeLimit(let p): "volume-limit-\(p)"
        case .volumeLimitOff: "volume-limit-off"
        case .shutdown: "shutdown"
        case .lock: "lock"
        case .parentOverride: "parent-override"
        case .bluetooth: "bluetooth"
        case .bluetoothPair: "bluetooth-pair"
        }
    }

    public var summary: String {
        switch self {
        case .playPause: "Play / pause"
        case .stop: "Stop"
        case .next: "Next track"
        case .previous: "Previous track"
        case .shuffleOn: "Shuffle on"
        case .shuffleOff: "Shuffle off"
        case .sleep(let m): "Sleep in \(m) min"
        case .volumeLimit(let p): "Volume at most \(p) %"
        case .volumeLimitOff: "Volume limit off"
        case .shutdown: "Shut down"
        case .lock: "Lock / unlock"
        case .parentOverride: "Bedtime rules off / on"
        case .bluetooth: "Headphones / speaker"
        case .bluetoothPair: "Pair headphones"
        }
    }
}
