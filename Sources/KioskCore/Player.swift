import KioskAudio
import KioskDisplay
import KioskInput
import KioskLibrary
import KioskSystem

/// Playback status as the user sees it.
public enum PlaybackStatus: String, Sendable {
    case stopped, playing, paused
}

/// What the screen is showing; the actions mean different things in each.
public enum PlayerMode: Equatable, Sendable {
    case nowPlaying
    case browse
    case help(page: Int)
    case menu(selected: Int)
}

/// The appliance's state machine: what plays, what the screen shows, what each button does.
///
/// Lives on the event-loop thread and is driven by three kinds of events: `ActionEvent`s from the
/// inputs, `AudioEvent`s from the engine and `LibraryEvent`s from the library. Every action has a
/// defined effect in every state (see `handle(_: ActionEvent)`); the effects go to the audio
/// engine, the screen and the resume state. Thread: loop thread only.
public final class Player {
    /// The categories in the order next/previous category cycles through them.
    public static let categoryCycle: [KioskLibrary.Category] = [.album, .artist, .playlist, .genre, .folder]
    /// Previous restarts the current track when more than this many seconds have played.
    public static let restartThresholdSeconds = 3.0
    /// Volume change per step.
    public static let volumeStep = 5
    /// Seconds of inactivity after which browse/help/menu return to now playing (when something is queued).
    public static let browseTimeoutSeconds = 20
    /// Period of resume-state saves while playing.
    public static let saveIntervalSeconds = 5

    let loop: EventLoop
    let engine: AudioEngine
    let screen: (any ScreenOutput)?
    let config: Config
    /// The directory for resume.json.
    let stateDirectory: String
    /// Output devices the menu offers, the configured one first.
    public private(set) var outputDevices: [String]
    public private(set) var outputDevice: String

    public private(set) var catalog: Catalog?
    public private(set) var status: PlaybackStatus = .stopped
    public private(set) var mode: PlayerMode = .nowPlaying
    public private(set) var category: KioskLibrary.Category = .album
    public private(set) var queue: [Track] = []
    public private(set) var queueIndex = 0
    public private(set) var queueCollection: Collection?
    public private(set) var volume: Int
    public private(set) var repeatQueue: Bool
    /// Frames of the current track played so far, and its rate.
    public private(set) var positionFrames: Int64 = 0
    public private(set) var sampleRate = 0
    /// Selection in the browse list of each category.
    private var selection: [KioskLibrary.Category: Int] = [:]
    /// Ids given to the engine's queue entries: `idBase + index`.
    private var idBase: UInt64 = 0
    private var volumesPresent: Set<String> = []
    private var scanning: [String: Int] = [:]
    private var pendingResume: ResumeState?
    private var transient: (message: MessageState, timer: TimerID)?
    private var statusLine: String?
    /// nil until the volume is first changed; then the current volume (the display shows the overlay
    /// when this value changes and hides it by itself).
    private var volumeOverlay: Int?
    private var idleTimer: TimerID?
    private var saveTimer: TimerID?
    private var deviceLostTimer: TimerID?
    private var shuttingDown = false

    /// Called with a one-line status for systemd (`STATUS=`) whenever it changes.
    public var onStatus: ((String) -> Void)?
    /// Called when the user asks for a shutdown (chord); the appliance decides what it means.
    public var onShutdownRequest: (() -> Void)?

    public init(
        loop: EventLoop, engine: AudioEngine, screen: (any ScreenOutput)?, config: Config, outputDevices: [String],
        resume: ResumeState?
    ) {
        self.loop = loop
        self.engine = engine
        self.screen = screen
        self.config = config
        self.stateDirectory = config.stateDirectory
        var devices: [String] = []
        for d in outputDevices where !devices.contains(d) { devices.append(d) }
        if devices.isEmpty { devices = ["default"] }
        self.outputDevices = devices
        self.outputDevice = devices[0]
        self.volume = resume?.volumePercent ?? config.volume
        self.repeatQueue = config.repeatQueue
        if let resume {
            category = KioskLibrary.Category(rawValue: resume.category) ?? .album
            if let device = resume.outputDevice, devices.contains(device) { outputDevice = device }
            if resume.relativePath != nil { pendingResume = resume }
        }
        engine.setVolume(volume)
        if outputDevice != devices[0] { engine.setDevice(outputDevice) }
    }

