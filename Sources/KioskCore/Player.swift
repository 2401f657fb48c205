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
/// engine, the screen and the resume state.
///
/// After a restart the saved track plays as soon as its stick is mounted, before the stick's scan
/// ends (the engine gets that one file, the screen shows what the saved state says of it); when
/// the catalog is ready the queue around it (the saved collection, else the track's folder) takes
/// over without a break. Thread: loop thread only.
public final class Player {
    /// The categories in the order next/previous category cycles through them.
    public static let categoryCycle: [KioskLibrary.Category] = [.album, .artist, .playlist, .genre, .folder]
    /// Previous restarts the current track when more than this many seconds have played.
    public static let restartThresholdSeconds = 3.0
    /// Volume change per step.
    public static let volumeStep = 5
    /// Inactivity after which browse/help/menu return to now playing (when something is queued).
    public static let defaultBrowseTimeoutMilliseconds = 20_000
    /// Period of resume-state saves while playing, in milliseconds: a little under 5 s, so that a
    /// power cut loses at most 5 s of the position even counting the time a save takes.
    public static let defaultSaveIntervalMilliseconds = 4_500

    let loop: EventLoop
    let engine: AudioEngine
    let screen: (any ScreenOutput)?
    let config: Config
    /// The directory for resume.json.
    let stateDirectory: String
    /// Output devices the menu offers, the configured one first.
    public private(set) var outputDevices: [String]
    /// The device in use.
    public private(set) var outputDevice: String
    /// The device chosen (by the config or in the menu). When it is lost, the next device of the
    /// list takes over after `fallbackDelayMilliseconds`; the chosen one is probed every
    /// `returnProbeMilliseconds` and taken back as soon as it opens again.
    public private(set) var preferredDevice: String
    public var fallbackDelayMilliseconds = 3000
    public var returnProbeMilliseconds = 5000

    public private(set) var catalog: Catalog?
    public internal(set) var status: PlaybackStatus = .stopped
    public private(set) var mode: PlayerMode = .nowPlaying
    public private(set) var category: KioskLibrary.Category = .album
    public internal(set) var queue: [Track] = []
    public internal(set) var queueIndex = 0
    public internal(set) var queueCollection: Collection?
    public internal(set) var volume: Int
    public internal(set) var repeatQueue: Bool
    /// Frames of the current track played so far, and its rate.
    public internal(set) var positionFrames: Int64 = 0
    public private(set) var sampleRate = 0
    /// Selection in the browse list of each category.
    private var selection: [KioskLibrary.Category: Int] = [:]
    /// Ids given to the engine's queue entries: `idBase + index`.
    private var idBase: UInt64 = 0
    private var volumesPresent: Set<String> = []
    private var scanning: [String: Int] = [:]
    var pendingResume: ResumeState?
    /// The saved track, playing (or positioned) before its stick's catalog is loaded: a restart
    /// sounds again within a fraction of a second (`fastResume`); the queue around it follows.
    private var provisional: ResumeState?
    /// The engine's queue is only that track (its id `provisionalID`): when it ends, the player
    /// hands the engine the rest of the queue; a skip hands it the whole queue first.
    private var engineQueueIsProvisional = false
    /// The provisional track played to its end before the catalog came.
    private var provisionalFinished = false
    static let provisionalID: UInt64 = 1 << 62
    private var transient: (message: MessageState, timer: TimerID)?
    var statusLine: String?
    /// nil until the volume is first changed; then the current volume (the display shows the overlay
    /// when this value changes and hides it by itself).
    private var volumeOverlay: Int?
    private var idleTimer: TimerID?
    private var saveTimer: TimerID?
    private var deviceLostTimer: TimerID?
    private var returnProbeTimer: TimerID?
    /// Fallbacks since the chosen device last stayed for a minute: the return probe backs off
    /// (×2 each, at most ×16) so that a device that opens but fails at once does not flap.
    private var recentFallbacks = 0
    private var lastReturnNs: UInt64 = 0
    private var shuttingDown = false

    /// Inactivity after which browse, help and menu go back to now playing (tests shorten it).
    public var browseTimeoutMilliseconds = Player.defaultBrowseTimeoutMilliseconds
    /// Period of resume-state saves while playing (tests shorten it).
    public var saveIntervalMilliseconds = Player.defaultSaveIntervalMilliseconds

