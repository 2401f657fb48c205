// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// Cards: a linked card plays its collection as its mode says (`CardMode`: the album where its
/// bookmark left it, one track per tap, a random track, continue) or acts like a button; the same
/// card again and a card taken off do what config `cards` says; a new card offers to link itself to
/// what plays or is selected, in a mode the box's second gesture cycles; the Cards screen lists the
/// links and unlinks one.
/// Thread: the loop thread, like `Player`.
extension Player {
    /// A card presented to a reader or taken off.
    public func handle(_ event: CardEvent) {
        scheduler.assertInLoop()
        guard !shuttingDown else { return }
        guard lockAdmits(event) else { return }
        inputCame()
        if isExhibit {
            // Only cards bound to clips count; a new card offers no link.
            _ = exhibitCard(event.uid.rawValue, presented: event.kind == .presented)
            return
        }
        switch event.kind {
        case .presented: cardPresented(event.uid)
        case .removed: cardRemoved(event.uid)
        }
        refreshScreen()
    }

    private func cardPresented(_ uid: CardUID) {
        apply(cardSession.handle(.shown(uid)))
        outbox.remoteChanges.note(.cards)
        cancelCardAway()
        cards.reloadIfChanged()
        let link = cards.link(of: uid)
        if let link { Log.info("card \(uid): \(link.summary)") } else { Log.info("card \(uid) shown: not linked") }
        let queueCollection = queueCollection
        let presentation = cardSession.presented(uid, link: link, status: status) { wanted in
            queueCollection?.category == wanted.category && queueCollection?.key == wanted.key
        }
        switch presentation {
        case .offerLink: promptToLink(uid)
        case .act(let action): perform(action)
        case .play(let wanted): play(wanted, card: uid)
        case .resume: resume()
        case .again:
            switch config.cards.again {
            case .restart: playFromStart()
            case .togglePause: apply(.togglePause, from: .card)
            case .nothing: apply(.play, from: .card)
            case .next: apply(.next, from: .card)
            }
        }
    }

    /// The playing card taken off: a pause (config `cards.removed`), and with
    /// `cards.removedStopMinutes` a stop when it stays away that long.
    private func cardRemoved(_ uid: CardUID) {
        apply(
            cardSession.handle(
                .removed(
                    uid, status: status, pauses: config.cards.removed == .pause,
                    stopAfterMinutes: config.cards.removedStopMinutes)))
    }

