// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// What the screen is showing; the actions mean different things in each.
public enum PlayerMode: Equatable, Sendable {
    case nowPlaying
    case browse
    case help(page: Int)
    case menu(selected: Int)
    /// The linked cards (from the menu), one selected; hold Select unlinks it.
    case cards(selected: Int)
    /// The doctor's failed lines (from the menu), one selected.
    case setupCheck(selected: Int)
}

/// Where the listener is in the screens: the mode, the category browsed and the selection in each
/// category's list, the help entries of the board, and which browse thumbnails were last asked for.
/// A part of the player: what each action does on each screen (the per-mode tables) is its
/// `handle`, which moves through the screens and returns what the rest of the player must do (a
/// command as the buttons', a collection to play, a message, speech and thumbnails to follow a
/// move).
///
/// Thread: any (a value); the player's copy lives on the loop thread.
struct Navigation {
    /// The categories in the order next/previous category cycles through them.
    static let categoryCycle: [KioskModel.Category] = [.album, .artist, .playlist, .genre, .folder]

    var mode = PlayerMode.nowPlaying
    var category = KioskModel.Category.album
    /// Selection in the browse list of each category.
    private var selection: [KioskModel.Category: Int] = [:]
    /// Help pages: the controls of the board and what they do.
    var helpEntries: [HelpEntry] = []
    /// The library the browse lists come from.
    var shelf = LibraryShelf()
    /// Category, selection and catalog of the browse list whose thumbnails were last requested.
    private var artworkSignature = ""

    /// The categories of `catalog` that have something to show, in cycle order.
    func availableCategories(_ catalog: (any CatalogSnapshot)?) -> [KioskModel.Category] {
        guard let catalog else { return [] }
        return Self.categoryCycle.filter { !catalog.collections(in: $0).isEmpty }
    }

    /// The browse list of the current category.
    func collections(_ catalog: (any CatalogSnapshot)?) -> [Collection] { catalog?.collections(in: category) ?? [] }

    /// The selection in a list of `count` collections.
    func selectedIndex(count: Int) -> Int {
        guard count > 0 else { return 0 }
        return min(max(selection[category] ?? 0, 0), count - 1)
    }

    /// A new catalog: a category with nothing left in it gives way to the first that has something.
    mutating func keepCategoryAvailable(_ catalog: (any CatalogSnapshot)?) {
        let available = availableCategories(catalog)
        if !available.contains(category), let first = available.first { category = first }
    }

    /// Next/previous category: album → artist → playlist → genre → folder (empty ones skipped); the
    /// browse list opens on the category's first collection. False when there is nothing to browse.
    mutating func cycleCategory(by delta: Int, in catalog: (any CatalogSnapshot)?) -> Bool {
        let cycle = availableCategories(catalog)
        guard !cycle.isEmpty else { return false }
        let index = cycle.firstIndex(of: category) ?? (delta > 0 ? -1 : 0)
        category = cycle[((index + delta) % cycle.count + cycle.count) % cycle.count]
        selection[category] = 0
        mode = .browse
        return true
    }

    /// Opens the browse list on `playing` (when it is of the current category), then moves.
    mutating func enterBrowse(moveBy delta: Int, playing: Collection?, in catalog: (any CatalogSnapshot)?) {
        let list = collections(catalog)
        if let playing, playing.category == category, let index = list.firstIndex(of: playing) {
            selection[category] = index
        }
        mode = .browse
        moveSelection(by: delta, count: list.count)
    }

    /// Moves the selection by `delta` in a list of `count`. A single step wraps at the ends; a
    /// bigger one (an accelerated encoder turn) stops at the end it runs into, so a fast spin
    /// lands on the last item instead of somewhere near the top again.
    mutating func moveSelection(by delta: Int, count: Int) {
        guard count > 0 else { return }
        let index = selectedIndex(count: count)
        if abs(delta) <= 1 {
            selection[category] = ((index + delta) % count + count) % count
        } else {
            selection[category] = min(max(index + delta, 0), count - 1)
        }
    }