    /// Called with a one-line status for systemd (`STATUS=`) whenever it changes.
    public var onStatus: ((String) -> Void)?
    /// Called when the user asks for a shutdown (chord); the appliance decides what it means.
    public var onShutdownRequest: (() -> Void)?
    /// Called after anything that may have changed the state (each screen refresh), so remote
    /// clients (the MPD server) can see what changed.
    public var onChange: (() -> Void)?

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
        self.preferredDevice = devices[0]
        self.volume = resume?.volumePercent ?? config.volume
        self.repeatQueue = config.repeatQueue
        if let resume {
            category = KioskLibrary.Category(rawValue: resume.category) ?? .album
            if let device = resume.outputDevice, devices.contains(device) {
                outputDevice = device
                preferredDevice = device
            }
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
    ///
    /// In every mode: volume up/down change the volume; shutdown asks the appliance to shut down;
    /// while a transient message (e.g. "USB stick removed") shows, any other action only dismisses
    /// it. With nothing queued the now-playing screen shows the browse list, and the actions act
    /// as in browse mode. The per-mode tables are in `handleNowPlaying`, `handleBrowse`,
    /// `handleHelp` and `handleMenu`.
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
        if mode == .nowPlaying && queue.isEmpty && provisional == nil && !collections.isEmpty {
            // The screen shows the browse list (see screenState): act on it.
            mode = .browse
        }
        switch mode {
        case .nowPlaying: handleNowPlaying(event.action, steps: steps)
        case .browse: handleBrowse(event.action, steps: steps)
        case .help(let page): handleHelp(event.action, page: page)
        case .menu(let selected): handleMenu(event.action, selected: selected)
        }
        refreshScreen()
    }

