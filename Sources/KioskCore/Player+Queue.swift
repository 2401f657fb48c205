import KioskDisplay
import KioskLibrary
import KioskSystem

/// The queue's settings and edits as the player applies them: shuffle (from the menu, the shuffle
/// action and MPD's `random`), repeat, MPD's single and consume, and a queue edited by a remote
/// client. The rules themselves are `PlayQueue`'s; here the engine gets the new queue without
/// losing the track that plays. Thread: the loop thread, like `Player`.
extension Player {
    /// The shuffle chosen.
    public var shuffle: PlayQueue.Shuffle { playQueue.shuffle }

    /// Chooses the shuffle. What plays goes on from where it is, first of the new order.
    public func setShuffle(_ mode: PlayQueue.Shuffle) {
        guard mode != playQueue.shuffle else { return }
        let before = playQueue.order
        playQueue.setShuffle(mode)
        Log.info(
            "shuffle: \(mode.rawValue)\(playQueue.isAudiobook ? " (the queue is an audiobook: it keeps its order)" : "")"
        )
        if playQueue.order != before { handQueueAgain() }
        recorder.saveSoon()
    }

    /// The entry that plays after the current one (in play order), nil at the end of the queue.
    /// Past the end with repeat on, a shuffle draws a new order then: this is its first guess.
    public var upcomingEntry: Int? {
        switch playQueue.afterCurrent {
        case .entry(let entry): entry
        case .wrapped: playQueue.firstInOrder
        case .end, .restart: nil
        }
    }

    /// The next shuffle: off → tracks → albums → off.
    func cycleShuffle() {
        let all = PlayQueue.Shuffle.allCases
        setShuffle(all[(all.firstIndex(of: playQueue.shuffle)! + 1) % all.count])
        showTransient(MessageState(title: Self.shuffleTitle(playQueue.shuffle), kind: .info), seconds: 2)
    }

    static func shuffleTitle(_ mode: PlayQueue.Shuffle) -> String {
        switch mode {
        case .off: "Shuffle off"
        case .tracks: "Shuffle: tracks"
        case .albums: "Shuffle: albums"
        }
    }

    /// Turns repeat (start again after the last entry) on or off.
    func setRepeat(_ on: Bool) {
        guard on != playQueue.repeats else { return }
        playQueue.repeats = on
        recorder.saveSoon()
    }

    /// Sets MPD's single mode (`SingleMode`). While playing, the engine gets the queue again at
    /// the current frame (the current entry alone, or all of it).
    func setSingle(_ mode: SingleMode) {
        if playQueue.setSingle(mode) { handQueueAgain() }
    }

    /// Sets MPD's consume mode: from now on each entry that has played leaves the queue.
    func setConsume(_ on: Bool) { playQueue.consume = on }

    /// The engine gets the queue again at the current entry and frame, keeping the play state
    /// (after a new order or single mode); not while it holds a restored track alone.
    private func handQueueAgain() {
        guard !queue.isEmpty, !engineHoldsRestoredTrackOnly else { return }
        startQueue(at: queueIndex, frame: status == .stopped ? 0 : livePositionFrames, status: status)
    }

    /// The queue again from its first entry in play order, playing.
    func playFromStart() {
        guard !queue.isEmpty else { return }
        startQueue(at: playQueue.firstInOrder, frame: 0, status: .playing)
    }

    /// Installs an edited queue (a remote client's) whose current entry is `current`. When
    /// `currentKept`, the entry that was playing is still there and goes on from where it is;
    /// otherwise `current` starts from its beginning (playing if the player was).
    func replaceQueue(_ edited: [Track], current: Int, currentKept: Bool, status wanted: PlaybackStatus? = nil) {
        takeOver()
        let wasStatus = status
        let frame = currentKept && wasStatus != .stopped ? livePositionFrames : 0
        playQueue.replace(with: edited, collection: nil, current: edited.isEmpty ? nil : current)
        // Playing goes on playing, paused stays paused (at the start of the next entry when the
        // current one went), stopped stays stopped.
        startQueue(at: current, frame: frame, status: wanted ?? wasStatus)
    }

    /// Empties the queue and stops (also a restored track still playing on its own).
    func clearQueue() {
        takeOver()
        silenceEngine()
        playQueue.clear()
        recorder.saveSoon()
    }

    /// Plays `collection`: where its bookmark left it (when it has one), else, or with
    /// `fromStart`, from its first track.
    func play(collection: Collection, fromStart: Bool) {
        guard let catalog else { return }
        let tracks = catalog.tracks(of: collection)
        guard !tracks.isEmpty else { return }
        // The listener chose something else: a saved queue that still waits for its stick is dropped,
        // and the place in what played is kept for its bookmark.
        noteBookmark(leaving: true)
        takeOver()
        forgetCard()
        let audiobook = memory.isAudiobook(tracks)
        playQueue.replace(with: tracks, collection: collection, audiobook: audiobook)
        if !fromStart, let place = memory.place(in: tracks, collection: collection, audiobook: audiobook) {
            startQueue(at: place.index, frame: place.frame, status: .playing)
        } else {
            startQueue(at: playQueue.firstInOrder, frame: 0, status: .playing)
        }
        show(.nowPlaying)
    }
}