    // MARK: - the tables

    /// What the tables need to know of the rest of the player.
    struct Context: Equatable {
        /// Nothing is queued and no restored track plays.
        var idle = false
        /// The collection the queue plays (the browse list opens on it).
        var playing: Collection?
        var repeatQueue = false
        var helpPages = 1
        var menuEntries = 7
        /// The menu holds the setup check's entry (the doctor found something).
        var hasSetupCheck = false
        var setupCheckEntries = 1
        var linkedCards = 0
        /// How the box is told to link (and unlink) a card: "Hold Select".
        var linkGesture = "Hold Select"
    }

    /// What happens to the navigation.
    enum Event: Equatable {
        /// An action on the screen showing (volume, shutdown, shuffle, sleep and lock are the
        /// player's on every screen, and a message showing takes the action first).
        case action(ActionEvent, Context)
        /// Screen `mode` shows.
        case show(PlayerMode)
    }

    mutating func handle(_ event: Event) -> [PlayerEffect] {
        switch event {
        case .show(let new):
            mode = new
            return []
        case .action(let event, let context):
            if mode == .nowPlaying && context.idle && !collections(shelf.catalog).isEmpty {
                // The screen shows the browse list (see PlayerView): act on it.
                mode = .browse
            }
            let steps = max(1, event.steps)
            // Off the now-playing screen a held next/previous moves as next/previous repeated.
            let action = mode == .nowPlaying ? event.action : Self.moveForSeek(event.action)
            switch mode {
            case .nowPlaying: return nowPlaying(event, steps: steps, context)
            case .browse: return browse(action, steps: steps)
            case .help(let page): return help(action, page: page, pages: context.helpPages)
            case .menu(let selected): return menu(action, selected: selected, context)
            case .cards(let selected): return cards(action, selected: selected, context)
            case .setupCheck(let selected):
                return setupCheck(action, selected: selected, count: context.setupCheckEntries)
            }
        }
    }

    /// Seek-forward and seek-backward as the list screens take them: next and previous.
    private static func moveForSeek(_ action: Action) -> Action {
        switch action {
        case .seekForward: .next
        case .seekBackward: .previous
        default: action
        }
    }

    /// Play-pause, play, pause and stop: the same commands on every screen.
    private static func transport(_ action: Action) -> [PlayerEffect] {
        switch action {
        case .playPause: [.command(.togglePause)]
        case .play: [.command(.play)]
        case .pause: [.command(.pause)]
        case .stop: [.command(.stop)]
        default: []
        }
    }

    /// Now playing: transport on the queue; browsing actions open the browse list; a held
    /// next/previous seeks (`Player+Seek.swift`).
    private mutating func nowPlaying(_ event: ActionEvent, steps: Int, _ context: Context) -> [PlayerEffect] {
        let action = event.action
        switch action {
        case .seekForward, .seekBackward: return [.seekByHold(event)]
        case .playPause, .play, .pause, .stop: return Self.transport(action)
        case .next: return [.command(.next)]
        case .previous: return [.command(.previous)]
        case .nextCategory: return moveCategory(by: 1)
        case .previousCategory: return moveCategory(by: -1)
        case .nextCollection, .down: return openBrowse(moveBy: steps, playing: context.playing)
        case .previousCollection, .up: return openBrowse(moveBy: -steps, playing: context.playing)
        case .select: return openBrowse(moveBy: 0, playing: context.playing)
        case .playFromStart: return [.playFromStart]
        case .back: return []
        case .menu: mode = .menu(selected: 0)
        case .help: mode = .help(page: 0)
        case .volumeUp, .volumeDown, .shutdown, .shuffle, .sleep, .lock, .parentOverride, .bluetooth, .bluetoothPair:
            return []
        }
        return []
    }

