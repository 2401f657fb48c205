// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// Where restoring the saved queue after a restart stands. The saved track plays as soon as its
/// stick is mounted, before the stick's scan ends (the engine gets that one file: `playingAlone`);
/// when the catalog is ready the queue around it takes over without a break (`adopted`, until the
/// engine has the whole queue).
///
/// Thread: any (a value); the player's copy lives on the loop thread.
enum RestoreSession: Equatable {
    /// Nothing to restore (none saved, done, or given up).
    case none
    /// A saved queue waits for its stick's tracks in the catalog; nothing of it plays yet.
    case waiting(ResumeState)
    /// The saved track plays (or is positioned) alone in the engine, under `provisionalID`,
    /// before the catalog knows it; `finished`: it played to its end before the catalog came.
    case playingAlone(ResumeState, finished: Bool)
    /// The queue is known and the restored track is its current entry, but the engine still holds
    /// that track alone: when it ends the engine gets the rest; a skip hands it the whole queue.
    case adopted

    /// The engine id of the restored track while the engine holds it alone.
    static let provisionalID: UInt64 = 1 << 62

    /// The saved state still to restore (waiting, or playing alone).
    var pending: ResumeState? {
        switch self {
        case .waiting(let state), .playingAlone(let state, _): state
        case .none, .adopted: nil
        }
    }

    /// The saved track playing alone before its catalog came (what the screen shows of it).
    var playingAloneState: ResumeState? {
        if case .playingAlone(let state, _) = self { return state }
        return nil
    }

    /// Whether the engine's queue is the restored track alone (playing alone, or adopted).
    var engineHoldsRestoredTrackOnly: Bool {
        switch self {
        case .playingAlone, .adopted: true
        case .none, .waiting: false
        }
    }

    /// The restored track playing alone reached its end before the catalog came.
    mutating func trackFinished() {
        if case .playingAlone(let state, _) = self { self = .playingAlone(state, finished: true) }
    }
}
