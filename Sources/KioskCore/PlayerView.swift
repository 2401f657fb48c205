// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// What the screen shows, worked out from a snapshot of the player: a pure function of its
/// inputs, so each screen can be tested without a player, an engine or a loop.
///
/// Thread: any (a value).
struct PlayerView {
    var shuttingDown = false
    /// A message shown for a few seconds over everything ("USB stick removed").
    var transient: MessageState?
    var mode = PlayerMode.nowPlaying
    var helpEntries: [HelpEntry] = []
    var helpPageCount = 1
    var menuEntries: [String] = []
    /// The Cards screen's rows (the linked cards, then Close).
    var cardEntries: [BrowseItem] = []
    /// The Setup check screen's rows (the doctor's failed lines with their fixes, then Close).
    var setupEntries: [BrowseItem] = []
    var category = KioskModel.Category.album
    var collections: [Collection] = []
    var selectedIndex = 0
    var queue = PlayQueue()
    /// The saved track playing before its stick's catalog came (the queue is still empty).
    var restored: ResumeState?
    /// No volume is present.
    var noVolumes = true
    var trackCount = 0
    /// What the scan left out, when there is no track to say why.
    var leftOut = LeftOut()
    /// Tracks found so far by the scans running, nil when none runs.
    var scanningFound: Int?
    var status = PlaybackStatus.stopped
    var positionSeconds = 0.0
    var volumeOverlay: Int?
    var volumeRange: ClosedRange<Int> = 0...100
    /// The sleep timer's countdown ("sleep 29:40"), nil when off.
    var sleepCountdown: String?
    /// The button lock is on: now playing says so next to the category.
    var locked = false
    var statusLine: String?
    /// The battery's level ("battery 42%"), nil without one.
    var battery: String?
    /// Exhibit mode's session as its screen sees it (nil: not an exhibit).
    var exhibit: ExhibitView?

    init() {}

    /// The view of the player's parts now (built once per screen refresh).
    init(
        navigation: Navigation, shelf: LibraryShelf, queue: PlayQueue, transport: Transport,
        restore: RestoreSession, overlays: Overlays, volumeRange: ClosedRange<Int>, shuttingDown: Bool,
        helpPageCount: Int, menuEntries: @autoclosure () -> [String], cardEntries: @autoclosure () -> [BrowseItem],
        sleepCountdown: String?, locked: Bool
    ) {
        self.shuttingDown = shuttingDown
        transient = overlays.message
        mode = navigation.mode
        helpEntries = navigation.helpEntries
        self.helpPageCount = helpPageCount
        // The lists of the menu's pages are made only while their page shows (a refresh comes with
        // every position report).
        if case .menu = mode { self.menuEntries = menuEntries() }
        category = navigation.category
        let catalog = shelf.catalog
        collections = navigation.collections(catalog)
        selectedIndex = navigation.selectedIndex(count: collections.count)
        self.queue = queue
        restored = restore.playingAloneState
        noVolumes = shelf.present.isEmpty
        trackCount = catalog?.trackCount ?? 0
        if trackCount == 0, let catalog { leftOut = LeftOut(catalog.problems) }
        scanningFound = shelf.scanningFound
        status = transport.status
        positionSeconds = transport.positionSeconds
        volumeOverlay = overlays.volume
        self.volumeRange = volumeRange
        if case .cards = mode { self.cardEntries = cardEntries() }
        self.sleepCountdown = sleepCountdown
        self.locked = locked
        statusLine = overlays.statusLine
        if case .setupCheck = mode { setupEntries = overlays.setupCheck.entries }
    }

    /// The screen now.
    var screen: ScreenState {
        if shuttingDown {
            return .message(MessageState(title: "Shutting down", detail: "Safe to unplug in a moment", kind: .info))
        }
        // Visitors see the exhibit screen, never browse; the staff's menu (behind its chord) shows.
        if let exhibit, mode == .nowPlaying || mode == .browse { return exhibitScreen(exhibit) }
        if let transient { return .message(transient) }
        switch mode {
        case .help(let page):
            return .help(HelpState(title: "Buttons", entries: helpEntries, page: min(page, helpPageCount - 1)))
        case .menu(let selected):
            return .browse(
                BrowseState(
                    categoryLabel: "Menu",
                    items: menuEntries.map { BrowseItem(title: $0, subtitle: nil, artworkKey: nil) },
                    selectedIndex: selected))
        case .cards(let selected):
            return .browse(BrowseState(categoryLabel: "Cards", items: cardEntries, selectedIndex: selected))
        case .setupCheck(let selected):
            return .browse(BrowseState(categoryLabel: "Setup check", items: setupEntries, selectedIndex: selected))
        case .browse:
            if !collections.isEmpty { return .browse(browseList) }
        case .nowPlaying:
            break
        }
        if queue.isEmpty && restored == nil {
            if let message = libraryMessage { return .message(message) }
            // Nothing queued yet: the browse list, so that the first press has a target.
            if mode == .nowPlaying, !collections.isEmpty { return .browse(browseList) }
        }
        return .nowPlaying(nowPlaying)
    }

    /// Exhibit mode's visitor screen: dark with `screen: "none"` and outside opening hours (after
    /// the transient "Closed"), else the attract card or the clip playing.
    private func exhibitScreen(_ exhibit: ExhibitView) -> ScreenState {
        if exhibit.show == .none { return .off }
        if let transient { return .message(transient) }
        if exhibit.closed { return .off }
        let playing = exhibit.clipTitle != nil
        return .exhibit(
            ExhibitScreenState(
                prompt: exhibit.prompt, clipTitle: exhibit.clipTitle, elapsedSeconds: playing ? positionSeconds : 0,
                totalSeconds: playing ? queue.current?.durationSeconds : nil, language: exhibit.language,
                volumeOverlay: volumeOverlay, volumeRange: volumeRange))
    }