    /// Plays a card's collection; when it is not there, says which stick to insert and plays it
    /// when it comes (within five minutes, unless something else is chosen first).
    func play(_ wanted: CardCollection, card uid: CardUID) {
        if let collection = resolve(wanted) {
            if wanted.mode.playsOneTrack {
                playOneTrack(of: collection, mode: wanted.mode, card: uid)
            } else {
                // `continue` too: `CollectionMemory.alwaysKept` gives its collection a bookmark.
                play(collection: collection, fromStart: false)
            }
            apply(cardSession.handle(.started(uid)))
            return
        }
        apply(cardSession.handle(.waitsForItsStick(uid, wanted, since: scheduler.nowNanoseconds)))
        let onBox = isPresent(wanted.volumeID) || volumeLabelPresent(wanted.volumeLabel)
        if onBox && isScanning {
            showTransient(MessageState(title: "Reading the stick…", detail: wanted.name, kind: .progress), seconds: 4)
        } else if onBox {
            apply(cardSession.handle(.stopsWaiting))
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

    /// A tap of a track-per-tap or random-track card: the queue becomes the next track of its round
    /// alone (the first not played yet, or a random one of them), which stops at its end (repeat or
    /// not); the round
    /// is saved with the card at once, so a restart goes on from there. After the last track a new
    /// round begins, and a random one does not begin with the track just played.
    private func playOneTrack(of collection: Collection, mode: CardMode, card uid: CardUID) {
        guard let tracks = catalog?.tracks(of: collection), !tracks.isEmpty else { return }
        let present = Set(tracks.map(\.relativePath))
        var played = (cards.played[uid] ?? []).filter { present.contains($0) }
        let done = Set(played)
        var left = tracks.filter { !done.contains($0.relativePath) }
        if left.isEmpty {
            let notLast = tracks.filter { $0.relativePath != played.last }
            // A playlist may hold one file twice: then nothing else is left to begin with.
            left = mode == .randomTrack && !notLast.isEmpty ? notLast : tracks
            played = []
        }
        let track = mode == .randomTrack ? left[Int(cardSession.random.next() % UInt64(left.count))] : left[0]
        played.append(track.relativePath)
        do {
            try cards.setPlayed(played, for: uid)
        } catch {
            Log.error("cannot save where card \(uid) is in '\(collection.name)': \(error)")
        }
        Log.info("card \(uid) (\(mode.rawValue)): track \(played.count) of \(tracks.count), \(track.relativePath)")
        noteBookmark(leaving: true)
        takeOver()
        forgetCard()
        // No collection: the queue is this track alone (a restart restores it so), not the album.
        playQueue.replace(with: [track], collection: nil, once: true)
        startQueue(at: 0, frame: 0, status: .playing)
        show(.nowPlaying)
    }

    /// After the catalog changed: a card waiting for its stick plays now if its collection came.
    func playWaitingCard() {
        guard let waiting = cardSession.stillWaiting(now: scheduler.nowNanoseconds) else { return }
        guard resolve(waiting.collection) != nil else {
            if !isScanning && isPresent(waiting.collection.volumeID) {
                // Its stick is in and read, without the collection.
                apply(cardSession.handle(.stopsWaiting))
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
    func forgetCard() { apply(cardSession.handle(.forgotten)) }

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
        case .parentOverride:
            parentOverride()
        case .bluetooth:
            toggleHeadphones()
        case .bluetoothPair:
            pairHeadphones()
        }
    }

    // MARK: - linking on the box

    /// An unknown card: offers to link it to the selected collection (in browse) or the one playing
    /// (a one-track card's too).
    private func promptToLink(_ uid: CardUID) {
        var target: Collection?
        if mode == .browse, !collections.isEmpty {
            target = collections[selectedIndex]
        } else {
            target = queueCollection ?? playingCardsCollection
        }
        guard let target, let catalog else {
            let message = MessageState(
                title: "New card", detail: "Choose an album, then show the card again", kind: .info)
            apply(cardSession.handle(.prompts(CardPrompt(uid: uid, collection: nil, message: message))))
            showTransient(message, seconds: 6)
            return
        }
        let collection = CardCollection.of(target, in: catalog)
        let message = linkPrompt(collection)
        apply(cardSession.handle(.prompts(CardPrompt(uid: uid, collection: collection, message: message))))
        showTransient(message, seconds: CardSession.promptSeconds)
        Log.info("card \(uid): not linked; offering \(collection.name)")
    }

    /// The collection of the card whose one track plays (that queue has no collection of its own).
    private var playingCardsCollection: Collection? {
        guard let uid = cardSession.playing, case .collection(let c)? = cards.link(of: uid) else { return nil }
        return resolve(c)
    }

    /// "New card: album", "Hold Select to link it to 'X'. Press Select: another mode" (the mode in
    /// the title, which a small screen shows whole).
    private func linkPrompt(_ collection: CardCollection) -> MessageState {
        MessageState(
            title: "New card: \(collection.mode.title)",
            detail: "\(linkGesture) to link it to '\(collection.name)'. \(cardSession.modeGesture): another mode",
            kind: .info)
    }

    /// While a new card's prompt shows, play-from-start (holding Select) links it and select
    /// (pressing it) cycles its mode; true when the action was used so.
    func answerCardPrompt(_ action: Action) -> Bool {
        guard let prompt = cardSession.prompt else { return false }
        guard transientMessage == prompt.message else {
            apply(cardSession.handle(.prompts(nil)))
            return false
        }
        if action == .select, var collection = prompt.collection {
            collection.mode = collection.mode.following
            let message = linkPrompt(collection)
            apply(cardSession.handle(.prompts(CardPrompt(uid: prompt.uid, collection: collection, message: message))))
            showTransient(message, seconds: CardSession.promptSeconds)
            return true
        }
        guard action == .playFromStart, let collection = prompt.collection else { return false }
        apply(cardSession.handle(.prompts(nil)))
        do {
            try cards.setLink(.collection(collection), for: prompt.uid)
            Log.notice(
                "card \(prompt.uid) linked to \(collection.category.rawValue) \"\(collection.name)\" (\(collection.mode.rawValue))"
            )
            let playsNow = queueCollection?.key == collection.key && queueCollection?.category == collection.category
            apply(cardSession.handle(.linked(prompt.uid, playsNow: playsNow)))
            let detail = collection.mode == .album ? collection.name : "\(collection.name) (\(collection.mode.title))"
            showTransient(MessageState(title: "Card linked", detail: detail, kind: .info), seconds: 3)
        } catch {
            Log.error("cannot link card \(prompt.uid): \(error)")
            showTransient(MessageState(title: "Cannot link the card", detail: "\(error)", kind: .error), seconds: 6)
        }
        return true
    }

    // MARK: - the Cards screen

    /// The Cards screen's rows: each linked card, then Close.
    var cardEntries: [BrowseItem] {
        cards.sorted.map { BrowseItem(title: $0.link.summary, subtitle: "card \($0.uid)" + Self.modeNote($0.link)) }
            + [BrowseItem(title: "Close", subtitle: cards.links.isEmpty ? "No cards linked yet" : nil)]
    }

    /// " · one track per tap" after a card's number, for a mode other than album.
    static func modeNote(_ link: CardLink) -> String {
        if case .collection(let c) = link, c.mode != .album { " · \(c.mode.title)" } else { "" }
    }

    /// Hold Select on row `row` of the Cards screen: its card is unlinked, and the selection stays
    /// on that row (on Close when it was the last card).
    func unlinkCardOnScreen(row: Int) {
        if unlinkCard(at: row) { show(.cards(selected: min(row, cards.links.count))) }
    }

    /// Unlinks the card in row `row` of the Cards screen; false when that failed (a message says
    /// why).
    func unlinkCard(at row: Int) -> Bool {
        let uid = cards.sorted[row].uid
        do {
            try cards.unlink(uid)
            apply(cardSession.handle(.unlinked(uid)))
            showTransient(MessageState(title: "Card unlinked", detail: "card \(uid)"), seconds: 3)
            return true
        } catch {
            showTransient(MessageState(title: "Cannot unlink the card", detail: "\(error)", kind: .error), seconds: 6)
            return false
        }
    }

    /// The playing card stayed off the reader `cards.removedStopMinutes`: what it paused stops.
    func cardStayedAway() {
        apply(cardSession.handle(.stayedAway(status: status, minutes: config.cards.removedStopMinutes ?? 0)))
    }
}
