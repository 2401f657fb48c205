// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// Where restoring the saved queue after a restart stands. The saved track plays as soon as its
/// stick is mounted, before the stick's scan ends (the engine gets that one file: `playingAlone`);
/// when the catalog is ready the queue around it takes over without a break (`adopted`, until the
/// engine has the whole queue). A part of the player: its state changes only in `handle`, which
/// returns what the rest of the player must do about it (the engine, the transport, the queue).
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

    /// What happens to the restore.
    enum Event: Equatable {
        /// The listener or a remote client chose what plays, or the engine got the whole queue:
        /// nothing is restored any more.
        case takenOver
        /// The queue played out: an adopted restore is over.
        case queueFinished
        /// The saved track's file is at `path` before its stick's catalog came: it plays alone.
        case trackFound(path: String)
        /// The catalog has the saved track's stick, and the track is not on it.
        case trackGone
        /// The catalog came: the restored track is the queue's entry `entry` from now on.
        case placed(entry: Int)
        /// The engine played the restored track to its end; `queueKnown`: its queue is known.
        case trackEnded(queueKnown: Bool)
        /// The restored track's stick went before its catalog came.
        case stickRemoved
    }

    mutating func handle(_ event: Event) -> [PlayerEffect] {
        switch event {
        case .takenOver:
            self = .none
            return []
        case .queueFinished:
            if self == .adopted { self = .none }
            return []
        case .trackFound(let path):
            guard case .waiting(let resume) = self else { return [] }
            self = .playingAlone(resume, finished: false)
            let frames = resume.positionFrames
            return [
                .engine(.setQueue([TrackRequest(id: Self.provisionalID, path: path)], startAt: 0, startFrame: frames)),
                .transport(.located(frames: frames, sampleRate: resume.sampleRate)),
                // A jump the player did not ask of the engine: remote clients see the restored position.
                .remoteChange(.playback),
                .transport(.status(resume.playing ? .playing : (frames > 0 ? .paused : .stopped))),
            ]
        case .trackGone:
            let playing = playingAloneState != nil
            self = .none
            return playing ? [.silence] : []
        case .placed(let entry):
            guard case .playingAlone(_, let finished) = self else { return [] }
            self = finished ? .none : .adopted
            // Played out before the catalog came: the entry after it plays now.
            return [.adoptRestoredTrack(entry: entry)] + (finished ? [.moveOn(.ended)] : []) + [.save(.soon)]
        case .trackEnded(let queueKnown):
            guard queueKnown else {
                if case .playingAlone(let state, _) = self { self = .playingAlone(state, finished: true) }
                return []
            }
            self = .none
            return [.moveOn(.ended)]
        case .stickRemoved:
            if let state = playingAloneState { self = .waiting(state) }
            return [.silence]
        }
    }
}
