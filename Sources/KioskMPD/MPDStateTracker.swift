import KioskCore
import KioskLibrary
import KioskSystem

/// Follows the player from one `onChange` to the next and derives what MPD clients need that the
/// player does not keep: which idle subsystems changed, stable song IDs for the queue entries, the
/// queue's version (`playlist:` in status, `plchanges`), when the database changed, and how long
/// the player has played. Thread: loop thread.
struct MPDStateTracker {
    private struct Observed {
        var status: PlaybackStatus = .stopped
        var queueIndex = 0
        var queue: [Track] = []
        var volume = -1
        var repeatQueue = false
        var shuffle = false
        var single = SingleMode.off
        var consume = false
        var output = ""
        var catalog: ObjectIdentifier?
        var scanning = false
        var position = 0.0
        var atNs: UInt64 = 0
    }

    private var last = Observed()
    private var first = true

    /// Song IDs of the queue entries, parallel to `Player.queue`.
    private(set) var ids: [Int] = []
    /// The queue version at which each entry last changed (for `plchanges`).
    private(set) var entryVersions: [Int] = []
    private(set) var playlistVersion = 1
    private var nextID = 1
    /// Seconds since the epoch of the last catalog change.
    private(set) var databaseUpdated = Int(Syscalls.realtimeNanoseconds() / 1_000_000_000)
    /// Nanoseconds of playback seen so far.
    private(set) var playedNs: UInt64 = 0
    /// Whether the library is scanning (`updating_db:` in status).
    var scanning: Bool { last.scanning }

    /// Looks at the player and returns the subsystems that changed since the last look.
    @discardableResult
    mutating func observe(_ player: Player, library: Library?) -> MPDIdle {
        let now = Syscalls.monotonicNanoseconds()
        var seen = Observed()
        seen.status = player.status
        seen.queueIndex = player.queueIndex
        seen.queue = player.queue
        seen.volume = player.volume
        seen.repeatQueue = player.repeatQueue
        seen.shuffle = player.shuffle != .off
        seen.single = player.single
        seen.consume = player.consume
        seen.output = player.outputDevice
        seen.catalog = player.catalog.map(ObjectIdentifier.init)
        seen.scanning = !(library?.isIdle ?? true)
        seen.position = player.positionSeconds
        seen.atNs = now
        defer {
            last = seen
            first = false
        }
        if first {
            assignIDs(from: [], to: seen.queue)
            return []
        }
        if last.status == .playing { playedNs &+= now &- last.atNs }
        var changes: MPDIdle = []
        if seen.queue != last.queue {
            playlistVersion += 1
            assignIDs(from: last.queue, to: seen.queue)
            changes.insert(.playlist)
        }
        // The current song changed (a queue that just got its first entries had no current song).
        let hadCurrent = last.queue.indices.contains(last.queueIndex)
        let hasCurrent = seen.queue.indices.contains(seen.queueIndex)
        let trackChanged =
            hadCurrent
            && (!hasCurrent || seen.queueIndex != last.queueIndex
                || seen.queue[seen.queueIndex] != last.queue[last.queueIndex])
        if seen.status != last.status || trackChanged {
            changes.insert(.player)
        } else if seen.status != .stopped {
            // A jump in the position is a seek (a button's "previous" restarting the track, say).
            let expected = last.position + (last.status == .playing ? Double(now &- last.atNs) / 1e9 : 0)
            if abs(seen.position - expected) > 2 { changes.insert(.player) }
        }
        if seen.volume != last.volume { changes.insert(.mixer) }
        if seen.repeatQueue != last.repeatQueue || seen.shuffle != last.shuffle || seen.single != last.single
            || seen.consume != last.consume
        {
            changes.insert(.options)
        }
        if seen.output != last.output { changes.insert(.output) }
        if seen.catalog != last.catalog {
            changes.formUnion([.database, .storedPlaylist])
            databaseUpdated = Int(Syscalls.realtimeNanoseconds() / 1_000_000_000)
        }
        if seen.scanning != last.scanning { changes.insert(.update) }
        return changes
    }

    /// Keeps the IDs of entries that stayed (matched in order) and gives new ones to the rest.
    private mutating func assignIDs(from old: [Track], to new: [Track]) {
        var newIDs: [Int] = []
        var newVersions: [Int] = []
        newIDs.reserveCapacity(new.count)
        var j = 0
        for (i, track) in new.enumerated() {
            // The next old entry equal to this one (looking a bounded distance ahead keeps it linear).
            var match: Int?
            var k = j
            while k < old.count && k < j + 64 {
                if old[k] == track {
                    match = k
                    break
                }
                k += 1
            }
            if let m = match, m < ids.count {
                newIDs.append(ids[m])
                // Same entry at the same position: unchanged for plchanges.
                newVersions.append(m == i && m < entryVersions.count ? entryVersions[m] : playlistVersion)
                j = m + 1
            } else {
                newIDs.append(nextID)
                nextID += 1
                newVersions.append(playlistVersion)
            }
        }
        ids = newIDs
        entryVersions = newVersions
    }

    /// The queue position of song `id`.
    func position(ofID id: Int) -> Int? { ids.firstIndex(of: id) }
}
