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
