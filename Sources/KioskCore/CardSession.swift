// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// A new card's prompt: the card and the collection it would be linked to, in the mode chosen.
struct CardPrompt {
    let uid: CardUID
    var collection: CardCollection?
    var message: MessageState
}

/// The cards on the box: the links (`cards.json`), a new card's prompt while it shows, the card that
/// started what plays (for a second presentation and its removal), a card waiting for its stick, and
/// the random numbers of random-track cards. A part of the player: what the playing card's removal
/// and absence do is its `handle`, which returns what must follow (a pause, a stop, the countdown).
///
/// Thread: the loop thread (the player's part).
struct CardSession {
    /// How long a new card's prompt, and a card waiting for its stick, last.
    static let promptSeconds = 15
    static let waitNanoseconds: UInt64 = 5 * 60 * 1_000_000_000

    /// The card links (`cards.json`).
    let store: CardStore
    /// How the box is told to link a new card ("hold Select"): the gesture of `play-from-start`.
    var linkGesture = "Hold Select"
    /// How the box is told to change a new card's mode while its prompt shows: the gesture of `select`.
    var modeGesture = "Press Select"
    /// Chooses a random-track card's track (seeded in tests).
    var random = SplitMix(seed: UInt64.random(in: 0...UInt64.max))
    /// A new card waiting to be linked, while its prompt shows.
    var prompt: CardPrompt?
    /// The card that started what the queue plays.
    var playing: CardUID?
    /// The playing card was taken off and that paused playback: putting it back resumes.
    var pausedByRemoval = false
    /// A card whose collection was not there yet (its stick not inserted, or not scanned).
    var waiting: (uid: CardUID, collection: CardCollection, since: UInt64)?

    init(directory: String) {
        store = CardStore(directory: directory)
    }

    /// Something else was chosen: no card plays, none waits.
    mutating func forget() {
        waiting = nil
        playing = nil
    }

    /// What happens to the card session.
    enum Event: Equatable {
        /// Card `uid` was taken off its reader while playback was `status`; `pauses`: config
        /// `cards.removed` is `pause`; `stopAfterMinutes`: `cards.removedStopMinutes`.
        case removed(CardUID, status: PlaybackStatus, pauses: Bool, stopAfterMinutes: Int?)
        /// The playing card stayed off its reader `minutes` while playback was `status`.
        case stayedAway(status: PlaybackStatus, minutes: Int)
        /// Something else than a card's collection was chosen: no card plays, none waits.
        case forgotten
    }

    mutating func handle(_ event: Event) -> [PlayerEffect] {
        switch event {
        case .removed(let uid, let status, let pauses, let stopAfterMinutes):
            guard uid == playing, status != .stopped else { return [] }
            let countdown: [PlayerEffect] = stopAfterMinutes.map { [.timers(.cardAway(minutes: $0))] } ?? []
            guard pauses, status == .playing else { return countdown }
            // Putting it back resumes.
            pausedByRemoval = true
            return countdown + [.transport(.pause)]
        case .stayedAway(let status, let minutes):
            guard playing != nil, status != .stopped else { return [] }
            Log.notice("the playing card stayed off the reader \(minutes) min: stopping")
            pausedByRemoval = false
            return [.stopPlayback, .redraw]
        case .forgotten:
            forget()
            return [.timers(.cardBack)]
        }
    }

    /// A card that waited longer than `waitNanoseconds` by `now` is dropped; the one still waiting.
    mutating func stillWaiting(now: UInt64) -> (uid: CardUID, collection: CardCollection, since: UInt64)? {
        if let waiting, now - waiting.since > Self.waitNanoseconds { self.waiting = nil }
        return waiting
    }
}
