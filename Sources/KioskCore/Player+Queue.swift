// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
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
        apply([.save(.soon)])
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

    /// `tracks` as the queue, playing from the first (`PlayerCommand.playTracks`).
    func playAlone(_ tracks: [Track], loop: Bool, fadeInMilliseconds: Int) {
        playQueue.repeats = loop
        playQueue.replace(with: tracks, collection: nil, once: !loop)
        if fadeInMilliseconds > 0 { apply([.engine(.fadeInNextStart(milliseconds: fadeInMilliseconds))]) }
        startQueue(at: 0, frame: 0, status: .playing)
    }

    /// Turns repeat (start again after the last entry) on or off.
    func setRepeat(_ on: Bool) {
        guard on != playQueue.repeats else { return }
        playQueue.repeats = on
        apply([.save(.soon)])
    }

    /// Sets MPD's single mode (`SingleMode`). While playing, the engine gets the queue again at
    /// the current frame (the current entry alone, or all of it).
    func setSingle(_ mode: SingleMode) {
        if playQueue.setSingle(mode) { handQueueAgain() }
    }

    /// The ReplayGain mode the tracks play with.
    public var replayGainMode: ReplayGainMode { playQueue.replayGain.mode }

    /// Sets the ReplayGain mode. While playing or paused the engine gets the queue again at the
    /// current frame, so the new gain applies at once (MPD applies it to the next chunks too).
    func setReplayGain(_ mode: ReplayGainMode) {
        guard mode != playQueue.replayGain.mode else { return }
        playQueue.replayGain.mode = mode
        handQueueAgain()
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

    /// Applies a remote client's edit of the queue (`PlayQueue`'s edits keep every entry's id and
    /// the current entry). The engine gets the edited queue at the current entry and frame, in the
    /// same play state. False (nothing changed) when the edit refuses.
    @discardableResult
    func editQueue(_ edit: (inout PlayQueue) -> Bool) -> Bool {
        // Read before the edit: the engine's position belongs to the current entry's engine id.
        let frame = status == .stopped ? 0 : livePositionFrames
        let wasEmpty = queue.isEmpty
        guard edit(&playQueue) else { return false }
        takeOver()
        playQueue.detachFromCollection()
        if queue.isEmpty {
            clearQueue()
        } else {
            startQueue(at: queueIndex, frame: wasEmpty ? 0 : frame, status: status)
        }
        return true
    }

    /// Removes the entries at `positions`, as MPD does: when the current entry is among them, a
    /// playing queue goes on with the entry after it in play order, a paused one stops there, and
    /// a stopped one (or one with nothing after it) has no current song any more.
    func removeEntries(_ positions: Set<Int>) {
        let wasStatus = status
        let frame = wasStatus == .stopped ? 0 : livePositionFrames
        let (currentRemoved, successor) = playQueue.removeEntries(positions)
        takeOver()
        playQueue.detachFromCollection()
        if queue.isEmpty {
            clearQueue()
        } else if !currentRemoved {
            startQueue(at: queueIndex, frame: frame, status: wasStatus)
        } else if let successor, wasStatus != .stopped {
            startQueue(at: successor, frame: 0, status: wasStatus == .playing ? .playing : .stopped)
        } else {
            startQueue(at: queueIndex, frame: 0, status: .stopped)
            playQueue.forgetCurrent()
        }
    }

    /// MPD's `shuffle` of the entries `range`: playing or paused, the current entry (when in the
    /// range) goes first; stopped, there is no current song afterwards.
    func shuffleEntries(_ range: Range<Int>) {
        let playing = status != .stopped
        editQueue { queue in
            queue.shuffleEntries(range, keepingCurrentFirst: playing)
            return true
        }
        if !playing { playQueue.forgetCurrent() }
    }

    /// MPD's `prio`: the engine gets the queue again only when the play order changed (a shuffle).
    func setPriority(_ priority: UInt8, for range: Range<Int>) {
        let before = playQueue.order
        playQueue.setPriority(priority, for: range)
        if playQueue.order != before { handQueueAgain() }
    }

    /// Entry `entry` plays `range` from now on. The engine gets the queue again (at the current
    /// frame) so that it holds the entry with its new range, as MPD re-queues its queued song.
    /// False for no such entry, or the current one while playing or paused (MPD's "Cannot edit the
    /// current song").
    func setRange(_ range: SongRange, at entry: Int) -> Bool {
        guard queue.indices.contains(entry), status == .stopped || entry != queueIndex else { return false }
        playQueue.setRange(range, at: entry)
        handQueueAgain()
        return true
    }

    /// Empties the queue and stops (also a restored track still playing on its own).
    func clearQueue() {
        takeOver()
        apply([.silence])
        playQueue.clear()
        apply([.save(.soon)])
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
