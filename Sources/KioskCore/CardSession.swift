// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// A new card's prompt: the card and the collection it would be linked to, in the mode chosen.
struct CardPrompt: Equatable {
    let uid: CardUID
    var collection: CardCollection?
    var message: MessageState
}

/// The cards on the box: the links (`cards.json`), a new card's prompt while it shows, the card that
/// started what plays (for a second presentation and its removal), a card waiting for its stick, and
/// the random numbers of random-track cards. A part of the player: what a card shown asks for is its
/// `presented`, and every change of its state goes through its `handle`, which returns what must
/// follow (a pause, a stop, the countdown); the player only reads the rest.
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
    private(set) var prompt: CardPrompt?
    /// The card that started what the queue plays.
    private(set) var playing: CardUID?
    /// The playing card was taken off and that paused playback: putting it back resumes.
    private(set) var pausedByRemoval = false
    /// The last card shown to a reader, and how many showings there were (the phone page lists it).
    private(set) var lastShown: CardUID?
    private(set) var shownCount = 0
    /// A card whose collection was not there yet (its stick not inserted, or not scanned).
    private(set) var waiting: (uid: CardUID, collection: CardCollection, since: UInt64)?

    init(directory: String) {
        store = CardStore(directory: directory)
    }

    /// What a card shown to the reader asks for, from its link and what plays.
    enum Presentation: Equatable {
        /// No link: offer to link it to what is selected or plays.
        case offerLink
        /// A card that acts like a button.
        case act(CardAction)
        /// Its collection, as its mode says.
        case play(CardCollection)
        /// Its removal paused playback: putting it back resumes.
        case resume
        /// The card that started what plays, shown again: config `cards.again` says what follows.
        case again
    }

    /// Card `uid`, linked as `link`, was shown while playback was `status`; `queuePlays` tells
    /// whether the queue plays a collection (that of the card that started it).
    mutating func presented(
        _ uid: CardUID, link: CardLink?, status: PlaybackStatus, queuePlays: (CardCollection) -> Bool
    ) -> Presentation {
        guard let link else { return .offerLink }
        switch link {
        case .action(let action):
            return .act(action)
        case .collection(let wanted):
            // A one-track card put back on the track it paused resumes it; another card, or a tap
            // after a track ended, plays (its next track).
            let itsOwn = uid == playing && (wanted.mode.playsOneTrack || queuePlays(wanted))
            guard itsOwn else { return .play(wanted) }
            if pausedByRemoval && status == .paused {
                pausedByRemoval = false
                return .resume
            }
            return wanted.mode.playsOneTrack ? .play(wanted) : .again
        }
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
        /// Card `uid`'s collection started playing.
        case started(CardUID)
        /// Card `uid`'s collection is not there yet: it plays when its stick comes, from `since`.
        case waitsForItsStick(CardUID, CardCollection, since: UInt64)
        /// The card waiting for its stick waits no more (its stick is in without the collection).
        case stopsWaiting
        /// A new card's prompt shows (or none: nil).
        case prompts(CardPrompt?)
        /// Card `uid` was linked from its prompt; `playsNow`: to the collection the queue plays.
        case linked(CardUID, playsNow: Bool)
        /// Card `uid` was unlinked.
        case unlinked(CardUID)
        /// Card `uid` was shown to a reader (linked or not).
        case shown(CardUID)
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
            waiting = nil
            playing = nil
            return [.timers(.cardBack)]
        case .started(let uid):
            playing = uid
            pausedByRemoval = false
            return []
        case .waitsForItsStick(let uid, let collection, let since):
            waiting = (uid, collection, since)
            return []
        case .stopsWaiting:
            waiting = nil
            return []
        case .prompts(let prompt):
            self.prompt = prompt
            return []
        case .linked(let uid, let playsNow):
            prompt = nil
            if playsNow { playing = uid }
            return []
        case .unlinked(let uid):
            if playing == uid { playing = nil }
            return []
        case .shown(let uid):
            lastShown = uid
            shownCount += 1
            return []
        }
    }

    /// A card that waited longer than `waitNanoseconds` by `now` is dropped; the one still waiting.
    mutating func stillWaiting(now: UInt64) -> (uid: CardUID, collection: CardCollection, since: UInt64)? {
        if let waiting, now - waiting.since > Self.waitNanoseconds { self.waiting = nil }
        return waiting
    }
}
