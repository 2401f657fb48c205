// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
import KioskLibrary
import KioskSystem

/// Turns the player's typed changes (`PlayerChange.remote`) into MPD's idle subsystems, and keeps
/// what MPD clients need that the player does not: when the database changed, how long the player
/// has played, whether the library scans. (Song ids and the queue's version are the queue's own:
/// `QueueIdentity`.) Nothing is read back and compared: each aspect the player names is an event.
/// Thread: loop thread.
struct MPDStateTracker {
    private var status = PlaybackStatus.stopped
    private var statusSinceNs: UInt64 = 0
    private var playedBeforeNs: UInt64 = 0

    /// Seconds since the epoch of the last catalog change.
    private(set) var databaseUpdated = Int(Syscalls.realtimeNanoseconds() / 1_000_000_000)
    /// Nanoseconds of playback seen so far.
    var playedNs: UInt64 {
        playedBeforeNs &+ (status == .playing ? Syscalls.monotonicNanoseconds() &- statusSinceNs : 0)
    }
    /// Whether the library is scanning (`updating_db:` in status).
    private(set) var scanning = false

    /// Starts following a player whose play state is `status` and a library scanning or not.
    mutating func start(status: PlaybackStatus, scanning: Bool) {
        self.status = status
        statusSinceNs = Syscalls.monotonicNanoseconds()
        self.scanning = scanning
    }

    /// The subsystems `aspects` changed; `status` is the play state after the change.
    mutating func apply(_ aspects: PlayerAspects, status: PlaybackStatus) -> MPDIdle {
        var changes: MPDIdle = []
        if aspects.contains(.queue) { changes.insert(.playlist) }
        if aspects.contains(.playback) {
            changes.insert(.player)
            if status != self.status {
                let now = Syscalls.monotonicNanoseconds()
                if self.status == .playing { playedBeforeNs &+= now &- statusSinceNs }
                self.status = status
                statusSinceNs = now
            }
        }
        if aspects.contains(.volume) { changes.insert(.mixer) }
        if aspects.contains(.options) { changes.insert(.options) }
        if aspects.contains(.output) { changes.insert(.output) }
        if aspects.contains(.cards) { changes.insert(.kioskCard) }
        if aspects.contains(.catalog) {
            changes.formUnion([.database, .storedPlaylist])
            databaseUpdated = Int(Syscalls.realtimeNanoseconds() / 1_000_000_000)
        }
        return changes
    }

    /// The library's scanning state now: an `update` event when it began or ended.
    mutating func followLibrary(scanning now: Bool) -> MPDIdle {
        guard now != scanning else { return [] }
        scanning = now
        return .update
    }
}