    /// Browse: next/previous (and up/down, next/previous collection) move the selection; select,
    /// play and play-pause play the selected collection from where its bookmark left it,
    /// play-from-start from its first track.
    private mutating func browse(_ action: Action, steps: Int) -> [PlayerEffect] {
        switch action {
        case .down, .nextCollection, .next: return moveBrowseSelection(by: steps)
        case .up, .previousCollection, .previous: return moveBrowseSelection(by: -steps)
        case .select, .playPause, .play: return [.playSelection(fromStart: false)]
        case .playFromStart: return [.playSelection(fromStart: true)]
        case .pause, .stop: return Self.transport(action)
        case .back: mode = .nowPlaying
        case .nextCategory: return moveCategory(by: 1)
        case .previousCategory: return moveCategory(by: -1)
        case .menu: mode = .menu(selected: 0)
        case .help: mode = .help(page: 0)
        case .volumeUp, .volumeDown, .shutdown, .shuffle, .sleep, .lock, .parentOverride, .bluetooth, .bluetoothPair,
            .seekForward, .seekBackward:
            break
        }
        return []
    }

    /// Help: next/previous turn the pages; back, help, select, menu, play-pause and play-from-start
    /// (select's long press on most boards, which have no back button) close it; play, pause and
    /// stop act on playback and leave the page open.
    private mutating func help(_ action: Action, page: Int, pages: Int) -> [PlayerEffect] {
        switch action {
        case .next, .down, .nextCollection, .nextCategory: mode = .help(page: min(page + 1, pages - 1))
        case .previous, .up, .previousCollection, .previousCategory: mode = .help(page: max(page - 1, 0))
        case .back, .help, .select, .playPause, .menu, .playFromStart: mode = .nowPlaying
        case .play, .pause, .stop: return Self.transport(action)
        case .volumeUp, .volumeDown, .shutdown, .shuffle, .sleep, .lock, .parentOverride, .bluetooth, .bluetoothPair,
            .seekForward, .seekBackward:
            break
        }
        return []
    }

    /// Menu: next/previous move (wrapping); select or play-pause chooses (output: the next device;
    /// repeat: toggles; shuffle and sleep: their next setting; help; the cards; the setup check;
    /// close); back, menu and play-from-start (select's long press on most boards) close it; play,
    /// pause and stop act on playback.
    private mutating func menu(_ action: Action, selected: Int, _ context: Context) -> [PlayerEffect] {
        let count = context.menuEntries
        switch action {
        case .next, .down, .nextCollection: mode = .menu(selected: (selected + 1) % count)
        case .previous, .up, .previousCollection: mode = .menu(selected: (selected + count - 1) % count)
        case .select, .playPause:
            switch selected {
            case 0: return [.chooseNextOutput]
            case 1: return [.command(.setRepeat(!context.repeatQueue))]
            case 2: return [.cycleShuffle]
            case 3: return [.cycleSleepTimer]
            case 4: mode = .help(page: 0)
            case 5: mode = .cards(selected: 0)
            case 6 where context.hasSetupCheck: mode = .setupCheck(selected: 0)
            default: mode = .nowPlaying
            }
        case .back, .menu, .playFromStart: mode = .nowPlaying
        case .help: mode = .help(page: 0)
        case .play, .pause, .stop: return Self.transport(action)
        case .nextCategory, .previousCategory: break
        case .volumeUp, .volumeDown, .shutdown, .shuffle, .sleep, .lock, .parentOverride, .bluetooth, .bluetoothPair,
            .seekForward, .seekBackward:
            break
        }
        return []
    }

