import KioskDisplay
import KioskSystem

/// Shuffle, from the menu, the shuffle action (a board gesture) and MPD's `random`. The order
/// itself is `PlayQueue`'s; here the engine gets the new order without losing the track that plays.
/// Thread: the loop thread, like `Player`.
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
        if playQueue.order != before, !queue.isEmpty, !engineQueueIsProvisional, provisional == nil {
            startQueue(at: queueIndex, frame: status == .stopped ? 0 : livePositionFrames, status: status)
        }
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

    /// MPD's `random`: on shuffles tracks (an album shuffle chosen on the box stays), off stops it.
    public func remoteSetRandom(_ on: Bool) {
        if on == (playQueue.shuffle != .off) { return }
        setShuffle(on ? .tracks : .off)
        refreshScreen()
    }

    static func shuffleTitle(_ mode: PlayQueue.Shuffle) -> String {
        switch mode {
        case .off: "Shuffle off"
        case .tracks: "Shuffle: tracks"
        case .albums: "Shuffle: albums"
        }
    }
}
