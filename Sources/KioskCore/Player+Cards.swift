import KioskDisplay
import KioskInput
import KioskLibrary
import KioskSystem

/// A new card's prompt: the card and the collection it would be linked to.
struct CardPrompt {
    let uid: CardUID
    let collection: CardCollection?
    let message: MessageState
}

/// Cards: a linked card plays its collection (where its bookmark left it) or acts like a button;
/// the same card again and a card taken off do what config `cards` says; a new card offers to link
/// itself to what plays or is selected; the Cards screen lists the links and unlinks one.
/// Thread: the loop thread, like `Player`.
extension Player {
    /// How long a new card's prompt, and a card waiting for its stick, last.
    static let cardPromptSeconds = 15
    static let cardWaitNanoseconds: UInt64 = 5 * 60 * 1_000_000_000

    /// A card presented to a reader or taken off.
    public func handle(_ event: CardEvent) {
        guard !shuttingDown else { return }
        rearmIdleTimer()
        restartIdlePowerOff()
        switch event.kind {
        case .presented: cardPresented(event.uid)
        case .removed: cardRemoved(event.uid)
        }
        refreshScreen()
    }

    private func cardPresented(_ uid: CardUID) {
        cards.reloadIfChanged()
        guard let link = cards.link(of: uid) else {
            promptToLink(uid)
            return
        }
        Log.info("card \(uid): \(link.summary)")
        switch link {
        case .action(let action):
            perform(action)
        case .collection(let wanted):
            if uid == playingCard, let playing = queueCollection, playing.category == wanted.category,
                playing.key == wanted.key
            {
                presentedAgain()
            } else {
                play(wanted, card: uid)
            }
        }
    }

    /// The card that started what plays, shown again.
    private func presentedAgain() {
        if pausedByCardRemoval && status == .paused {
            pausedByCardRemoval = false
            resume()
            return
        }
        switch config.cards.again {
        case .restart: if !queue.isEmpty { startQueue(at: playQueue.firstInOrder, frame: 0, status: .playing) }
        case .togglePause: transport(.playPause)
        case .nothing: if status != .playing { transport(.play) }
        case .next: skip(forward: true)
        }
    }

    private func cardRemoved(_ uid: CardUID) {
        guard uid == playingCard, config.cards.removed == .pause, status == .playing else { return }
        pause()
        pausedByCardRemoval = true
    }

    /// Plays a card's collection; when it is not there, says which stick to insert and plays it
    /// when it comes (within five minutes, unless something else is chosen first).
    func play(_ wanted: CardCollection, card uid: CardUID) {
        if let collection = resolve(wanted) {
            waitingCard = nil
            play(collection: collection, fromStart: false)
            playingCard = uid
            pausedByCardRemoval = false
            return
        }
        waitingCard = (uid, wanted, scheduler.nowNanoseconds)
        let onBox = volumesPresent.contains(wanted.volumeID) || volumeLabelPresent(wanted.volumeLabel)
        if onBox && !scanning.isEmpty {
            showTransient(MessageState(title: "Reading the stick…", detail: wanted.name, kind: .progress), seconds: 4)
        } else if onBox {
            waitingCard = nil
            showTransient(
                MessageState(
                    title: "Not on the stick", detail: "'\(wanted.name)' is not on \(wanted.stickName) any more",
                    kind: .error), seconds: 6)
        } else {
            showTransient(
                MessageState(
                    title: wanted.volumeLabel.map { "Insert the stick '\($0)'" } ?? "Insert its stick",
                    detail: wanted.name, kind: .info), seconds: 8)
        }
    }

    /// After the catalog changed: a card waiting for its stick plays now if its collection came.
    func playWaitingCard() {
        guard let waiting = waitingCard else { return }
        if scheduler.nowNanoseconds - waiting.since > Self.cardWaitNanoseconds {
            waitingCard = nil
            return
        }
        guard resolve(waiting.collection) != nil else {
            if scanning.isEmpty && volumesPresent.contains(waiting.collection.volumeID) {
                // Its stick is in and read, without the collection.
                waitingCard = nil
                play(waiting.collection, card: waiting.uid)
            }
            return
        }
        play(waiting.collection, card: waiting.uid)
    }

    /// The collection a card names: by its key; else, for keys that carry their volume (folders,
    /// playlists), on a present stick with the same label (the stick was reformatted or copied to a
    /// new one, so its UUID changed).
    func resolve(_ wanted: CardCollection) -> Collection? {
        guard let catalog else { return nil }
        if let found = catalog.collection(wanted.category, key: wanted.key) { return found }
        let prefix = wanted.volumeID + "\u{1F}"
        guard wanted.key.hasPrefix(prefix), let label = wanted.volumeLabel else { return nil }
        let rest = wanted.key.dropFirst(prefix.count)
        for id in volumes(labelled: label) where id.rawValue != wanted.volumeID {
            if let found = catalog.collection(wanted.category, key: id.rawValue + "\u{1F}" + rest) { return found }
        }
        return nil
    }

    private func volumes(labelled label: String) -> [VolumeID] {
        guard let catalog else { return [] }
        return catalog.volumes.filter { id in
            catalog.allTracks.first { $0.volume == id }.flatMap { CardCollection.label(ofMountPoint: $0.mountPoint) }
                == label
        }
    }

    private func volumeLabelPresent(_ label: String?) -> Bool {
        guard let label else { return false }
        return !volumes(labelled: label).isEmpty
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
        pendingResume = nil
        waitingCard = nil
        playingCard = nil
        let audiobook = audiobooks.isAudiobook(tracks)
        playQueue.replace(with: tracks, collection: collection, audiobook: audiobook)
        if !fromStart, let place = bookmarkedPlace(in: tracks, collection: collection, audiobook: audiobook) {
            startQueue(at: place.index, frame: place.frame, status: .playing)
        } else {
            startQueue(at: playQueue.firstInOrder, frame: 0, status: .playing)
        }
        mode = .nowPlaying
    }

