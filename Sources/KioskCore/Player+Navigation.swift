import KioskInput
import KioskLibrary

/// Navigation: what each action does on the now-playing, browse, help and menu screens, and
/// moving through the categories and the browse list. Thread: the loop thread, like `Player`.
extension Player {
    /// Now playing: transport on the queue; browsing actions open the browse list.
    func handleNowPlaying(_ action: Action, steps: Int) {
        switch action {
        case .playPause, .play, .pause, .stop: transport(action)
        case .next: skip(forward: true)
        case .previous: skip(forward: false)
        case .nextCategory: cycleCategory(by: 1)
        case .previousCategory: cycleCategory(by: -1)
        case .nextCollection, .down: enterBrowse(moveBy: steps)
        case .previousCollection, .up: enterBrowse(moveBy: -steps)
        case .select: enterBrowse(moveBy: 0)
        case .playFromStart: if !queue.isEmpty { startQueue(at: playQueue.firstInOrder, frame: 0, status: .playing) }
        case .back: break
        case .menu: mode = .menu(selected: 0)
        case .help: mode = .help(page: 0)
        case .volumeUp, .volumeDown, .shutdown, .shuffle, .sleep: break
        }
    }

    /// Browse: next/previous (and up/down, next/previous collection) move the selection; select,
    /// play and play-pause play the selected collection from its first track.
    func handleBrowse(_ action: Action, steps: Int) {
        switch action {
        case .down, .nextCollection, .next: moveSelection(by: steps)
        case .up, .previousCollection, .previous: moveSelection(by: -steps)
        case .select, .playPause, .play: playSelection()
        case .playFromStart: playSelection(fromStart: true)
        case .pause, .stop: transport(action)
        case .back: mode = .nowPlaying
        case .nextCategory: cycleCategory(by: 1)
        case .previousCategory: cycleCategory(by: -1)
        case .menu: mode = .menu(selected: 0)
        case .help: mode = .help(page: 0)
        case .volumeUp, .volumeDown, .shutdown, .shuffle, .sleep: break
        }
    }

    /// Help: next/previous turn the pages; back, help, select, menu, play-pause and play-from-start
    /// (select's long press on most boards, which have no back button) close it; play, pause and
    /// stop act on playback and leave the page open.
    func handleHelp(_ action: Action, page: Int) {
        let pages = helpPageCount
        switch action {
        case .next, .down, .nextCollection, .nextCategory: mode = .help(page: min(page + 1, pages - 1))
        case .previous, .up, .previousCollection, .previousCategory: mode = .help(page: max(page - 1, 0))
        case .back, .help, .select, .playPause, .menu, .playFromStart: mode = .nowPlaying
        case .play, .pause, .stop: transport(action)
        case .volumeUp, .volumeDown, .shutdown, .shuffle, .sleep: break
        }
    }

    /// Menu entries; the output entry is always present so the device can be changed from the buttons.
    public var menuEntries: [String] {
        [
            "Output: \(outputDevice)",
            "Repeat: \(repeatQueue ? "on" : "off")",
            "Shuffle: \(playQueue.shuffle.rawValue)",
            "Sleep: \(sleepRemainingSeconds.map { "\(($0 + 59) / 60) min" } ?? "off")",
            "Help",
            "Cards: \(cards.links.count) linked",
        ] + setupCheckMenuEntry + ["Close"]
    }

    /// Menu: next/previous move (wrapping); select or play-pause chooses (output: the next device;
    /// repeat: toggles; help; the cards; close); back, menu and play-from-start (select's long press on most
    /// boards) close it; play, pause and stop act on playback.
    func handleMenu(_ action: Action, selected: Int) {
        let count = menuEntries.count
        switch action {
        case .next, .down, .nextCollection: mode = .menu(selected: (selected + 1) % count)
        case .previous, .up, .previousCollection: mode = .menu(selected: (selected + count - 1) % count)
        case .select, .playPause:
            switch selected {
            case 0:
                if outputDevices.count > 1 { chooseOutput(output.following, by: "in the menu") }
            case 1:
                playQueue.repeats.toggle()
                recorder.saveSoon()
            case 2: cycleShuffle()
            case 3: cycleSleepTimer()
            case 4: mode = .help(page: 0)
            case 5: mode = .cards(selected: 0)
            case 6 where !setupCheckMenuEntry.isEmpty: mode = .setupCheck(selected: 0)
            default: mode = .nowPlaying
            }
        case .back, .menu, .playFromStart: mode = .nowPlaying
        case .help: mode = .help(page: 0)
        case .play, .pause, .stop: transport(action)
        case .nextCategory, .previousCategory: break
        case .volumeUp, .volumeDown, .shutdown, .shuffle, .sleep: break
        }
    }

    /// Next/previous category: album → artist → playlist → genre → folder (categories with
    /// nothing in them are skipped); the browse list opens on the category's first collection.
    func cycleCategory(by delta: Int) {
        let cycle = availableCategories
        guard !cycle.isEmpty else { return }
        let index = cycle.firstIndex(of: category) ?? (delta > 0 ? -1 : 0)
        category = cycle[((index + delta) % cycle.count + cycle.count) % cycle.count]
        // The screen shows the category's first collection.
        selection[category] = 0
        mode = .browse
        provideArtworkForBrowse()
        recorder.saveSoon()
    }

    func enterBrowse(moveBy delta: Int) {
        if let playing = queueCollection, playing.category == category,
            let index = collections.firstIndex(of: playing)
        {
            selection[category] = index
        }
        mode = .browse
        moveSelection(by: delta)
    }

    func moveSelection(by delta: Int) {
        let count = collections.count
        guard count > 0 else { return }
        selection[category] = ((selectedIndex + delta) % count + count) % count
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