    /// Cards: next/previous move (wrapping); hold Select (play-from-start) unlinks the selected
    /// card; select on a card says so, on Close closes; back and menu return to the menu.
    private mutating func cards(_ action: Action, selected: Int, _ context: Context) -> [PlayerEffect] {
        let count = context.linkedCards + 1
        let onClose = selected >= count - 1
        switch action {
        case .next, .down, .nextCollection: mode = .cards(selected: (selected + 1) % count)
        case .previous, .up, .previousCollection: mode = .cards(selected: (selected + count - 1) % count)
        case .select, .playPause:
            if onClose {
                mode = .nowPlaying
            } else {
                return [.overlays(.show(MessageState(title: "\(context.linkGesture) to unlink this card"), seconds: 3))]
            }
        case .playFromStart:
            if onClose {
                mode = .nowPlaying
            } else {
                return [.unlinkCard(row: selected)]
            }
        case .back, .menu: mode = .menu(selected: 5)
        case .help: mode = .help(page: 0)
        case .play, .pause, .stop: return Self.transport(action)
        case .nextCategory, .previousCategory: break
        case .volumeUp, .volumeDown, .shutdown, .shuffle, .sleep, .lock, .parentOverride, .bluetooth, .bluetoothPair,
            .seekForward, .seekBackward:
            break
        }
        return []
    }

    /// Setup check page: next/previous move (wrapping); select on Close, back, menu and
    /// play-from-start go back to the menu; play, pause and stop act on playback.
    private mutating func setupCheck(_ action: Action, selected: Int, count: Int) -> [PlayerEffect] {
        switch action {
        case .next, .down, .nextCollection: mode = .setupCheck(selected: (selected + 1) % count)
        case .previous, .up, .previousCollection: mode = .setupCheck(selected: (selected + count - 1) % count)
        case .select: if selected == count - 1 { mode = .menu(selected: 6) }
        case .back, .menu, .playFromStart: mode = .menu(selected: 6)
        case .play, .pause, .stop, .playPause: return Self.transport(action)
        default: break
        }
        return []
    }

    /// Next/previous category; the browse list opens on its first collection (speech follows the
    /// move, the thumbnails are asked for, the category is saved).
    private mutating func moveCategory(by delta: Int) -> [PlayerEffect] {
        guard cycleCategory(by: delta, in: shelf.catalog) else { return [] }
        return [.noteMove, .browseArtwork, .save(.soon)]
    }

    private mutating func openBrowse(moveBy delta: Int, playing: Collection?) -> [PlayerEffect] {
        enterBrowse(moveBy: delta, playing: playing, in: shelf.catalog)
        return (delta != 0 ? [.noteMove] : []) + [.browseArtwork]
    }

    private mutating func moveBrowseSelection(by delta: Int) -> [PlayerEffect] {
        moveSelection(by: delta, count: collections(shelf.catalog).count)
        return [.noteMove, .browseArtwork]
    }

    /// Whether the browse thumbnails of `signature` (category, selection, catalog) are still to be
    /// asked for; remembers it.
    mutating func browseArtworkDue(_ signature: String) -> Bool {
        guard signature != artworkSignature else { return false }
        artworkSignature = signature
        return true
    }
}

/// The library as the player knows it: the catalog, the volumes present, and those being scanned
/// with the tracks found so far.
///
/// Thread: any (a value); the player's copy lives on the loop thread.
struct LibraryShelf {
    var catalog: (any CatalogSnapshot)?
    private(set) var present: Set<String> = []
    private(set) var scanning: [String: Int] = [:]

    var isScanning: Bool { !scanning.isEmpty }
    func isScanning(_ volumeID: String) -> Bool { scanning[volumeID] != nil }
    func isPresent(_ volumeID: String) -> Bool { present.contains(volumeID) }
    /// Tracks found by the scans under way, nil when none runs.
    var scanningFound: Int? { scanning.isEmpty ? nil : scanning.values.reduce(0, +) }

    /// Follows one library event (the catalog comes with it).
    mutating func apply(_ event: LibraryEvent, catalog newCatalog: any CatalogSnapshot) {
        switch event {
        case .volumeAdded(let id, _):
            present.insert(id.rawValue)
            scanning[id.rawValue] = 0
        case .scanProgress(let id, let found):
            scanning[id.rawValue] = found
        case .scanFinished(let id, _, _, _):
            scanning[id.rawValue] = nil
        case .volumeRemoved(let id, _):
            present.remove(id.rawValue)
            scanning[id.rawValue] = nil
        case .catalogChanged:
            break
        }
        catalog = newCatalog
    }
}