    private func perform(_ action: CardAction) {
        switch action {
        case .playPause: transport(.playPause)
        case .stop: transport(.stop)
        case .next: skip(forward: true)
        case .previous: skip(forward: false)
        case .shuffleOn:
            setShuffle(.tracks)
            showTransient(MessageState(title: Self.shuffleTitle(playQueue.shuffle)), seconds: 2)
        case .shuffleOff:
            setShuffle(.off)
            showTransient(MessageState(title: Self.shuffleTitle(.off)), seconds: 2)
        case .sleep(let minutes):
            setSleepTimer(seconds: minutes * 60)
            showTransient(MessageState(title: "Sleep in \(minutes) min"), seconds: 2)
        case .volumeLimit(let percent):
            cardVolumeCeiling = percent
            if volume > volumeLimits.range.upperBound { changeVolume(by: volumeLimits.range.upperBound - volume) }
            showTransient(MessageState(title: "Volume at most \(volumeLimits.range.upperBound) %"), seconds: 2)
        case .volumeLimitOff:
            cardVolumeCeiling = nil
            showTransient(MessageState(title: "Volume limit off"), seconds: 2)
        case .shutdown:
            requestShutdown()
        }
    }

    /// The volumes reachable now: the config's, lowered by a card's limit.
    var volumeLimits: VolumeLimits {
        guard let ceiling = cardVolumeCeiling else { return config.volumeLimits }
        let range = config.volumeLimits.range
        return VolumeLimits(range.lowerBound...max(range.lowerBound, min(range.upperBound, ceiling)))
    }

    // MARK: - linking on the box

    /// An unknown card: offers to link it to the selected collection (in browse) or the one playing.
    private func promptToLink(_ uid: CardUID) {
        var target: Collection?
        if mode == .browse, !collections.isEmpty {
            target = collections[selectedIndex]
        } else {
            target = queueCollection
        }
        guard let target, let catalog else {
            let message = MessageState(
                title: "New card", detail: "Choose an album, then show the card again", kind: .info)
            cardPrompt = CardPrompt(uid: uid, collection: nil, message: message)
            showTransient(message, seconds: 6)
            return
        }
        let collection = CardCollection.of(target, in: catalog)
        let message = MessageState(
            title: "New card", detail: "\(linkGesture) to link it to '\(collection.name)'", kind: .info)
        cardPrompt = CardPrompt(uid: uid, collection: collection, message: message)
        showTransient(message, seconds: Self.cardPromptSeconds)
        Log.info("card \(uid): not linked; offering \(collection.name)")
    }

    /// While a new card's prompt shows, play-from-start (holding Select) links it; true when the
    /// action was used so.
    func answerCardPrompt(_ action: Action) -> Bool {
        guard let prompt = cardPrompt else { return false }
        guard transient?.message == prompt.message else {
            cardPrompt = nil
            return false
        }
        guard action == .playFromStart, let collection = prompt.collection else { return false }
        cardPrompt = nil
        do {
            try cards.setLink(.collection(collection), for: prompt.uid)
            Log.notice("card \(prompt.uid) linked to \(collection.category.rawValue) \"\(collection.name)\"")
            if queueCollection?.key == collection.key && queueCollection?.category == collection.category {
                playingCard = prompt.uid
            }
            showTransient(MessageState(title: "Card linked", detail: collection.name, kind: .info), seconds: 3)
        } catch {
            Log.error("cannot link card \(prompt.uid): \(error)")
            showTransient(MessageState(title: "Cannot link the card", detail: "\(error)", kind: .error), seconds: 6)
        }
        return true
    }

    // MARK: - the Cards screen

    /// The Cards screen's rows: each linked card, then Close.
    var cardEntries: [BrowseItem] {
        cards.sorted.map { BrowseItem(title: $0.link.summary, subtitle: "card \($0.uid)") }
            + [BrowseItem(title: "Close", subtitle: cards.links.isEmpty ? "No cards linked yet" : nil)]
    }

    /// Cards: next/previous move (wrapping); hold Select (play-from-start) unlinks the selected
    /// card; select on a card says so, on Close closes; back and menu return to the menu.
    func handleCards(_ action: Action, selected: Int) {
        let count = cards.links.count + 1
        switch action {
        case .next, .down, .nextCollection: mode = .cards(selected: (selected + 1) % count)
        case .previous, .up, .previousCollection: mode = .cards(selected: (selected + count - 1) % count)
        case .select, .playPause:
            if selected >= count - 1 {
                mode = .nowPlaying
            } else {
                showTransient(MessageState(title: "\(linkGesture) to unlink this card"), seconds: 3)
            }
        case .playFromStart:
            guard selected < count - 1 else {
                mode = .nowPlaying
                return
            }
            let uid = cards.sorted[selected].uid
            do {
                try cards.unlink(uid)
                if playingCard == uid { playingCard = nil }
                mode = .cards(selected: min(selected, cards.links.count))
                showTransient(MessageState(title: "Card unlinked", detail: "card \(uid)"), seconds: 3)
            } catch {
                showTransient(
                    MessageState(title: "Cannot unlink the card", detail: "\(error)", kind: .error), seconds: 6)
            }
        case .back, .menu: mode = .menu(selected: 5)
        case .help: mode = .help(page: 0)
        case .play, .pause, .stop: transport(action)
        case .nextCategory, .previousCategory: break
        case .volumeUp, .volumeDown, .shutdown, .shuffle, .sleep: break
        }
    }
}
