// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// Navigation: what each action does on each screen (now playing, browse, help, menu, cards, setup
/// check), and moving through the categories and the browse list (`Navigation`).
/// Thread: the loop thread, like `Player`.
extension Player {
    /// The categories in the order next/previous category cycles through them.
    public static let categoryCycle = Navigation.categoryCycle

    /// Applies one action. The effect depends on the mode; volume works everywhere.
    ///
    /// While the button lock is on, only `lock` gets through (`Player+Lock.swift`).
    /// In every mode: volume up/down change the volume; shutdown asks the appliance to shut down;
    /// while a transient message (e.g. "USB stick removed") shows, any other action only dismisses
    /// it. With nothing queued the now-playing screen shows the browse list, and the actions act
    /// as in browse mode.
    public func handle(_ event: ActionEvent) {
        scheduler.assertInLoop()
        guard !shuttingDown else { return }
        guard lockAdmits(event) else { return }
        inputCame()
        if inputCancelsSleepFade() { return }
        let steps = max(1, event.steps)
        if isExhibit {
            // Visitors have the volume (within the staff's range) and nothing else: no browse, no menu.
            switch event.action {
            case .volumeUp, .volumeDown: visitorCame()
            case .shutdown, .lock: break
            // The staff's way in: the menu on a chord (held 5 s on `exhibit-4`); in it they move on.
            case .menu where event.source.hasPrefix("chord"): break
            default: if navigation.mode == .nowPlaying { return }
            }
        }
        switch event.action {
        // The volume and shutdown redraw by themselves.
        case .volumeUp: return changeVolume(by: Self.volumeStep * steps)
        case .volumeDown: return changeVolume(by: -Self.volumeStep * steps)
        case .shutdown: return requestShutdown()
        case .shuffle: cycleShuffle()
        case .sleep: cycleSleepTimer()
        case .lock: toggleLock()
        default:
            if answerCardPrompt(event.action) { break }
            if transientMessage != nil {
                // Any other press dismisses a transient message first and does nothing else.
                clearTransient()
                break
            }
            if navigation.mode == .nowPlaying && isIdle && !collections.isEmpty {
                // The screen shows the browse list (see PlayerView): act on it.
                navigation.mode = .browse
            }
            // Off the now-playing screen a held next/previous moves as next/previous repeated.
            let action = navigation.mode == .nowPlaying ? event.action : Self.moveForSeek(event.action)
            switch navigation.mode {
            case .nowPlaying: handleNowPlaying(event, steps: steps)
            case .browse: handleBrowse(action, steps: steps)
            case .help(let page): handleHelp(action, page: page)
            case .menu(let selected): handleMenu(action, selected: selected)
            case .cards(let selected): handleCards(action, selected: selected)
            case .setupCheck(let selected): handleSetupCheck(action, selected: selected)
            }
        }
        refreshScreen()
    }

    /// Play-pause, play, pause and stop: the same commands on every screen.
    private func transport(_ action: Action) {
        switch action {
        case .playPause: apply(.togglePause, from: .button)
        case .play: apply(.play, from: .button)
        case .pause: apply(.pause, from: .button)
        case .stop: apply(.stop, from: .button)
        default: break
        }
    }

    /// Shows screen `mode`.
    func show(_ mode: PlayerMode) { navigation.mode = mode }

    /// Seek-forward and seek-backward as the list screens take them: next and previous.
    private static func moveForSeek(_ action: Action) -> Action {
        switch action {
        case .seekForward: .next
        case .seekBackward: .previous
        default: action
        }
    }

    /// Now playing: transport on the queue; browsing actions open the browse list; a held
    /// next/previous seeks (`Player+Seek.swift`).
    private func handleNowPlaying(_ event: ActionEvent, steps: Int) {
        let action = event.action
        switch action {
        case .seekForward, .seekBackward: seekByHold(event)
        case .playPause, .play, .pause, .stop: transport(action)
        case .next: apply(.next, from: .button)
        case .previous: apply(.previous, from: .button)
        case .nextCategory: cycleCategory(by: 1)
        case .previousCategory: cycleCategory(by: -1)
        case .nextCollection, .down: enterBrowse(moveBy: steps)
        case .previousCollection, .up: enterBrowse(moveBy: -steps)
        case .select: enterBrowse(moveBy: 0)
        case .playFromStart: playFromStart()
        case .back: break
        case .menu: navigation.mode = .menu(selected: 0)
        case .help: navigation.mode = .help(page: 0)
        case .volumeUp, .volumeDown, .shutdown, .shuffle, .sleep, .lock: break
        }
    }

    /// Browse: next/previous (and up/down, next/previous collection) move the selection; select,
    /// play and play-pause play the selected collection from its first track.
    private func handleBrowse(_ action: Action, steps: Int) {
        switch action {
        case .down, .nextCollection, .next: moveSelection(by: steps)
        case .up, .previousCollection, .previous: moveSelection(by: -steps)
        case .select, .playPause, .play: playSelection()
        case .playFromStart: playSelection(fromStart: true)
        case .pause, .stop: transport(action)
        case .back: navigation.mode = .nowPlaying
        case .nextCategory: cycleCategory(by: 1)
        case .previousCategory: cycleCategory(by: -1)
        case .menu: navigation.mode = .menu(selected: 0)
        case .help: navigation.mode = .help(page: 0)
        case .volumeUp, .volumeDown, .shutdown, .shuffle, .sleep, .lock, .seekForward, .seekBackward: break
        }
    }