    // MARK: - derived state

    public var currentTrack: Track? { queue.indices.contains(queueIndex) ? queue[queueIndex] : nil }

    public var positionSeconds: Double { sampleRate > 0 ? Double(positionFrames) / Double(sampleRate) : 0 }

    /// The categories that have something to show, in cycle order.
    var availableCategories: [KioskLibrary.Category] {
        guard let catalog else { return [] }
        return Self.categoryCycle.filter { !catalog.collections(in: $0).isEmpty }
    }

    var collections: [Collection] { catalog?.collections(in: category) ?? [] }

    public var selectedIndex: Int {
        let count = collections.count
        guard count > 0 else { return 0 }
        return min(max(selection[category] ?? 0, 0), count - 1)
    }

    static func label(_ category: KioskLibrary.Category) -> String {
        switch category {
        case .album: "Albums"
        case .artist: "Artists"
        case .albumArtist: "Album artists"
        case .genre: "Genres"
        case .playlist: "Playlists"
        case .folder: "Folders"
        }
    }

    static func singular(_ category: KioskLibrary.Category) -> String {
        switch category {
        case .album: "Album"
        case .artist: "Artist"
        case .albumArtist: "Album artist"
        case .genre: "Genre"
        case .playlist: "Playlist"
        case .folder: "Folder"
        }
    }

    // MARK: - actions

    /// Applies one action. The effect depends on the mode; volume works everywhere.
    public func handle(_ event: ActionEvent) {
        guard !shuttingDown else { return }
        rearmIdleTimer()
        let steps = max(1, event.steps)
        switch event.action {
        case .volumeUp:
            changeVolume(by: Self.volumeStep * steps)
            return
        case .volumeDown:
            changeVolume(by: -Self.volumeStep * steps)
            return
        case .shutdown:
            requestShutdown()
            return
        default: break
        }
        if transient != nil {
            // Any other press dismisses a transient message first and does nothing else.
            clearTransient()
            refreshScreen()
            return
        }
        switch mode {
        case .nowPlaying: handleNowPlaying(event.action, steps: steps)
        case .browse: handleBrowse(event.action, steps: steps)
        case .help(let page): handleHelp(event.action, page: page)
        case .menu(let selected): handleMenu(event.action, selected: selected)
        }
        refreshScreen()
    }

    private func handleNowPlaying(_ action: Action, steps: Int) {
        switch action {
        case .playPause:
            switch status {
            case .playing: pause()
            case .paused: resume()
            case .stopped: play()
            }
        case .play: status == .paused ? resume() : (status == .stopped ? play() : ())
        case .pause: if status == .playing { pause() }
        case .stop: stop()
        case .next: skip(forward: true)
        case .previous: skip(forward: false)
        case .nextCategory: cycleCategory(by: 1)
        case .previousCategory: cycleCategory(by: -1)
        case .nextCollection, .down: enterBrowse(moveBy: steps)
        case .previousCollection, .up: enterBrowse(moveBy: -steps)
        case .select: enterBrowse(moveBy: 0)
        case .back: break
        case .menu: mode = .menu(selected: 0)
        case .help: mode = .help(page: 0)
        case .volumeUp, .volumeDown, .shutdown: break
        }
    }

    private func handleBrowse(_ action: Action, steps: Int) {
        switch action {
        case .down, .nextCollection, .next: moveSelection(by: steps)
        case .up, .previousCollection, .previous: moveSelection(by: -steps)
        case .select, .playPause, .play: playSelection()
        case .pause: if status == .playing { pause() }
        case .stop: stop()
        case .back: mode = .nowPlaying
        case .nextCategory: cycleCategory(by: 1)
        case .previousCategory: cycleCategory(by: -1)
        case .menu: mode = .menu(selected: 0)
        case .help: mode = .help(page: 0)
        case .volumeUp, .volumeDown, .shutdown: break
        }
    }

