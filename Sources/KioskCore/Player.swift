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
    /// The linked cards (from the menu), one selected; hold Select unlinks it.
    case cards(selected: Int)
    /// The doctor's failed lines (from the menu), one selected (Player+SetupCheck.swift).
    case setupCheck(selected: Int)
}

/// The appliance's state machine: what plays, what the screen shows, what each button does.
///
/// Driven by three kinds of events: `ActionEvent`s from the inputs, `AudioEvent`s from the engine
/// and `LibraryEvent`s from the library. Every action has a defined effect in every state
/// (`handle(_: ActionEvent)`; the per-mode tables are in Player+Navigation.swift). It wires the
/// parts that do the work: the `PlayQueue` (order and the next/previous/repeat rules), the engine
/// (any `PlaybackEngine`), the `OutputSupervisor` (device fallback), the `ResumeRecorder` (what
/// is saved, when), and `PlayerView` (what the screen shows). Restoring the saved queue after a
/// restart is in Player+Restore.swift, remote control (MPD) in Player+Remote.swift.
///
/// Thread: the loop thread (the scheduler's) only.
public final class Player {
    /// The categories in the order next/previous category cycles through them.
    public static let categoryCycle: [KioskLibrary.Category] = [.album, .artist, .playlist, .genre, .folder]
    /// Previous restarts the current track when more than this many seconds have played.
    public static let restartThresholdSeconds = PlayQueue.restartThresholdSeconds
    /// Volume change per step.
    public static let volumeStep = 5
    /// Inactivity after which browse/help/menu return to now playing (when something is queued).
    public static let defaultBrowseTimeoutMilliseconds = 20_000
    /// Period of resume-state saves while playing, in milliseconds.
    public static let defaultSaveIntervalMilliseconds = ResumeRecorder.defaultIntervalMilliseconds

    let scheduler: any Scheduler
    let engine: any PlaybackEngine
    let screen: (any ScreenOutput)?
    let config: Config
    let output: OutputSupervisor
    var recorder: ResumeRecorder!

    public internal(set) var catalog: Catalog?
    public internal(set) var status: PlaybackStatus = .stopped
    public internal(set) var mode: PlayerMode = .nowPlaying
    public internal(set) var category: KioskLibrary.Category = .album
    /// The queue: tracks, current entry, repeat, engine ids.
    public internal(set) var playQueue: PlayQueue
    public internal(set) var volume: Int
    /// Frames of the current track played so far, and its rate.
    public internal(set) var positionFrames: Int64 = 0
    public internal(set) var sampleRate = 0
    /// Selection in the browse list of each category.
    var selection: [KioskLibrary.Category: Int] = [:]
    var volumesPresent: Set<String> = []
    var scanning: [String: Int] = [:]
    var pendingResume: ResumeState?
    /// The saved track, playing (or positioned) before its stick's catalog is loaded: a restart
    /// sounds again within a fraction of a second (`fastResume`); the queue around it follows.
    var provisional: ResumeState?
    /// The engine's queue is only that track (its id `provisionalID`): when it ends, the player
    /// hands the engine the rest of the queue; a skip hands it the whole queue first.
    var engineQueueIsProvisional = false
    /// The provisional track played to its end before the catalog came.
    var provisionalFinished = false
    static let provisionalID: UInt64 = 1 << 62
    /// MPD's single mode (set by MPD clients): the engine gets only the current entry.
    public internal(set) var single = SingleMode.off
    /// MPD's consume mode (set by MPD clients): an entry that has played leaves the queue.
    public internal(set) var consume = false
    /// The engine id of the entry the player itself last started (a jump, not a track border):
    /// consume removes only entries the queue played past.
    private var startedByPlayer: UInt64?
    var transient: (message: MessageState, timer: TimerID)?
    var statusLine: String?
    /// What `kiosk-player doctor` found wrong at start, and the under-voltage warning while it lasts
    /// (Player+SetupCheck.swift).
    var setupCheck = SetupCheckState()
    /// nil until the volume is first changed; then the current volume (the display shows the overlay
    /// when this value changes and hides it by itself).
    private var volumeOverlay: Int?
    private var idleTimer: TimerID?
    /// The idle power-off countdown (Player+IdlePowerOff.swift): its timer, and whether the
    /// warning shows.
    var idlePowerOff: (timer: TimerID, warning: Bool)?
    /// The sleep timer (Player+Sleep.swift), nil when off.
    var sleepTimer: SleepTimer?
    /// The time the saved state had left on the sleep timer (set going once the player exists).
    private var restoredSleepSeconds: Int?
    var shuttingDown = false

