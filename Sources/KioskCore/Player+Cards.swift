import KioskDisplay
import KioskInput
import KioskLibrary
import KioskSystem

/// Cards: a linked card plays its collection (where its bookmark left it) or acts like a button;
/// the same card again and a card taken off do what config `cards` says; a new card offers to link
/// itself to what plays or is selected; the Cards screen lists the links and unlinks one.
/// Thread: the loop thread, like `Player`.
extension Player {
    /// A card presented to a reader or taken off.
    public func handle(_ event: CardEvent) {
        scheduler.assertInLoop()
        guard !shuttingDown else { return }
        guard lockAdmits(event) else { return }
        inputCame()
        switch event.kind {
        case .presented: cardPresented(event.uid)
        case .removed: cardRemoved(event.uid)
        }
        refreshScreen()
    }

    private func cardPresented(_ uid: CardUID) {
        timers.cancelCardAway()
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
            if uid == cardSession.playing, let playing = queueCollection, playing.category == wanted.category,
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
        if cardSession.pausedByRemoval && status == .paused {
            cardSession.pausedByRemoval = false
            resume()
            return
        }
        switch config.cards.again {
        case .restart: playFromStart()
        case .togglePause: apply(.togglePause, from: .card)
        case .nothing: apply(.play, from: .card)
        case .next: apply(.next, from: .card)
        }
    }

    /// The playing card taken off: a pause (config `cards.removed`), and with
    /// `cards.removedStopMinutes` a stop when it stays away that long.
    private func cardRemoved(_ uid: CardUID) {
        guard uid == cardSession.playing, status != .stopped else { return }
        if let minutes = config.cards.removedStopMinutes { timers.startCardAway(minutes: minutes) }
        guard config.cards.removed == .pause, status == .playing else { return }
        pause()
        cardSession.pausedByRemoval = true
    }

    /// Plays a card's collection; when it is not there, says which stick to insert and plays it
    /// when it comes (within five minutes, unless something else is chosen first).
    func play(_ wanted: CardCollection, card uid: CardUID) {
        if let collection = resolve(wanted) {
            play(collection: collection, fromStart: false)
            cardSession.playing = uid
            cardSession.pausedByRemoval = false
            return
        }
        cardSession.waiting = (uid, wanted, scheduler.nowNanoseconds)
        let onBox = isPresent(wanted.volumeID) || volumeLabelPresent(wanted.volumeLabel)
        if onBox && isScanning {
            showTransient(MessageState(title: "Reading the stick…", detail: wanted.name, kind: .progress), seconds: 4)
        } else if onBox {
            cardSession.waiting = nil
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
        guard let waiting = cardSession.stillWaiting(now: scheduler.nowNanoseconds) else { return }
        guard resolve(waiting.collection) != nil else {
            if !isScanning && isPresent(waiting.collection.volumeID) {
                // Its stick is in and read, without the collection.
                cardSession.waiting = nil
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

    /// Something else was chosen than a card's collection: no card plays, none waits.
    func forgetCard() {
        cardSession.forget()
        timers.cancelCardAway()
    }

    private func perform(_ action: CardAction) {
        switch action {
        case .playPause: apply(.togglePause, from: .card)
        case .stop: apply(.stop, from: .card)
        case .next: apply(.next, from: .card)
        case .previous: apply(.previous, from: .card)
        case .shuffleOn:
            apply(.setShuffle(.tracks), from: .card)
            showTransient(MessageState(title: Self.shuffleTitle(shuffle)), seconds: 2)
        case .shuffleOff:
            apply(.setShuffle(.off), from: .card)
            showTransient(MessageState(title: Self.shuffleTitle(.off)), seconds: 2)
        case .sleep(let minutes):
            apply(.setSleepTimer(seconds: minutes * 60), from: .card)
            showTransient(MessageState(title: "Sleep in \(minutes) min"), seconds: 2)
        case .volumeLimit(let percent):
            setVolumeCeiling(percent)
            showTransient(MessageState(title: "Volume at most \(volumeLimits.range.upperBound) %"), seconds: 2)
        case .volumeLimitOff:
            setVolumeCeiling(nil)
            showTransient(MessageState(title: "Volume limit off"), seconds: 2)
        case .shutdown:
            apply(.shutdown, from: .card)
        case .lock:
            toggleLock()
        }
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
            cardSession.prompt = CardPrompt(uid: uid, collection: nil, message: message)
            showTransient(message, seconds: 6)
            return
        }
        let collection = CardCollection.of(target, in: catalog)
        let message = MessageState(
            title: "New card", detail: "\(linkGesture) to link it to '\(collection.name)'", kind: .info)
        cardSession.prompt = CardPrompt(uid: uid, collection: collection, message: message)
        showTransient(message, seconds: CardSession.promptSeconds)
        Log.info("card \(uid): not linked; offering \(collection.name)")
    }

    /// While a new card's prompt shows, play-from-start (holding Select) links it; true when the
    /// action was used so.
    func answerCardPrompt(_ action: Action) -> Bool {
        guard let prompt = cardSession.prompt else { return false }
        guard transientMessage == prompt.message else {
            cardSession.prompt = nil
            return false
        }
        guard action == .playFromStart, let collection = prompt.collection else { return false }
        cardSession.prompt = nil
        do {
            try cards.setLink(.collection(collection), for: prompt.uid)
            Log.notice("card \(prompt.uid) linked to \(collection.category.rawValue) \"\(collection.name)\"")
            if queueCollection?.key == collection.key && queueCollection?.category == collection.category {
                cardSession.playing = prompt.uid
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

    /// Unlinks the card in row `row` of the Cards screen; false when that failed (a message says
    /// why).
    func unlinkCard(at row: Int) -> Bool {
        let uid = cards.sorted[row].uid
        do {
            try cards.unlink(uid)
            if cardSession.playing == uid { cardSession.playing = nil }
            showTransient(MessageState(title: "Card unlinked", detail: "card \(uid)"), seconds: 3)
            return true
        } catch {
            showTransient(MessageState(title: "Cannot unlink the card", detail: "\(error)", kind: .error), seconds: 6)
            return false
        }
    }
}