    private func handleHelp(_ action: Action, page: Int) {
        let pages = helpPageCount
        switch action {
        case .next, .down, .nextCollection, .nextCategory: mode = .help(page: min(page + 1, pages - 1))
        case .previous, .up, .previousCollection, .previousCategory: mode = .help(page: max(page - 1, 0))
        case .back, .help, .select, .playPause, .menu: mode = .nowPlaying
        default: break
        }
    }

    /// Menu entries; the output entry is always present so the device can be changed from the buttons.
    public var menuEntries: [String] {
        [
            "Output: \(outputDevice)",
            "Repeat: \(repeatQueue ? "on" : "off")",
            "Help",
            "Close",
        ]
    }

    private func handleMenu(_ action: Action, selected: Int) {
        let count = menuEntries.count
        switch action {
        case .next, .down, .nextCollection: mode = .menu(selected: (selected + 1) % count)
        case .previous, .up, .previousCollection: mode = .menu(selected: (selected + count - 1) % count)
        case .select, .playPause:
            switch selected {
            case 0: cycleOutput()
            case 1:
                repeatQueue.toggle()
                saveSoon()
            case 2: mode = .help(page: 0)
            default: mode = .nowPlaying
            }
        case .back, .menu: mode = .nowPlaying
        case .help: mode = .help(page: 0)
        default: break
        }
    }

    // MARK: - playback

    /// Starts playing: the current queue from its position, or the selected collection.
    func play() {
        if queue.isEmpty {
            playSelection()
            return
        }
        engine.play()
        status = .playing
        startSaveTimer()
        saveSoon()
    }

    func pause() {
        engine.pause()
        status = .paused
        stopSaveTimer()
        saveNow()
    }

    func resume() {
        engine.resume()
        status = .playing
        startSaveTimer()
        saveNow()
    }

    /// Stops and rewinds to the start of the current track.
    func stop() {
        guard !queue.isEmpty else { return }
        engine.stop()
        status = .stopped
        positionFrames = 0
        stopSaveTimer()
        saveNow()
    }

    private func skip(forward: Bool) {
        guard !queue.isEmpty else { return }
        if forward {
            if queueIndex + 1 < queue.count {
                engine.next()
                if status != .playing { moveQueueIndex(to: queueIndex + 1) }
            } else if repeatQueue {
                startQueue(at: 0, frame: 0, playing: status == .playing)
            } else {
                // Next on the last track: stop at the end of the queue.
                engine.stop()
                status = .stopped
                positionFrames = 0
                stopSaveTimer()
            }
        } else {
            if positionSeconds > Self.restartThresholdSeconds || queueIndex == 0 {
                engine.seek(toFrame: 0)
                positionFrames = 0
            } else {
                engine.previous()
                if status != .playing { moveQueueIndex(to: queueIndex - 1) }
            }
        }
        saveSoon()
    }

    /// Updates the shown track while not playing (no trackStarted will come).
    private func moveQueueIndex(to index: Int) {
        queueIndex = index
        positionFrames = 0
        sampleRate = currentTrack?.sampleRate ?? sampleRate
        provideArtworkForCurrentTrack()
    }

    private func changeVolume(by delta: Int) {
        let new = min(100, max(0, volume + delta))
        volumeOverlay = new
        if new != volume {
            volume = new
            engine.setVolume(volume)
            saveSoon()
        }
        refreshScreen()
    }

    private func cycleOutput() {
        guard outputDevices.count > 1 else { return }
        let index = outputDevices.firstIndex(of: outputDevice) ?? 0
        outputDevice = outputDevices[(index + 1) % outputDevices.count]
        engine.setDevice(outputDevice)
        statusLine = nil
        saveSoon()
    }

    // MARK: - browsing

    private func cycleCategory(by delta: Int) {
        let cycle = availableCategories
        guard !cycle.isEmpty else { return }
        let index = cycle.firstIndex(of: category) ?? (delta > 0 ? -1 : 0)
        category = cycle[((index + delta) % cycle.count + cycle.count) % cycle.count]
        // The screen shows the category's first collection.
        selection[category] = 0
        mode = .browse
        provideArtworkForBrowse()
        saveSoon()
    }