    /// Which collections are audiobooks (config `audiobookGenres`): they are never shuffled.
    let audiobooks: AudiobookRule
    /// Where each collection was left (Player+Bookmarks.swift).
    let bookmarks: BookmarkStore
    /// The card links (`cards.json`).
    public let cards: CardStore
    /// A new card waiting to be linked, while its prompt shows.
    var cardPrompt: CardPrompt?
    /// The card that started what the queue plays, for a second presentation and its removal.
    var playingCard: CardUID?
    /// The playing card was taken off and that paused playback: putting it back resumes.
    var pausedByCardRemoval = false
    /// A card whose collection was not there yet (its stick not inserted, or not scanned).
    var waitingCard: (uid: CardUID, collection: CardCollection, since: UInt64)?
    /// A card's volume limit (`volume-limit-N`), on top of the config's.
    var cardVolumeCeiling: Int?
    /// How the box is told to link a new card ("hold Select"): the gesture of `play-from-start`.
    public var linkGesture = "Hold Select"
    /// The last place written as a bookmark: a playing track is written again only after 30 s.
    var lastBookmarked: (relativePath: String, frames: Int64, playing: Bool)?

    /// Inactivity after which browse, help and menu go back to now playing (tests shorten it).
    public var browseTimeoutMilliseconds = Player.defaultBrowseTimeoutMilliseconds
    /// Period of resume-state saves while playing (tests shorten it).
    public var saveIntervalMilliseconds: Int {
        get { recorder.intervalMilliseconds }
        set { recorder.intervalMilliseconds = newValue }
    }

    /// Called with a one-line status for systemd (`STATUS=`) whenever it changes.
    public var onStatus: ((String) -> Void)?
    /// Called when the user asks for a shutdown (chord); the appliance decides what it means.
    public var onShutdownRequest: (() -> Void)?
    /// Called after anything that may have changed the state (each screen refresh), so remote
    /// clients (the MPD server) can see what changed.
    public var onChange: (() -> Void)?

    /// - Parameters:
    ///   - loop: the timers (the event loop; a virtual clock in tests).
    ///   - outputDevices: the devices the menu offers, the configured one first.
    ///   - deviceOpens: whether a device opens now, for taking the chosen one back after a fallback.
    public init(
        loop: any Scheduler, engine: any PlaybackEngine, screen: (any ScreenOutput)?, config: Config,
        outputDevices: [String], resume: ResumeState?,
        deviceOpens: @escaping (String) -> Bool = OutputSupervisor.alsaOpens
    ) {
        self.scheduler = loop
        self.engine = engine
        self.screen = screen
        self.config = config
        audiobooks = AudiobookRule(genres: config.audiobookGenres)
        bookmarks = BookmarkStore(directory: config.stateDirectory)
        cards = CardStore(directory: config.stateDirectory)
        output = OutputSupervisor(
            engine: engine, scheduler: loop, devices: outputDevices, chosen: resume?.outputDevice, opens: deviceOpens)
        volume = config.volumeLimits.clamp(config.volumeAtBoot ?? resume?.volumePercent ?? config.volume)
        playQueue = PlayQueue(repeats: config.repeatQueue)
        playQueue.setShuffle(resume?.shuffle.flatMap(PlayQueue.Shuffle.init(rawValue:)) ?? config.shuffle)
        restoredSleepSeconds = resume?.sleepRemainingSeconds
        if let resume {
            category = KioskLibrary.Category(rawValue: resume.category) ?? .album
            // resumeAtBoot false: the box starts stopped; the saved volume and device still count.
            if resume.relativePath != nil && config.resumeAtBoot { pendingResume = resume }
        }
        recorder = ResumeRecorder(directory: config.stateDirectory, scheduler: loop) { [unowned self] in
            self.noteBookmark()
            return self.resumeState()
        }
        output.onChange = { [unowned self] change in self.outputChanged(change) }
        engine.setVolume(volume)
        if let seconds = restoredSleepSeconds, seconds > 0 { setSleepTimer(seconds: seconds) }
    }

    // MARK: - derived state

    public var queue: [Track] { playQueue.tracks }
    public var queueIndex: Int { playQueue.index }
    public var queueCollection: Collection? { playQueue.collection }
    public var repeatQueue: Bool { playQueue.repeats }
    public var currentTrack: Track? { playQueue.current }