    /// Now playing: transport on the queue; browsing actions open the browse list.
    private func handleNowPlaying(_ action: Action, steps: Int) {
        switch action {
        case .playPause, .play, .pause, .stop: transport(action)
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

    /// Play-pause, play, pause and stop: the same in every mode except where noted.
    private func transport(_ action: Action) {
        switch action {
        case .playPause:
            switch status {
            case .playing: pause()
            case .paused: resume()
            case .stopped: play()
            }
        case .play:
            switch status {
            case .playing: break
            case .paused: resume()
            case .stopped: play()
            }
        case .pause: if status == .playing { pause() }
        case .stop: stop()
        default: break
        }
    }

    /// Browse: next/previous (and up/down, next/previous collection) move the selection; select,
    /// play and play-pause play the selected collection from its first track.
    private func handleBrowse(_ action: Action, steps: Int) {
        switch action {
        case .down, .nextCollection, .next: moveSelection(by: steps)
        case .up, .previousCollection, .previous: moveSelection(by: -steps)
        case .select, .playPause, .play: playSelection()
        case .pause, .stop: transport(action)
        case .back: mode = .nowPlaying
        case .nextCategory: cycleCategory(by: 1)
        case .previousCategory: cycleCategory(by: -1)
        case .menu: mode = .menu(selected: 0)
        case .help: mode = .help(page: 0)
        case .volumeUp, .volumeDown, .shutdown: break
        }
    }

    /// Help: next/previous turn the pages; back, help, select, menu and play-pause close it;
    /// play, pause and stop act on playback and leave the page open.
    private func handleHelp(_ action: Action, page: Int) {
        let pages = helpPageCount
        switch action {
        case .next, .down, .nextCollection, .nextCategory: mode = .help(page: min(page + 1, pages - 1))
        case .previous, .up, .previousCollection, .previousCategory: mode = .help(page: max(page - 1, 0))
        case .back, .help, .select, .playPause, .menu: mode = .nowPlaying
        case .play, .pause, .stop: transport(action)
        case .volumeUp, .volumeDown, .shutdown: break
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

    /// Menu: next/previous move (wrapping); select or play-pause chooses (output: the next device;
    /// repeat: toggles; help; close); back and menu close it; play, pause and stop act on playback.
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
        case .play, .pause, .stop: transport(action)
        case .nextCategory, .previousCategory: break
        case .volumeUp, .volumeDown, .shutdown: break
        }
    }

    // MARK: - playback

    /// Starts playing: the current queue from its position, or the selected collection.
    func play() {
        if queue.isEmpty && provisional == nil {
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

    /// Continues after a pause. The engine may be positioned rather than paused (a restored
    /// position, a track chosen while paused): `play` covers both.
    func resume() {
        engine.play()
        status = .playing
        startSaveTimer()
        saveNow()
    }

    /// Stops and rewinds to the start of the current track.
    func stop() {
        guard !queue.isEmpty || provisional != nil else { return }
        engine.stop()
        status = .stopped
        positionFrames = 0
        stopSaveTimer()
        saveNow()
    }

    /// Next and previous. Next on the last track ends the queue as if it had played to its end
    /// (stopped, back at the first track) unless repeat is on; previous more than 3 s into a track
    /// (or on the first track) restarts it. The play state (playing, paused, stopped) is kept.
    private func skip(forward: Bool) {
        guard !queue.isEmpty else { return }
        if engineQueueIsProvisional {
            startQueue(at: queueIndex, frame: livePositionFrames, status: status)
        }
        if forward {
            if queueIndex + 1 < queue.count {
                engine.next()
                moveQueueIndex(to: queueIndex + 1)
            } else if repeatQueue {
                startQueue(at: 0, frame: 0, status: status)
            } else {
                finishQueue()
                return
            }
        } else {
            if positionSeconds > Self.restartThresholdSeconds || queueIndex == 0 {
                engine.seek(toFrame: 0)
                positionFrames = 0
            } else {
                engine.previous()
                moveQueueIndex(to: queueIndex - 1)
            }
        }
        saveSoon()
    }

    /// Shows track `index` at its start at once; while playing, `trackStarted` confirms it.
    private func moveQueueIndex(to index: Int) {
        queueIndex = index
        positionFrames = 0
        sampleRate = currentTrack?.sampleRate ?? sampleRate
        provideArtworkForCurrentTrack()
    }

    /// The end of the queue (played out, or next on the last track without repeat): stopped,
    /// positioned at the start of the first track, so play starts the collection again.
    private func finishQueue() {
        status = .stopped
        engineQueueIsProvisional = false
        stopSaveTimer()
        if !queue.isEmpty {
            engine.setQueue(requests(), startAt: 0, startFrame: 0)
            moveQueueIndex(to: 0)
        }
        saveNow()
    }

    func changeVolume(by delta: Int) {
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
        chooseOutput(outputDevices[(index + 1) % outputDevices.count], by: "in the menu")
    }

    /// Makes `device` the chosen output (in the menu, or by a remote client): used now, and the
    /// one to go back to after a fallback. `chooser` completes the log line ("in the menu").
    func chooseOutput(_ device: String, by chooser: String) {
        outputDevice = device
        preferredDevice = device
        recentFallbacks = 0
        Log.notice("audio output: \(device) (chosen \(chooser))")
        engine.setDevice(device)
        cancelDeviceTimers()
        statusLine = nil
        saveSoon()
    }

    // MARK: - browsing

    /// Next/previous category: album → artist → playlist → genre → folder (categories with
    /// nothing in them are skipped); the browse list opens on the category's first collection.
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
        // The listener chose something else: a saved queue that still waits for its stick is dropped.
        pendingResume = nil
        setQueue(tracks, collection: collection)
        startQueue(at: 0, frame: 0, status: .playing)
        mode = .nowPlaying
    }

    private func setQueue(_ tracks: [Track], collection: Collection?) {
        queue = tracks
        queueCollection = collection
    }

    /// The queue as the engine gets it: ids `idBase + index`.
    /// Appends to the queue the engine is playing without disturbing it (no restart of the current
    /// track, no gap). False when the engine holds a provisional queue: the caller replaces it.
    func appendToEngineQueue(_ tracks: [Track]) -> Bool {
        guard !engineQueueIsProvisional, provisional == nil else { return false }
        pendingResume = nil
        let first = queue.count
        queue.append(contentsOf: tracks)
        queueCollection = nil
        engine.append((first..<queue.count).map(request))
        saveSoon()
        refreshScreen()
        return true
    }

    private func requests() -> [TrackRequest] { queue.indices.map(request) }

    /// Queue entry `index` for the engine: its id (`idBase` + index) and path.
    private func request(_ index: Int) -> TrackRequest {
        TrackRequest(id: idBase + UInt64(index), path: queue[index].path)
    }

    /// Hands the queue to the engine, positioned at `index`/`frame`, and plays (`.playing`) or
    /// holds there (`.paused`, `.stopped`).
    func startQueue(at index: Int, frame: Int64, status newStatus: PlaybackStatus) {
        idBase &+= 1 << 32
        engineQueueIsProvisional = false
        provisional = nil
        engine.setQueue(requests(), startAt: index, startFrame: frame)
        queueIndex = index
        positionFrames = frame
        sampleRate = queue[index].sampleRate
        provideArtworkForCurrentTrack()
        status = newStatus
        if newStatus == .playing {
            engine.play()
            startSaveTimer()
        } else {
            stopSaveTimer()
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
            if id == Self.provisionalID, queue.isEmpty, provisional != nil {
                sampleRate = format.sampleRate
                positionFrames = engine.currentTrackID == id ? max(0, engine.positionFrames) : positionFrames
                Log.debug(
                    "track started: \(provisional?.relativePath ?? "?") (restored) at frame \(positionFrames) of \(format.sampleRate) Hz; monotonic \(Syscalls.monotonicNanoseconds()) ns"
                )
                break
            }
            guard let index = index(of: id) else { return }
            queueIndex = index
            sampleRate = format.sampleRate
            // A track may start mid-way (a restored position, a seek): the engine knows where.
            positionFrames = engine.currentTrackID == id ? max(0, engine.positionFrames) : 0
            let track = queue[index]
            Log.debug(
                "track started: \(track.relativePath) (\(index + 1)/\(queue.count)) at frame \(positionFrames) of \(format.sampleRate) Hz; monotonic \(Syscalls.monotonicNanoseconds()) ns"
            )
            provideArtworkForCurrentTrack()
            saveSoon()
        case .position(let id, let frames, let rate):
            if id == Self.provisionalID, queue.isEmpty, provisional != nil {
                positionFrames = frames
                sampleRate = rate
                break
            }
            guard let index = index(of: id) else { return }
            queueIndex = index
            positionFrames = frames
            sampleRate = rate
            // Only the now-playing screen shows the position.
            guard case .nowPlaying = mode else { return }
        case .trackFinished:
            return
        case .queueFinished:
            if engineQueueIsProvisional {
                // The restored track ended: the rest of its queue follows (once it is known).
                if queue.isEmpty {
                    provisionalFinished = true
                    return
                }
                continueAfterProvisional()
            } else if repeatQueue && !queue.isEmpty {
                startQueue(at: 0, frame: 0, status: .playing)
            } else {
                finishQueue()
            }
        case .error(_, let path, let message):
            let name = path.split(separator: "/").last.map(String.init) ?? path
            Log.warning("cannot play \(path): \(message)")
            showTransient(MessageState(title: "Cannot play \(name)", detail: message, kind: .error), seconds: 4)
        case .deviceLost(let device, _):
            // The engine logs the loss and the return.
            statusLine = "Audio device unplugged"
            scheduleFallback(from: device)
        case .deviceBack:
            if let timer = deviceLostTimer { loop.cancel(timer) }
            deviceLostTimer = nil
            statusLine = outputDevice == preferredDevice ? nil : "Output: \(outputDevice)"
        case .formatChanged(_, let deviceFormat):
            Log.info("output format: \(deviceFormat)")
            return
        }
        refreshScreen()
    }

    /// When the device stays away for `fallbackDelayMilliseconds` and there is another one, switch
    /// to the next; the engine keeps the queue and the position. A fallback in use is left for the
    /// chosen device as soon as that opens again.
    private func scheduleFallback(from device: String) {
        guard deviceLostTimer == nil, outputDevices.count > 1 else { return }
        deviceLostTimer = loop.schedule(afterMilliseconds: fallbackDelayMilliseconds) { [weak self] in
            guard let self else { return }
            self.deviceLostTimer = nil
            guard self.statusLine != nil else { return }
            let index = self.outputDevices.firstIndex(of: self.outputDevice) ?? 0
            self.outputDevice = self.outputDevices[(index + 1) % self.outputDevices.count]
            Log.notice("switching audio output to \(self.outputDevice) while \(self.preferredDevice) is away")
            let now = Syscalls.monotonicNanoseconds()
            self.recentFallbacks = now - self.lastReturnNs > 60_000_000_000 ? 1 : self.recentFallbacks + 1
            self.engine.setDevice(self.outputDevice)
            self.statusLine = self.outputDevice == self.preferredDevice ? nil : "Output: \(self.outputDevice)"
            self.startReturnProbe()
            self.refreshScreen()
        }
    }

    /// While a fallback plays, checks now and then whether the chosen device opens again.
    private func startReturnProbe() {
        guard returnProbeTimer == nil, outputDevice != preferredDevice else { return }
        let period = max(100, returnProbeMilliseconds) << min(4, max(0, recentFallbacks - 1))
        returnProbeTimer = loop.schedule(afterMilliseconds: period, repeatingMilliseconds: period) { [weak self] in
            guard let self else { return }
            guard self.outputDevice != self.preferredDevice else {
                self.cancelDeviceTimers()
                return
            }
            // A non-blocking open and close: a few milliseconds at most.
            let preferred = self.preferredDevice
            if preferred != ClockOutput.deviceName, ALSAOutput.probe(device: preferred) != nil { return }
            Log.notice("audio output: \(preferred) is back; switching to it")
            self.cancelDeviceTimers()
            self.lastReturnNs = Syscalls.monotonicNanoseconds()
            self.outputDevice = preferred
            self.engine.setDevice(preferred)
            self.statusLine = nil
            self.refreshScreen()
        }
    }

    private func cancelDeviceTimers() {
        if let timer = deviceLostTimer { loop.cancel(timer) }
        deviceLostTimer = nil
        if let timer = returnProbeTimer { loop.cancel(timer) }
        returnProbeTimer = nil
    }

    // MARK: - library events

    public func handle(_ event: LibraryEvent, catalog newCatalog: Catalog) {
        switch event {
        case .volumeAdded(let id, let mountPoint):
            volumesPresent.insert(id.rawValue)
            scanning[id.rawValue] = 0
            fastResume(volume: id, mountPoint: mountPoint)
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

    /// A stick went away. When the current track was on it, playback stops and a message says why;
    /// the queue keeps the tracks of the other volumes (when it had any), and the state is saved.
    private func volumeRemoved(_ id: VolumeID, mountPoint: String) {
        if provisional?.volumeID == id.rawValue && queue.isEmpty {
            // The restored track's stick went before its catalog came: stop; the saved state stays
            // for when it comes back.
            dropProvisional()
            showTransient(
                MessageState(title: "USB stick removed", detail: "Playback stopped", kind: .info), seconds: 4)
            return
        }
        guard queue.contains(where: { $0.volume == id }) else { return }
        let currentGone = currentTrack?.volume == id
        let remaining = queue.filter { $0.volume != id }
        if currentGone {
            Log.notice("the volume of the current track went away (\(mountPoint)); playback stopped")
            // No engine.stop(): it would send the decoder to open the current track again, which is
            // gone ("Cannot play …" over this message). The new queue below stops the engine.
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
            positionFrames = 0
            engineQueueIsProvisional = false
            engine.setQueue([], startAt: 0, startFrame: 0)
            saveSoon()
        } else {
            startQueue(
                at: keptIndex, frame: currentGone ? 0 : positionFrames, status: currentGone ? .stopped : status)
        }
        if mode == .browse { mode = .nowPlaying }
    }

    /// Restores the saved queue once its volume's tracks are in the catalog: the saved collection,
    /// else (it is gone, e.g. a deleted playlist) the track's folder.
    private func tryResume() {
        guard let resume = pendingResume, let catalog, let volumeID = resume.volumeID,
            let relativePath = resume.relativePath
        else { return }
        guard volumesPresent.contains(volumeID) else { return }
        var tracks: [Track] = []
        var collection: Collection?
        if let ref = resume.collection, let cat = KioskLibrary.Category(rawValue: ref.category),
            let match = catalog.collection(cat, key: ref.key)
        {
            collection = match
            tracks = catalog.tracks(of: match)
        }
        var index = tracks.firstIndex { $0.volume.rawValue == volumeID && $0.relativePath == relativePath }
        if index == nil, let track = catalog.track(volume: VolumeID(rawValue: volumeID), relativePath: relativePath),
            let folder = catalog.collection(.folder, key: "\(volumeID)\u{1F}\(track.folder)")
        {
            collection = folder
            tracks = catalog.tracks(of: folder)
            index = tracks.firstIndex(of: track)
        }
        guard let index else {
            // Still scanning that volume: wait; otherwise the saved track is gone.
            if scanning[volumeID] == nil {
                Log.notice("saved track \(relativePath) is no longer on the stick; not resuming")
                pendingResume = nil
                if provisional != nil { dropProvisional() }
            }
            return
        }
        pendingResume = nil
        setQueue(tracks, collection: collection)
        if provisional != nil {
            adoptProvisional(at: index)
            return
        }
        let frame = tracks[index].sampleRate == resume.sampleRate ? resume.positionFrames : 0
        let rate = max(1, tracks[index].sampleRate)
        Log.info(
            "resuming \(relativePath) at \(Double(frame) / Double(rate)) s (frame \(frame))\(resume.playing ? "" : resume.positionFrames > 0 ? ", paused" : ", stopped")"
        )
        startQueue(at: index, frame: frame, status: resume.playing ? .playing : (frame > 0 ? .paused : .stopped))
    }

    /// Plays the saved track as soon as its stick is there, before the scan of the stick ends:
    /// the engine gets that one file; the screen shows what the saved state says of it.
    private func fastResume(volume id: VolumeID, mountPoint: String) {
        guard let resume = pendingResume, provisional == nil, queue.isEmpty, resume.volumeID == id.rawValue,
            let relativePath = resume.relativePath
        else { return }
        let path = mountPoint == "/" ? "/" + relativePath : mountPoint + "/" + relativePath
        guard Syscalls.exists(path) else { return }
        provisional = resume
        engineQueueIsProvisional = true
        provisionalFinished = false
        engine.setQueue(
            [TrackRequest(id: Self.provisionalID, path: path)], startAt: 0, startFrame: resume.positionFrames)
        positionFrames = resume.positionFrames
        sampleRate = resume.sampleRate
        status = resume.playing ? .playing : (resume.positionFrames > 0 ? .paused : .stopped)
        if status == .playing {
            engine.play()
            startSaveTimer()
        }
        Log.info(
            "resuming \(relativePath) at \(resume.positionSeconds) s (frame \(resume.positionFrames))\(resume.playing ? "" : resume.positionFrames > 0 ? ", paused" : ", stopped"), before the scan of its stick ends"
        )
    }

    /// The catalog came: the restored track becomes track `index` of its queue without a break;
    /// the engine gets the rest of the queue when the track ends (or at the first skip).
    private func adoptProvisional(at index: Int) {
        provisional = nil
        queueIndex = index
        idBase = Self.provisionalID &- UInt64(index)
        provideArtworkForCurrentTrack()
        if provisionalFinished {
            provisionalFinished = false
            continueAfterProvisional()
        }
        saveSoon()
    }

    /// The restored track ended: the next track of its queue plays (or the queue ends).
    private func continueAfterProvisional() {
        engineQueueIsProvisional = false
        if queueIndex + 1 < queue.count {
            startQueue(at: queueIndex + 1, frame: 0, status: .playing)
        } else if repeatQueue {
            startQueue(at: 0, frame: 0, status: .playing)
        } else {
            finishQueue()
        }
    }

    /// Stops a restored track whose queue cannot follow (its stick went, or it is gone).
    func dropProvisional() {
        provisional = nil
        provisionalFinished = false
        engineQueueIsProvisional = false
        engine.setQueue([], startAt: 0, startFrame: 0)
        status = .stopped
        positionFrames = 0
        stopSaveTimer()
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
            state.positionFrames = livePositionFrames
            state.sampleRate = sampleRate
            state.queueIndex = queueIndex
            state.playing = status == .playing
            if let c = queueCollection { state.collection = .init(category: c.category.rawValue, key: c.key) }
            state.title = track.title
            state.artist = track.artist
            state.album = track.album
            state.durationSeconds = track.durationSeconds
            state.queueCount = queue.count
        } else if let pending = pendingResume {
            // Nothing restored yet (the stick is still scanning): keep what was saved, with where
            // the restored track is now when it already plays.
            state = pending
            state.volumePercent = volume
            state.outputDevice = outputDevice
            if provisional != nil {
                state.playing = status == .playing
                state.positionFrames = livePositionFrames
            }
        }
        return state
    }

    /// The position of the current track now: the engine's counter while it plays the track (the
    /// last position event may be 250 ms old), else the last known one.
    var livePositionFrames: Int64 {
        let current: UInt64? =
            queue.isEmpty ? (provisional != nil ? Self.provisionalID : nil) : idBase &+ UInt64(queueIndex)
        guard status == .playing, let current, engine.currentTrackID == current else { return positionFrames }
        return max(0, engine.positionFrames)
    }

    /// Saves at the end of this loop iteration (coalesces several changes into one write).
    private var saveScheduled = false
    func saveSoon() {
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
        let period = max(50, saveIntervalMilliseconds)
        saveTimer = loop.schedule(afterMilliseconds: period, repeatingMilliseconds: period) { [weak self] in
            self?.saveNow()
        }
    }

    func stopSaveTimer() {
        if let timer = saveTimer { loop.cancel(timer) }
        saveTimer = nil
    }

    // MARK: - screen

    private func rearmIdleTimer() {
        if let timer = idleTimer { loop.cancel(timer) }
        idleTimer = loop.schedule(afterMilliseconds: browseTimeoutMilliseconds) { [weak self] in
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
        if queue.isEmpty && provisional == nil {
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
        if track == nil, let restored = provisional {
            return NowPlayingState(
                title: restored.title ?? restored.relativePath?.split(separator: "/").last.map(String.init),
                artist: restored.artist, album: restored.album, elapsedSeconds: positionSeconds,
                totalSeconds: restored.durationSeconds, playback: playbackState,
                categoryLabel: Self.singular(
                    restored.collection.flatMap { KioskLibrary.Category(rawValue: $0.category) } ?? category),
                queuePosition: restored.queueCount > 0 ? restored.queueIndex + 1 : 0, queueCount: restored.queueCount,
                artworkKey: nil, volumeOverlay: volumeOverlay, statusLine: statusLine)
        }
        let playback = playbackState
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

    private var playbackState: PlaybackState {
        switch status {
        case .playing: .playing
        case .paused: .paused
        case .stopped: .stopped
        }
    }

    public func refreshScreen() {
        let state = screenState()
        // The overlay belongs to the now-playing screen; elsewhere it is dropped, so that it does not
        // pop up later when that screen returns.
        if case .nowPlaying = state {} else { volumeOverlay = nil }
        // A browse list can appear without a move (nothing queued at start, a new catalog): its
        // visible entries need their thumbnails then too.
        if case .browse(let list) = state, list.items.contains(where: { $0.artworkKey != nil }), let catalog {
            let signature = "\(category.rawValue)#\(selectedIndex)#\(ObjectIdentifier(catalog).hashValue)"
            if signature != browseArtworkSignature {
                browseArtworkSignature = signature
                provideArtworkForBrowse()
            }
        }
        screen?.show(state)
        onStatus?(statusText())
        onChange?()
    }

    func statusText() -> String {
        if queue.isEmpty && provisional == nil, let message = libraryMessage() { return message.title }
        let shown = nowPlayingState()
        guard let title = shown.title else { return "Idle" }
        let what = shown.artist.map { "\($0) – \(title)" } ?? title
        switch status {
        case .playing: return "Playing \(what)"
        case .paused: return "Paused \(what)"
        case .stopped: return "Stopped \(what)"
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

    /// Category, selection and catalog of the browse list whose thumbnails were last requested.
    private var browseArtworkSignature = ""

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