    private func enterBrowse(moveBy delta: Int) {
        if let playing = queueCollection, playing.category == category,
            let index = collections.firstIndex(of: playing)
        {
            selection[category] = index
        }
        mode = .browse
        moveSelection(by: delta)
    }

    private func moveSelection(by delta: Int) {
        let count = collections.count
        guard count > 0 else { return }
        selection[category] = ((selectedIndex + delta) % count + count) % count
        provideArtworkForBrowse()
    }

    private func playSelection() {
        let list = collections
        guard !list.isEmpty, let catalog else { return }
        let collection = list[selectedIndex]
        let tracks = catalog.tracks(of: collection)
        guard !tracks.isEmpty else { return }
        setQueue(tracks, collection: collection)
        startQueue(at: 0, frame: 0, playing: true)
        mode = .nowPlaying
    }

    private func setQueue(_ tracks: [Track], collection: Collection?) {
        queue = tracks
        queueCollection = collection
    }

    /// Hands the queue to the engine, positioned at `index`/`frame`.
    private func startQueue(at index: Int, frame: Int64, playing: Bool) {
        idBase &+= 1 << 32
        let requests = queue.enumerated().map { TrackRequest(id: idBase + UInt64($0.offset), path: $0.element.path) }
        engine.setQueue(requests, startAt: index, startFrame: frame)
        queueIndex = index
        positionFrames = frame
        sampleRate = queue[index].sampleRate
        provideArtworkForCurrentTrack()
        if playing {
            engine.play()
            status = .playing
            startSaveTimer()
        } else {
            status = frame > 0 ? .paused : .stopped
        }
        saveSoon()
    }

    private func index(of id: UInt64) -> Int? {
        guard id >= idBase, id - idBase < UInt64(queue.count) else { return nil }
        return Int(id - idBase)
    }

    // MARK: - engine events

    public func handle(_ event: AudioEvent) {
        switch event {
        case .trackStarted(let id, let format, _):
            guard let index = index(of: id) else { return }
            queueIndex = index
            positionFrames = 0
            sampleRate = format.sampleRate
            provideArtworkForCurrentTrack()
            saveSoon()
        case .position(let id, let frames, let rate):
            guard let index = index(of: id) else { return }
            queueIndex = index
            positionFrames = frames
            sampleRate = rate
        case .trackFinished:
            break
        case .queueFinished:
            if repeatQueue && !queue.isEmpty {
                startQueue(at: 0, frame: 0, playing: true)
            } else {
                status = .stopped
                if !queue.isEmpty { moveQueueIndex(to: 0) }
                engine.setQueue(
                    queue.enumerated().map { TrackRequest(id: idBase + UInt64($0.offset), path: $0.element.path) },
                    startAt: 0, startFrame: 0)
                stopSaveTimer()
                saveNow()
            }
        case .error(_, let path, let message):
            let name = path.split(separator: "/").last.map(String.init) ?? path
            showTransient(MessageState(title: "Cannot play \(name)", detail: message, kind: .error), seconds: 4)
        case .deviceLost(let device, let message):
            statusLine = "Audio device unplugged"
            Log.warning("audio device \(device) lost: \(message)")
            scheduleFallback(from: device)
        case .deviceBack(let device):
            if let timer = deviceLostTimer { loop.cancel(timer) }
            deviceLostTimer = nil
            statusLine = nil
            Log.notice("audio device \(device) is back")
        case .formatChanged(_, let deviceFormat):
            Log.info("output format: \(deviceFormat)")
        }
        refreshScreen()
    }

    /// When the device stays away for 3 s and there is another one, switch to it; the engine
    /// keeps the queue and the position.
    private func scheduleFallback(from device: String) {
        guard deviceLostTimer == nil, outputDevices.count > 1 else { return }
        deviceLostTimer = loop.schedule(afterMilliseconds: 3000) { [weak self] in
            guard let self else { return }
            self.deviceLostTimer = nil
            guard self.statusLine != nil else { return }
            let index = self.outputDevices.firstIndex(of: self.outputDevice) ?? 0
            self.outputDevice = self.outputDevices[(index + 1) % self.outputDevices.count]
            Log.notice("switching audio output to \(self.outputDevice)")
            self.engine.setDevice(self.outputDevice)
            self.statusLine = "Output: \(self.outputDevice)"
            self.refreshScreen()
        }
    }

