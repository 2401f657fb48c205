// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
import KioskLibrary
import KioskSystem

/// Follows the player from one `onChange` to the next and derives what MPD clients need that the
/// player does not keep: which idle subsystems changed, when the database changed, and how long the
/// player has played. (Song ids and the queue's version are the queue's own: `QueueIdentity`.)
/// Thread: loop thread.
struct MPDStateTracker {
    private struct Observed {
        var status: PlaybackStatus = .stopped
        var queueVersion: UInt32 = 0
        /// The song id of MPD's current song, nil when there is none.
        var currentID: UInt32?
        var volume = -1
        var repeatQueue = false
        var shuffle = false
        var single = SingleMode.off
        var consume = false
        var replayGain = ReplayGainMode.off
        var output = ""
        var catalog: ObjectIdentifier?
        var scanning = false
        var position = 0.0
        var jumps: UInt64 = 0
        var atNs: UInt64 = 0
    }

    private var last = Observed()
    private var first = true

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
        seen.queueVersion = player.playQueue.identity.version
        seen.currentID = player.mpdCurrentPosition.map { player.playQueue.identity.marks[$0].songID }
        seen.volume = player.volume
        seen.repeatQueue = player.repeatQueue
        seen.shuffle = player.shuffle != .off
        seen.single = player.single
        seen.consume = player.consume
        seen.replayGain = player.replayGainMode
        seen.output = player.outputDevice
        seen.catalog = player.catalog.map(ObjectIdentifier.init)
        seen.scanning = !(library?.isIdle ?? true)
        seen.position = player.positionSeconds
        seen.jumps = player.positionJumps
        seen.atNs = now
        defer {
            last = seen
            first = false
        }
        if first { return [] }
        if last.status == .playing { playedNs &+= now &- last.atNs }
        var changes: MPDIdle = []
        if seen.queueVersion != last.queueVersion { changes.insert(.playlist) }
        // The current song changed (a queue that just got its first entries had no current song).
        let trackChanged = last.currentID != nil && seen.currentID != last.currentID
        if seen.status != last.status || trackChanged || seen.jumps != last.jumps {
            // Every seek the player made counts, however short (a `seekcur +1`).
            changes.insert(.player)
        } else if seen.status != .stopped {
            // A jump the player did not make (a restored position taking effect, say).
            let expected = last.position + (last.status == .playing ? Double(now &- last.atNs) / 1e9 : 0)
            if abs(seen.position - expected) > 2 { changes.insert(.player) }
        }
        if seen.volume != last.volume { changes.insert(.mixer) }
        if seen.repeatQueue != last.repeatQueue || seen.shuffle != last.shuffle || seen.single != last.single
            || seen.consume != last.consume || seen.replayGain != last.replayGain
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
}