    private var browseList: BrowseState {
        BrowseState(
            categoryLabel: Self.label(category),
            items: collections.map {
                BrowseItem(title: $0.name, subtitle: $0.subtitle, artworkKey: Self.artworkKey(for: $0))
            },
            selectedIndex: selectedIndex)
    }

    /// What to say instead of a track when there is nothing to play.
    var libraryMessage: MessageState? {
        if noVolumes && trackCount == 0 {
            return MessageState(title: "Insert a USB stick with music", detail: nil, kind: .info)
        }
        guard trackCount == 0 else { return nil }
        if let found = scanningFound {
            return MessageState(title: "Scanning…", detail: "\(found) tracks", kind: .progress)
        }
        return MessageState(
            title: "No playable music files", detail: leftOut.summary ?? "on the USB stick", kind: .info)
    }

    /// Files the scan left out, counted by why: DRM-protected ones are named as such (like the
    /// seeds' filter of protected items), the rest are "cannot be played" (`scan` lists them).
    struct LeftOut: Equatable {
        var drmProtected = 0
        var unplayable = 0

        init() {}

        init(_ problems: [LibraryProblem]) {
            let drm = Advice.drmProtected
            for problem in problems where problem.severity == .excluded && !problem.relativePath.isEmpty {
                if problem.reason == drm { drmProtected += 1 } else { unplayable += 1 }
            }
        }

        /// "12 files are DRM-protected", "1 file cannot be played", "2 files are DRM-protected, 1 cannot
        /// be played"; nil when nothing was left out.
        var summary: String? {
            func files(_ n: Int) -> String { n == 1 ? "1 file" : "\(n) files" }
            switch (drmProtected, unplayable) {
            case (0, 0): return nil
            case (0, let bad): return "\(files(bad)) cannot be played"
            case (let drm, 0): return "\(files(drm)) \(drm == 1 ? "is" : "are") DRM-protected"
            case (let drm, let bad):
                return "\(files(drm)) \(drm == 1 ? "is" : "are") DRM-protected, \(bad) cannot be played"
            }
        }
    }

    var nowPlaying: NowPlayingState {
        let track = queue.current
        if track == nil, let restored {
            return NowPlayingState(
                title: restored.title ?? restored.relativePath?.split(separator: "/").last.map(String.init),
                artist: restored.artist, album: restored.album, elapsedSeconds: positionSeconds,
                totalSeconds: restored.durationSeconds, playback: playback,
                categoryLabel: Self.singular(
                    restored.collection.flatMap { KioskModel.Category(rawValue: $0.category) } ?? category),
                queuePosition: restored.queueCount > 0 ? restored.queueIndex + 1 : 0, queueCount: restored.queueCount,
                artworkKey: nil, volumeOverlay: volumeOverlay, volumeRange: volumeRange, statusLine: statusLine)
        }
        // The category, then what changes how it plays ("Album · shuffle · repeat · sleep 14:52").
        var label = queue.collection.map { Self.singular($0.category) } ?? Self.singular(category)
        if queue.isShuffled { label += " · shuffle" }
        if queue.repeats { label += " · repeat" }
        if let sleepCountdown { label += " · \(sleepCountdown)" }
        if locked { label += " · locked" }
        if let battery { label += " · \(battery)" }
        return NowPlayingState(
            title: track?.title, artist: track?.artist, album: track?.album,
            elapsedSeconds: positionSeconds, totalSeconds: track?.durationSeconds,
            playback: playback,
            categoryLabel: label,
            queuePosition: queue.isEmpty ? 0 : queue.index + 1, queueCount: queue.count,
            artworkKey: track.map { Self.artworkKey(for: $0) },
            volumeOverlay: volumeOverlay, volumeRange: volumeRange,
            statusLine: statusLine)
    }

    /// The one-line status for systemd (`STATUS=`).
    var statusText: String {
        if queue.isEmpty && restored == nil, let message = libraryMessage { return message.title }
        let shown = nowPlaying
        guard let title = shown.title else { return "Idle" }
        let what = shown.artist.map { "\($0) – \(title)" } ?? title
        switch status {
        case .playing: return "Playing \(what)"
        case .paused: return "Paused \(what)"
        case .stopped: return "Stopped \(what)"
        }
    }

    private var playback: PlaybackState {
        switch status {
        case .playing: .playing
        case .paused: .paused
        case .stopped: .stopped
        }
    }

    static func label(_ category: KioskModel.Category) -> String {
        switch category {
        case .album: "Albums"
        case .artist: "Artists"
        case .albumArtist: "Album artists"
        case .genre: "Genres"
        case .playlist: "Playlists"
        case .folder: "Folders"
        }
    }

    static func singular(_ category: KioskModel.Category) -> String {
        switch category {
        case .album: "Album"
        case .artist: "Artist"
        case .albumArtist: "Album artist"
        case .genre: "Genre"
        case .playlist: "Playlist"
        case .folder: "Folder"
        }
    }

    static func artworkKey(for collection: Collection) -> String {
        "\(collection.representative.volume.rawValue)/\(collection.representative.relativePath)"
    }

    static func artworkKey(for track: Track) -> String { "\(track.volume.rawValue)/\(track.relativePath)" }
}