    /// Help: next/previous turn the pages; back, help, select, menu, play-pause and play-from-start
    /// (select's long press on most boards, which have no back button) close it; play, pause and
    /// stop act on playback and leave the page open.
    private func handleHelp(_ action: Action, page: Int) {
        let pages = helpPageCount
        switch action {
        case .next, .down, .nextCollection, .nextCategory: navigation.mode = .help(page: min(page + 1, pages - 1))
        case .previous, .up, .previousCollection, .previousCategory: navigation.mode = .help(page: max(page - 1, 0))
        case .back, .help, .select, .playPause, .menu, .playFromStart: navigation.mode = .nowPlaying
        case .play, .pause, .stop: transport(action)
        case .volumeUp, .volumeDown, .shutdown, .shuffle, .sleep, .lock, .seekForward, .seekBackward: break
        }
    }

    /// Menu entries; the output entry is always present so the device can be changed from the buttons.
    public var menuEntries: [String] {
        var entries = [
            "Output: \(outputDevice)",
            "Repeat: \(repeatQueue ? "on" : "off")",
            "Shuffle: \(shuffle.rawValue)",
            "Sleep: \(sleepRemainingSeconds.map { "\(($0 + 59) / 60) min" } ?? "off")",
            "Help",
            "Cards: \(cards.links.count) linked",
        ]
        entries.append(contentsOf: setupCheckMenuEntry)
        entries.append("Close")
        return entries
    }

    /// Menu: next/previous move (wrapping); select or play-pause chooses (output: the next device;
    /// repeat: toggles; help; the cards; close); back, menu and play-from-start (select's long press
    /// on most boards) close it; play, pause and stop act on playback.
    private func handleMenu(_ action: Action, selected: Int) {
        let count = menuEntries.count
        switch action {
        case .next, .down, .nextCollection: navigation.mode = .menu(selected: (selected + 1) % count)
        case .previous, .up, .previousCollection: navigation.mode = .menu(selected: (selected + count - 1) % count)
        case .select, .playPause:
            switch selected {
            case 0: chooseNextOutput()
            case 1: apply(.setRepeat(!repeatQueue), from: .button)
            case 2: cycleShuffle()
            case 3: cycleSleepTimer()
            case 4: navigation.mode = .help(page: 0)
            case 5: navigation.mode = .cards(selected: 0)
            case 6 where !setupCheckMenuEntry.isEmpty: navigation.mode = .setupCheck(selected: 0)
            default: navigation.mode = .nowPlaying
            }
        case .back, .menu, .playFromStart: navigation.mode = .nowPlaying
        case .help: navigation.mode = .help(page: 0)
        case .play, .pause, .stop: transport(action)
        case .nextCategory, .previousCategory: break
        case .volumeUp, .volumeDown, .shutdown, .shuffle, .sleep, .lock, .seekForward, .seekBackward: break
        }
    }

    /// Cards: next/previous move (wrapping); hold Select (play-from-start) unlinks the selected
    /// card; select on a card says so, on Close closes; back and menu return to the menu.
    private func handleCards(_ action: Action, selected: Int) {
        let count = cards.links.count + 1
        let onClose = selected >= count - 1
        switch action {
        case .next, .down, .nextCollection: navigation.mode = .cards(selected: (selected + 1) % count)
        case .previous, .up, .previousCollection: navigation.mode = .cards(selected: (selected + count - 1) % count)
        case .select, .playPause:
            if onClose {
                navigation.mode = .nowPlaying
            } else {
                showTransient(MessageState(title: "\(linkGesture) to unlink this card"), seconds: 3)
            }
        case .playFromStart:
            if onClose {
                navigation.mode = .nowPlaying
            } else if unlinkCard(at: selected) {
                navigation.mode = .cards(selected: min(selected, cards.links.count))
            }
        case .back, .menu: navigation.mode = .menu(selected: 5)
        case .help: navigation.mode = .help(page: 0)
        case .play, .pause, .stop: transport(action)
        case .nextCategory, .previousCategory: break
        case .volumeUp, .volumeDown, .shutdown, .shuffle, .sleep, .lock, .seekForward, .seekBackward: break
        }
    }

    /// Setup check page: next/previous move (wrapping); select on Close, back, menu and
    /// play-from-start go back to the menu; play, pause and stop act on playback.
    private func handleSetupCheck(_ action: Action, selected: Int) {
        let count = setupCheckEntries.count
        switch action {
        case .next, .down, .nextCollection: navigation.mode = .setupCheck(selected: (selected + 1) % count)
        case .previous, .up, .previousCollection:
            navigation.mode = .setupCheck(selected: (selected + count - 1) % count)
        case .select: if selected == count - 1 { navigation.mode = .menu(selected: 6) }
        case .back, .menu, .playFromStart: navigation.mode = .menu(selected: 6)
        case .play, .pause, .stop, .playPause: transport(action)
        default: break
        }
    }

    /// Next/previous category (`Navigation`); the browse list opens on its first collection.
    private func cycleCategory(by delta: Int) {
        guard navigation.cycleCategory(by: delta, in: catalog) else { return }
        announcer.noteMove()
        provideArtworkForBrowse()
        recorder.saveSoon()
    }

    private func enterBrowse(moveBy delta: Int) {
        navigation.enterBrowse(moveBy: delta, playing: queueCollection, in: catalog)
        if delta != 0 { announcer.noteMove() }
        provideArtworkForBrowse()
    }

    private func moveSelection(by delta: Int) {
        navigation.moveSelection(by: delta, count: collections.count)
        announcer.noteMove()
        provideArtworkForBrowse()
    }

    /// Plays the selected collection: where its bookmark left it (when it has one), else, or with
    /// `fromStart`, from its first track.
    func playSelection(fromStart: Bool = false) {
        let list = collections
        guard !list.isEmpty else { return }
        play(collection: list[selectedIndex], fromStart: fromStart)
    }
}