    // MARK: - library events

    public func handle(_ event: LibraryEvent, catalog newCatalog: Catalog) {
        switch event {
        case .volumeAdded(let id, _):
            volumesPresent.insert(id.rawValue)
            scanning[id.rawValue] = 0
        case .scanProgress(let id, let found):
            scanning[id.rawValue] = found
        case .scanFinished(let id, _, _, _):
            scanning[id.rawValue] = nil
        case .volumeRemoved(let id, let mountPoint):
            volumesPresent.remove(id.rawValue)
            scanning[id.rawValue] = nil
            volumeRemoved(id, mountPoint: mountPoint)
        case .catalogChanged:
            break
        }
        catalog = newCatalog
        if !availableCategories.contains(category), let first = availableCategories.first { category = first }
        tryResume()
        refreshScreen()
    }

    private func volumeRemoved(_ id: VolumeID, mountPoint: String) {
        guard queue.contains(where: { $0.volume == id }) else { return }
        let currentGone = currentTrack?.volume == id
        let remaining = queue.filter { $0.volume != id }
        if currentGone {
            engine.stop()
            status = .stopped
            stopSaveTimer()
            showTransient(
                MessageState(title: "USB stick removed", detail: "Playback stopped", kind: .info), seconds: 4)
        }
        let keptIndex = currentGone ? 0 : (remaining.firstIndex(of: queue[queueIndex]) ?? 0)
        queue = remaining
        if queue.isEmpty {
            queueCollection = nil
            queueIndex = 0
            engine.setQueue([], startAt: 0, startFrame: 0)
        } else {
            let playing = status == .playing
            startQueue(
                at: keptIndex, frame: currentGone ? 0 : positionFrames, playing: playing && !currentGone)
        }
        if mode == .browse { mode = .nowPlaying }
    }

    /// Restores the saved queue once its volume's tracks are in the catalog.
    private func tryResume() {
        guard let resume = pendingResume, let catalog, let volumeID = resume.volumeID,
            let relativePath = resume.relativePath
        else { return }
        guard volumesPresent.contains(volumeID) || catalog.trackCount > 0 else { return }
        var tracks: [Track] = []
        var collection: Collection?
        if let ref = resume.collection, let cat = KioskLibrary.Category(rawValue: ref.category),
            let match = catalog.collections(in: cat).first(where: { $0.key == ref.key })
        {
            collection = match
            tracks = catalog.tracks(of: match)
        }
        guard
            let index = tracks.firstIndex(where: { $0.volume.rawValue == volumeID && $0.relativePath == relativePath })
        else {
            // Still scanning that volume: wait; otherwise the saved track is gone.
            if scanning[volumeID] == nil && volumesPresent.contains(volumeID) {
                Log.notice("saved track \(relativePath) is no longer on the stick; not resuming")
                pendingResume = nil
            }
            return
        }
        pendingResume = nil
        setQueue(tracks, collection: collection)
        let frame = tracks[index].sampleRate == resume.sampleRate ? resume.positionFrames : 0
        Log.info("resuming \(relativePath) at \(Int(Double(frame) / Double(max(1, tracks[index].sampleRate)))) s")
        startQueue(at: index, frame: frame, playing: resume.playing)
    }

    // MARK: - resume state

    public func resumeState() -> ResumeState {
        var state = ResumeState()
        state.category = category.rawValue
        state.volumePercent = volume
        state.outputDevice = outputDevice
        if let track = currentTrack {
            state.volumeID = track.volume.rawValue
            state.relativePath = track.relativePath
            state.positionFrames = positionFrames
            state.sampleRate = sampleRate
            state.queueIndex = queueIndex
            state.playing = status == .playing
            if let c = queueCollection { state.collection = .init(category: c.category.rawValue, key: c.key) }
        } else if let pending = pendingResume {
            // Nothing restored yet (the stick is still scanning): keep what was saved.
            state = pending
            state.volumePercent = volume
        }
        return state
    }