    /// Output devices the menu offers, the configured one first.
    public var outputDevices: [String] { output.devices }
    /// The device in use.
    public var outputDevice: String { output.inUse }
    /// The device chosen (by the config or in the menu), the one to go back to after a fallback.
    public var preferredDevice: String { output.chosen }
    public var fallbackDelayMilliseconds: Int {
        get { output.fallbackDelayMilliseconds }
        set { output.fallbackDelayMilliseconds = newValue }
    }
    public var returnProbeMilliseconds: Int {
        get { output.returnProbeMilliseconds }
        set { output.returnProbeMilliseconds = newValue }
    }

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

    // MARK: - actions

    /// Applies one action. The effect depends on the mode; volume works everywhere.
    ///
    /// In every mode: volume up/down change the volume; shutdown asks the appliance to shut down;
    /// while a transient message (e.g. "USB stick removed") shows, any other action only dismisses
    /// it. With nothing queued the now-playing screen shows the browse list, and the actions act
    /// as in browse mode. The per-mode tables are in Player+Navigation.swift.
    public func handle(_ event: ActionEvent) {
        guard !shuttingDown else { return }
        rearmIdleTimer()
        restartIdlePowerOff()
        if inputCancelsSleepFade() { return }
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
        case .shuffle:
            cycleShuffle()
            refreshScreen()
            return
        case .sleep:
            cycleSleepTimer()
            refreshScreen()
            return
        default: break
        }
        if answerCardPrompt(event.action) {
            refreshScreen()
            return
        }
        if transient != nil {
            // Any other press dismisses a transient message first and does nothing else.
            clearTransient()
            refreshScreen()
            return
        }
        if mode == .nowPlaying && queue.isEmpty && provisional == nil && !collections.isEmpty {
            // The screen shows the browse list (see PlayerView): act on it.
            mode = .browse
        }
        switch mode {
        case .nowPlaying: handleNowPlaying(event.action, steps: steps)
        case .browse: handleBrowse(event.action, steps: steps)
        case .help(let page): handleHelp(event.action, page: page)
        case .menu(let selected): handleMenu(event.action, selected: selected)
        case .cards(let selected): handleCards(event.action, selected: selected)
        case .setupCheck(let selected): handleSetupCheck(event.action, selected: selected)
        }
        refreshScreen()
    }

    /// Play-pause, play, pause and stop: the same in every mode.
    func transport(_ action: Action) {
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

    // MARK: - playback

    /// Starts playing: the current queue from its position, or the selected collection.
    func play() {
        if queue.isEmpty && provisional == nil {
            playSelection()
            return
        }
        engine.play()
        status = .playing
        recorder.startPeriodic()
        recorder.saveSoon()
    }

    func pause() {
        engine.pause()
        status = .paused
        recorder.stopPeriodic()
        recorder.saveNow()
    }

    /// Continues after a pause. The engine may be positioned rather than paused (a restored
    /// position, a track chosen while paused): `play` covers both.
    func resume() {
        engine.play()
        status = .playing
        recorder.startPeriodic()
        recorder.saveNow()
    }

    /// Stops and rewinds to the start of the current track.
    func stop() {
        guard !queue.isEmpty || provisional != nil else { return }
        engine.stop()
        status = .stopped
        positionFrames = 0
        recorder.stopPeriodic()
        recorder.saveNow()
    }

    /// Next and previous of the buttons (`PlayQueue`'s rules). The end of the queue stops at its
    /// first track. The play state (playing, paused, stopped) is kept.
    func skip(forward: Bool) {
        guard !queue.isEmpty else { return }
        if engineQueueIsProvisional {
            startQueue(at: queueIndex, frame: livePositionFrames, status: status)
        }
        let step = forward ? playQueue.afterCurrent : playQueue.beforeCurrent(playedSeconds: positionSeconds)
        switch step {
        case .entry(let index) where single != .off || consume:
            // The engine holds the current entry alone (single), or the current entry leaves the
            // queue (consume, as MPD's `next` does).
            var next = index
            if consume && forward { next = consumeEntry(queueIndex, before: index) }
            startQueue(at: next, frame: 0, status: status)
        case .entry(let index):
            if forward { engine.next() } else { engine.previous() }
            moveQueueIndex(to: index)
        case .wrapped:
            playQueue.wrap(after: queueIndex)
            startQueue(at: playQueue.firstInOrder, frame: 0, status: status)
        case .end:
            finishQueue()
            return
        case .restart:
            engine.seek(toFrame: 0)
            positionFrames = 0
        }
        recorder.saveSoon()
    }

    /// Plays on after entry `entry` ended (the engine finished its queue, or the restored track
    /// ended): the next entry, the first with repeat on, else the end.
    func advance(after entry: Int) {
        if single != .off && repeatQueue {
            startQueue(at: entry, frame: 0, status: .playing)
            return
        }
        switch playQueue.step(after: entry) {
        case .entry(let index):
            let next = consume ? consumeEntry(entry, before: index) : index
            if single != .off {
                // MPD's border pause: at the start of the next entry.
                if single == .oneshot { single = .off }
                startQueue(at: next, frame: 0, status: .paused)
            } else {
                startQueue(at: next, frame: 0, status: .playing)
            }
        case .wrapped:
            playQueue.wrap(after: entry)
            let first = consume ? consumeEntry(entry, before: playQueue.firstInOrder) : playQueue.firstInOrder
            if queue.isEmpty {
                // Consume and repeat on a queue of one: the entry left, nothing is there to repeat.
                dropProvisional()
                recorder.saveNow()
                return
            }
            startQueue(at: first, frame: 0, status: .playing)
        case .end, .restart:
            if consume {
                _ = consumeEntry(entry, before: entry)
                if queue.isEmpty {
                    dropProvisional()  // the engine stopped on an empty queue, as remoteClear does
                    recorder.saveNow()
                    return
                }
            }
            finishQueue()
        }
    }

    /// Consume: removes entry `entry` (played) from the queue; returns the index `keep` has after
    /// the removal.
    func consumeEntry(_ entry: Int, before keep: Int) -> Int {
        playQueue.remove(entry: entry)
        return keep > entry ? keep - 1 : keep
    }

    /// The engine's queue for playing from entry `index`, and where in it `index` is: the whole
    /// queue in play order, or in single mode the entry alone.
    private func engineQueue(at index: Int) -> (requests: [TrackRequest], start: Int) {
        if single != .off { return ([playQueue.request(index)], 0) }
        return (playQueue.requests, playQueue.orderPosition(of: index))
    }

    /// Shows track `index` at its start at once; while playing, `trackStarted` confirms it.
    private func moveQueueIndex(to index: Int) {
        playQueue.index = index
        positionFrames = 0
        sampleRate = currentTrack?.sampleRate ?? sampleRate
        provideArtworkForCurrentTrack()
    }

    /// The end of the queue (played out, or next on the last track without repeat): stopped,
    /// positioned at the start of the first track, so play starts the collection again.
    func finishQueue() {
        noteBookmark(finished: true)
        status = .stopped
        engineQueueIsProvisional = false
        recorder.stopPeriodic()
        if !queue.isEmpty {
            let (requests, start) = engineQueue(at: playQueue.firstInOrder)
            engine.setQueue(requests, startAt: start, startFrame: 0)
            moveQueueIndex(to: playQueue.firstInOrder)
        }
        recorder.saveNow()
    }

    /// Moves the volume by `delta` within the configured limits (`VolumeLimits`).
    func changeVolume(by delta: Int) {
        let new = volumeLimits.clamp(volume + delta)
        volumeOverlay = new
        if new != volume {
            volume = new
            engine.setVolume(volume)
            recorder.saveSoon()
        }
        refreshScreen()
    }

    /// Makes `device` the chosen output (in the menu, or by a remote client). `chooser` completes
    /// the log line ("in the menu").
    func chooseOutput(_ device: String, by chooser: String) {
        output.choose(device, by: chooser)
        statusLine = nil
        recorder.saveSoon()
    }

    /// Appends to the queue the engine is playing without disturbing it (no restart of the current
    /// track, no gap). False when the engine holds a provisional queue: the caller replaces it.
    func appendToEngineQueue(_ tracks: [Track]) -> Bool {
        guard !engineQueueIsProvisional, provisional == nil else { return false }
        pendingResume = nil
        let first = queue.count
        playQueue.append(tracks)
        // The new entries are the last of the play order (a shuffle plays them after the rest);
        // in single mode the engine holds the current entry alone.
        if single == .off { engine.append(playQueue.order.suffix(queue.count - first).map(playQueue.request)) }
        recorder.saveSoon()
        refreshScreen()
        return true
    }

    /// Hands the queue to the engine, positioned at `index`/`frame`, and plays (`.playing`) or
    /// holds there (`.paused`, `.stopped`).
    func startQueue(at index: Int, frame: Int64, status newStatus: PlaybackStatus) {
        playQueue.renewIDs()
        engineQueueIsProvisional = false
        provisional = nil
        let (requests, start) = engineQueue(at: index)
        engine.setQueue(requests, startAt: start, startFrame: frame)
        startedByPlayer = playQueue.engineID(ofEntry: index)
        playQueue.index = index
        positionFrames = frame
        sampleRate = queue[index].sampleRate
        provideArtworkForCurrentTrack()
        status = newStatus
        if newStatus == .playing {
            engine.play()
            recorder.startPeriodic()
        } else {
            recorder.stopPeriodic()
        }
        recorder.saveSoon()
    }

    // MARK: - engine events

    public func handle(_ event: AudioEvent) {
        switch event {
        case .trackStarted(let id, let format, _):
            if id == Self.provisionalID, queue.isEmpty, provisional != nil {
                sampleRate = format.sampleRate
                let now = engine.playbackPosition
                positionFrames = now.trackID == id ? max(0, now.frames) : positionFrames
                Log.debug(
                    "track started: \(provisional?.relativePath ?? "?") (restored) at frame \(positionFrames) of \(format.sampleRate) Hz; monotonic \(Syscalls.monotonicNanoseconds()) ns"
                )
                break
            }
            guard var index = playQueue.entry(ofEngineID: id) else { return }
            if consume && id != startedByPlayer && index != queueIndex {
                // The queue played past the previous entry (a track border): it leaves, as in MPD.
                index = consumeEntry(queueIndex, before: index)
            }
            startedByPlayer = nil
            playQueue.index = index
            sampleRate = format.sampleRate
            // A track may start mid-way (a restored position, a seek): the engine knows where.
            let now = engine.playbackPosition
            positionFrames = now.trackID == id ? max(0, now.frames) : 0
            let track = queue[index]
            Log.debug(
                "track started: \(track.relativePath) (\(index + 1)/\(queue.count)) at frame \(positionFrames) of \(format.sampleRate) Hz; monotonic \(Syscalls.monotonicNanoseconds()) ns"
            )
            provideArtworkForCurrentTrack()
            recorder.saveSoon()
        case .position(let id, let frames, let rate):
            if id == Self.provisionalID, queue.isEmpty, provisional != nil {
                positionFrames = frames
                sampleRate = rate
                break
            }
            guard let index = playQueue.entry(ofEngineID: id) else { return }
            // Consume: a new entry becomes current at its `trackStarted`, which removes the last one.
            if consume && index != queueIndex { return }
            playQueue.index = index
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
            } else {
                // The engine played its whole queue (in single mode: the current entry alone).
                advance(after: single != .off ? queueIndex : playQueue.lastInOrder)
            }
        case .error(_, let path, let message):
            let name = path.split(separator: "/").last.map(String.init) ?? path
            Log.warning("cannot play \(path): \(message)")
            showTransient(MessageState(title: "Cannot play \(name)", detail: message, kind: .error), seconds: 4)
        case .deviceLost, .deviceBack:
            // The supervisor decides (fallback, return) and tells `outputChanged`.
            output.handle(event)
            return
        case .formatChanged(_, let deviceFormat):
            Log.info("output format: \(deviceFormat)")
            return
        }
        refreshScreen()
    }

    /// What the output supervisor reports, on the status line of the now-playing screen.
    private func outputChanged(_ change: OutputChange) {
        switch change {
        case .lost:
            statusLine = "Audio device unplugged"
        case .fellBack(let device, _):
            statusLine = "Output: \(device)"
        case .back:
            statusLine = outputDevice == preferredDevice ? nil : "Output: \(outputDevice)"
        case .returned:
            statusLine = nil
        }
        refreshScreen()
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
        state.shuffle = playQueue.shuffle == .off ? nil : playQueue.shuffle.rawValue
        state.sleepRemainingSeconds = sleepRemainingSeconds
        return state
    }

    /// The position of the current track now: the engine's counter while it plays the track (the
    /// last position event may be 250 ms old), else the last known one.
    var livePositionFrames: Int64 {
        let current: UInt64? =
            queue.isEmpty ? (provisional != nil ? Self.provisionalID : nil) : playQueue.engineID(ofEntry: queueIndex)
        // One read: the frames belong to the track it names (a gapless change cannot mix them).
        let now = engine.playbackPosition
        guard status == .playing, let current, now.trackID == current else { return positionFrames }
        return max(0, now.frames)
    }

    public func saveNow() { recorder.saveNow() }

    // MARK: - screen

    func rearmIdleTimer() {
        if let timer = idleTimer { scheduler.cancel(timer) }
        idleTimer = scheduler.schedule(afterMilliseconds: browseTimeoutMilliseconds) { [weak self] in
            guard let self, self.mode != .nowPlaying, !self.queue.isEmpty else { return }
            self.mode = .nowPlaying
            self.refreshScreen()
        }
    }

    func showTransient(_ message: MessageState, seconds: Int) {
        clearTransient()
        let timer = scheduler.schedule(afterMilliseconds: seconds * 1000) { [weak self] in
            self?.transient = nil
            self?.refreshScreen()
        }
        transient = (message, timer)
    }

    private func clearTransient() {
        if let t = transient { scheduler.cancel(t.timer) }
        transient = nil
    }

    /// Help pages: the controls of the board and what they do.
    public var helpEntries: [HelpEntry] = []

    /// Pages the help screen needs on this screen (1 without a screen).
    var helpPageCount: Int { screen?.helpPageCount(entries: helpEntries.count) ?? 1 }

    /// The player as the screen sees it.
    var view: PlayerView {
        var view = PlayerView()
        view.shuttingDown = shuttingDown
        view.transient = transient?.message
        view.mode = mode
        view.helpEntries = helpEntries
        view.helpPageCount = helpPageCount
        view.menuEntries = menuEntries
        view.category = category
        view.collections = collections
        view.selectedIndex = selectedIndex
        view.queue = playQueue
        view.restored = provisional
        view.noVolumes = volumesPresent.isEmpty
        view.trackCount = catalog?.trackCount ?? 0
        if view.trackCount == 0, let catalog { view.leftOut = PlayerView.LeftOut(catalog.problems) }
        view.scanningFound = scanning.isEmpty ? nil : scanning.values.reduce(0, +)
        view.status = status
        view.positionSeconds = positionSeconds
        view.volumeOverlay = volumeOverlay
        view.volumeRange = volumeLimits.range
        view.cardEntries = cardEntries
        view.sleepCountdown = sleepCountdown
        view.statusLine = setupCheck.powerWarning ?? statusLine
        view.setupEntries = setupCheckEntries
        return view
    }

    /// What the screen should show now.
    public func screenState() -> ScreenState { view.screen }

    func nowPlayingState() -> NowPlayingState { view.nowPlaying }

    func statusText() -> String { view.statusText }

    public func refreshScreen() {
        let state = screenState()
        // The overlay belongs to the now-playing screen; elsewhere it is dropped, so that it does not
        // pop up later when that screen returns.
        if case .nowPlaying = state {} else { volumeOverlay = nil }
        followIdlePowerOff()
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

    // MARK: - artwork

    func provideArtworkForCurrentTrack() {
        guard let track = currentTrack, let catalog, let screen else { return }
        screen.provideArtwork(key: PlayerView.artworkKey(for: track), loadArtwork: { catalog.artwork(for: track) })
    }

    /// Category, selection and catalog of the browse list whose thumbnails were last requested.
    private var browseArtworkSignature = ""

    func provideArtworkForBrowse() {
        guard let catalog, let screen else { return }
        let list = collections
        guard !list.isEmpty else { return }
        // The selected collection and its neighbours (the visible part of the list).
        let low = max(0, selectedIndex - 3)
        let high = min(list.count - 1, selectedIndex + 3)
        for collection in list[low...high] {
            let track = collection.representative
            screen.provideArtwork(
                key: PlayerView.artworkKey(for: collection), loadArtwork: { catalog.artwork(for: track) })
        }
    }

    // MARK: - shutdown

    func requestShutdown() {
        guard let handler = onShutdownRequest else { return }
        shuttingDown = true
        engine.stop()
        status = .stopped
        recorder.saveNow()
        refreshScreen()
        handler()
    }

    /// Stops everything for process exit: state saved, audio stopped, screen cleared.
    public func shutdown() {
        recorder.stopPeriodic()
        recorder.saveNow()
        engine.shutdown()
    }
}