    /// Saves at the end of this loop iteration (coalesces several changes into one write).
    private var saveScheduled = false
    private func saveSoon() {
        guard !saveScheduled else { return }
        saveScheduled = true
        loop.schedule(afterMilliseconds: 0) { [weak self] in
            self?.saveScheduled = false
            self?.saveNow()
        }
    }

    public func saveNow() {
        do {
            try Syscalls.mkdirs(stateDirectory)
            try resumeState().save(directory: stateDirectory)
        } catch {
            Log.error("cannot save state in \(stateDirectory): \(error)")
        }
    }

    private func startSaveTimer() {
        guard saveTimer == nil else { return }
        let period = Self.saveIntervalSeconds * 1000
        saveTimer = loop.schedule(afterMilliseconds: period, repeatingMilliseconds: period) { [weak self] in
            self?.saveNow()
        }
    }

    private func stopSaveTimer() {
        if let timer = saveTimer { loop.cancel(timer) }
        saveTimer = nil
    }

    // MARK: - screen

    private func rearmIdleTimer() {
        if let timer = idleTimer { loop.cancel(timer) }
        idleTimer = loop.schedule(afterMilliseconds: Self.browseTimeoutSeconds * 1000) { [weak self] in
            guard let self, self.mode != .nowPlaying, !self.queue.isEmpty else { return }
            self.mode = .nowPlaying
            self.refreshScreen()
        }
    }

    private func showTransient(_ message: MessageState, seconds: Int) {
        clearTransient()
        let timer = loop.schedule(afterMilliseconds: seconds * 1000) { [weak self] in
            self?.transient = nil
            self?.refreshScreen()
        }
        transient = (message, timer)
    }

    private func clearTransient() {
        if let t = transient { loop.cancel(t.timer) }
        transient = nil
    }

    /// Help pages: the controls of the board and what they do.
    public var helpEntries: [HelpEntry] = []

    /// Pages the help screen needs on this screen (1 without a screen).
    var helpPageCount: Int { screen?.helpPageCount(entries: helpEntries.count) ?? 1 }

    /// What the screen should show now.
    public func screenState() -> ScreenState {
        if shuttingDown {
            return .message(MessageState(title: "Shutting down", detail: "Safe to unplug in a moment", kind: .info))
        }
        if let t = transient { return .message(t.message) }
        switch mode {
        case .help(let page):
            return .help(HelpState(title: "Buttons", entries: helpEntries, page: min(page, helpPageCount - 1)))
        case .menu(let selected):
            return .browse(
                BrowseState(
                    categoryLabel: "Menu",
                    items: menuEntries.map { BrowseItem(title: $0, subtitle: nil, artworkKey: nil) },
                    selectedIndex: selected))
        case .browse:
            if !collections.isEmpty {
                return .browse(
                    BrowseState(
                        categoryLabel: Self.label(category),
                        items: collections.map {
                            BrowseItem(title: $0.name, subtitle: $0.subtitle, artworkKey: artworkKey(for: $0))
                        },
                        selectedIndex: selectedIndex))
            }
        case .nowPlaying:
            break
        }
        if queue.isEmpty {
            if let message = libraryMessage() { return .message(message) }
            if mode == .nowPlaying, !collections.isEmpty {
                // Nothing queued yet: show the browse list so the first press has a target.
                return .browse(
                    BrowseState(
                        categoryLabel: Self.label(category),
                        items: collections.map {
                            BrowseItem(title: $0.name, subtitle: $0.subtitle, artworkKey: artworkKey(for: $0))
                        },
                        selectedIndex: selectedIndex))
            }
        }
        return .nowPlaying(nowPlayingState())
    }

    private func libraryMessage() -> MessageState? {
        if volumesPresent.isEmpty && (catalog?.trackCount ?? 0) == 0 {
            return MessageState(title: "Insert a USB stick with FLAC files", detail: nil, kind: .info)
        }
        if (catalog?.trackCount ?? 0) == 0 {
            if !scanning.isEmpty {
                let found = scanning.values.reduce(0, +)
                return MessageState(title: "Scanning…", detail: "\(found) tracks", kind: .progress)
            }
            return MessageState(title: "No playable FLAC files", detail: "on the USB stick", kind: .info)
        }
        return nil
    }

    func nowPlayingState() -> NowPlayingState {
        let track = currentTrack
        let playback: PlaybackState =
            switch status {
            case .playing: .playing
            case .paused: .paused
            case .stopped: .stopped
            }
        return NowPlayingState(
            title: track?.title, artist: track?.artist, album: track?.album,
            elapsedSeconds: positionSeconds, totalSeconds: track?.durationSeconds,
            playback: playback,
            categoryLabel: queueCollection.map { Self.singular($0.category) } ?? Self.singular(category),
            queuePosition: queue.isEmpty ? 0 : queueIndex + 1, queueCount: queue.count,
            artworkKey: track.map { artworkKey(for: $0) },
            volumeOverlay: volumeOverlay,
            statusLine: statusLine)
    }

    public func refreshScreen() {
        screen?.show(screenState())
        onStatus?(statusText())
    }

    func statusText() -> String {
        if let message = libraryMessage(), queue.isEmpty { return message.title }
        guard let track = currentTrack else { return "Idle" }
        switch status {
        case .playing: return "Playing \(track.artist) – \(track.title)"
        case .paused: return "Paused \(track.artist) – \(track.title)"
        case .stopped: return "Stopped \(track.artist) – \(track.title)"
        }
    }

    // MARK: - artwork

    func artworkKey(for collection: Collection) -> String {
        "\(collection.representative.volume.rawValue)/\(collection.representative.relativePath)"
    }

    func artworkKey(for track: Track) -> String { "\(track.volume.rawValue)/\(track.relativePath)" }

    private func provideArtworkForCurrentTrack() {
        guard let track = currentTrack, let catalog, let screen else { return }
        screen.provideArtwork(key: artworkKey(for: track), loadArtwork: { catalog.artwork(for: track) })
    }

    private func provideArtworkForBrowse() {
        guard let catalog, let screen else { return }
        let list = collections
        guard !list.isEmpty else { return }
        // The selected collection and its neighbours (the visible part of the list).
        let low = max(0, selectedIndex - 3)
        let high = min(list.count - 1, selectedIndex + 3)
        for collection in list[low...high] {
            let track = collection.representative
            screen.provideArtwork(key: artworkKey(for: collection), loadArtwork: { catalog.artwork(for: track) })
        }
    }

    // MARK: - shutdown

    private func requestShutdown() {
        guard let handler = onShutdownRequest else { return }
        shuttingDown = true
        engine.stop()
        status = .stopped
        saveNow()
        refreshScreen()
        handler()
    }

    /// Stops everything for process exit: state saved, audio stopped, screen cleared.
    public func shutdown() {
        stopSaveTimer()
        saveNow()
        engine.shutdown()
    }
}

/// Where the player's screens go (the display, or nothing on a headless box).
public protocol ScreenOutput: AnyObject {
    func show(_ state: ScreenState)
    /// Registers how to get the artwork for `key`; `load` runs off the loop thread.
    func provideArtwork(key: String, loadArtwork: @escaping @Sendable () -> Artwork?)
    /// How many help pages `entries` entries need on this screen.
    func helpPageCount(entries: Int) -> Int
}

extension Display: ScreenOutput {
    /// Reads the artwork's bytes (embedded, or the cover file, at most 16 MB) on the artwork worker.
    public func provideArtwork(key: String, loadArtwork: @escaping @Sendable () -> Artwork?) {
        provideArtwork(key: key) {
            switch loadArtwork() {
            case .embedded(let bytes, _): return bytes
            case .file(let path): return try? Syscalls.readFile(path, limit: 16 << 20)
            case nil: return nil
            }
        }
    }

    public func helpPageCount(entries: Int) -> Int {
        ScreenLayout.helpPageCount(entries: entries, size: Size(width: surface.width, height: surface.height))
    }
}
