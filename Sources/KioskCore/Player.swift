// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskConfig
import KioskLibrary
import KioskModel
import KioskSystem

/// The appliance's state machine: what plays, what the screen shows, what each button does.
///
/// Driven by four kinds of events: `ActionEvent`s from the inputs (Player+Navigation.swift has the
/// per-mode tables), `CardEvent`s (Player+Cards.swift), `AudioEvent`s from the engine and
/// `LibraryEvent`s from the library (Player+Library.swift). It keeps parts, each a type with its own
/// state and transitions: the `PlayQueue` (order, and every rule of what plays next), the
/// `Transport` (status and position), the `VolumeControl`, the `RestoreSession` (the saved queue
/// coming back after a restart, Player+Restore.swift), the `Navigation` (mode, category,
/// selection), the `Overlays` (messages, volume overlay, status line), the `PlayerTimers` (browse
/// timeout, idle power-off, sleep), the `CardSession`, the `CollectionMemory` (audiobooks,
/// bookmarks) and the `LibraryShelf`; and the services it drives: the engine (any
/// `PlaybackEngine`), the `OutputSupervisor` (device fallback), the `ResumeRecorder` (what is
/// saved, when), the screen (`PlayerView` says what it shows). Buttons and remote clients (MPD,
/// Player+Remote.swift) go through the same operations; where MPD's meaning differs, the rule
/// takes it as an origin (`PlayQueue.Origin`).
///
/// Thread: the loop thread (the scheduler's) only.
public final class Player {
    /// Previous restarts the current track when more than this many seconds have played.
    public static let restartThresholdSeconds = PlayQueue.restartThresholdSeconds
    /// Volume change per step.
    public static let volumeStep = 5
    /// Inactivity after which browse/help/menu return to now playing (when something is queued).
    public static let defaultBrowseTimeoutMilliseconds = PlayerTimers.defaultBrowseTimeoutMilliseconds
    /// Period of resume-state saves while playing, in milliseconds.
    public static let defaultSaveIntervalMilliseconds = ResumeRecorder.defaultIntervalMilliseconds

    let scheduler: any Scheduler
    let engine: any PlaybackEngine
    let screen: (any ScreenOutput)?
    let config: Config
    let output: OutputSupervisor
    var recorder: ResumeRecorder!

    /// The queue: tracks, current entry, repeat, single, consume, shuffle, engine ids.
    public internal(set) var playQueue: PlayQueue
    var transport = Transport()
    var volumeControl: VolumeControl
    var restore = RestoreSession.none
    var navigation = Navigation()
    var shelf = LibraryShelf()
    let overlays: Overlays
    let timers: PlayerTimers
    var cardSession: CardSession
    let memory: CollectionMemory
    var shuttingDown = false
    /// The button lock (`Player+Lock.swift`): inputs but the lock itself are ignored; kept over a
    /// restart.
    public internal(set) var locked: Bool
    /// How the box is told to unlock ("Hold down+select 3 s"), shown with "Locked"; nil: not said.
    public var lockGesture: String?
    var seekHold: SeekHold
    /// Exhibit mode's state (`Player+Exhibit.swift`); nil: a music player.
    let exhibit: ExhibitSession?
    /// Where exhibit mode's heartbeat goes (`onExhibitStatus`).
    var exhibitStatusSink: ((String) -> Void)?
    /// Runs the staff stick's play-count export (`StaffExport.run`) off the loop thread and hands
    /// its outcome to `playCountsExported` on the loop; nil: the export runs in place (tests).
    public var stickExporter: ((_ mountPoint: String, _ csv: [UInt8]) -> Void)?
    /// Called at exhibit mode's daily restart time (`exhibit.restartAt`): the appliance exits
    /// cleanly and systemd starts it again.
    public var onDailyRestart: (() -> Void)?

    /// Called with a one-line status for systemd (`STATUS=`) whenever it changes.
    public var onStatus: ((String) -> Void)?
    /// Called when the user asks for a shutdown (chord); the appliance decides what it means.
    public var onShutdownRequest: (() -> Void)?
    /// Called after anything that may have changed the state (each screen refresh), so remote
    /// clients (the MPD server) can see what changed.
    public var onChange: (() -> Void)?
    /// Called with the status light's state when it changes (Player+StatusLight.swift).
    public var onLightState: ((LightState) -> Void)?
    /// The state last sent to `onLightState`.
    var lightState: LightState?
    /// The supply's under-voltage alarm is raised (`powerChanged`).
    var isLowPower = false
    /// Called with the words to speak when the screen shows a message (and, in `names` mode, when a
    /// browse move selects a collection); `speechMode` says which (`off` by default).
    public var onSpeak: ((String) -> Void)?
    public var speechMode: SpeechConfig.Mode {
        get { announcer.mode }
        set { announcer.mode = newValue }
    }
    var announcer = SpeechAnnouncer()

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
        memory = CollectionMemory(config: config)
        locked = resume?.locked ?? false
        seekHold = SeekHold(settings: config.inputs.seek)
        cardSession = CardSession(directory: config.stateDirectory)
        overlays = Overlays(scheduler: loop)
        timers = PlayerTimers(scheduler: loop, config: config)
        output = OutputSupervisor(
            engine: engine, scheduler: loop, devices: outputDevices, chosen: resume?.outputDevice, opens: deviceOpens)
        exhibit = config.exhibit.map {
            ExhibitSession(config: $0, stateDirectory: config.stateDirectory, startedAt: loop.nowNanoseconds)
        }
        if let staff = config.exhibit?.volume {
            // The staff's range and default; a visitor's change does not outlive the visit or a restart.
            volumeControl = VolumeControl(configured: VolumeLimits(staff.min...staff.max), level: staff.initial)
        } else {
            volumeControl = VolumeControl(
                configured: config.volumeLimits, level: config.volumeAtBoot ?? resume?.volumePercent ?? config.volume)
        }
        playQueue = PlayQueue(repeats: config.repeatQueue)
        playQueue.replayGain = config.replayGain
        playQueue.setShuffle(resume?.shuffle.flatMap(PlayQueue.Shuffle.init(rawValue:)) ?? config.shuffle)
        if let resume {
            playQueue.continueIdentity(version: resume.queueVersion ?? 0, nextSongID: resume.nextSongID ?? 0)
            navigation.category = KioskLibrary.Category(rawValue: resume.category) ?? .album
            // resumeAtBoot false: the box starts stopped; the saved volume and device still count.
            // An exhibit starts on its attract loop, not on what played before.
            if resume.relativePath != nil && config.resumeAtBoot && config.exhibit == nil { restore = .waiting(resume) }
        }
        recorder = ResumeRecorder(
            directory: config.stateDirectory, scheduler: loop,
            snapshot: { [unowned self] in
                self.noteBookmark()
                return self.resumeState()
            }, queue: { [unowned self] in self.queue })
        output.onChange = { [unowned self] change in self.outputChanged(change) }
        overlays.onExpired = { [unowned self] in self.refreshScreen() }
        timers.events = timerEvents()
        memory.alwaysKept = { [unowned self] in self.cards.isContinued($0.category, key: $0.key) }
        memory.writeFile = { [writer = recorder.writer] in writer.submitFile($0, text: $1) }
        engine.setVolume(volume)
        if let seconds = resume?.sleepRemainingSeconds, seconds > 0 { setSleepTimer(seconds: seconds) }
    }

    // MARK: - state, as the screen and remote clients read it

    public var catalog: Catalog? { shelf.catalog }
    public var status: PlaybackStatus { transport.status }
    public var mode: PlayerMode { navigation.mode }
    public var category: KioskLibrary.Category { navigation.category }
    public var volume: Int { volumeControl.level }
    /// Frames of the current track played so far, and its rate.
    public var positionFrames: Int64 { transport.positionFrames }
    public var sampleRate: Int { transport.sampleRate }
    public var positionSeconds: Double { transport.positionSeconds }
    /// How many jumps within a track (seeks, restarts) the player has made since it started.
    public var positionJumps: UInt64 { transport.jumps }
    public var single: SingleMode { playQueue.single }
    public var consume: Bool { playQueue.consume }
    public var queue: [Track] { playQueue.tracks }
    public var queueIndex: Int { playQueue.index }
    public var queueCollection: Collection? { playQueue.collection }
    public var repeatQueue: Bool { playQueue.repeats }
    public var currentTrack: Track? { playQueue.current }
    /// MPD's current song: the current entry once it played or was chosen, nil before.
    public var mpdCurrentPosition: Int? { playQueue.hasChosenCurrent && !queue.isEmpty ? queueIndex : nil }
    /// The card links (`cards.json`).
    public var cards: CardStore { cardSession.store }
    /// How the box is told to link a new card ("hold Select").
    public var linkGesture: String {
        get { cardSession.linkGesture }
        set { cardSession.linkGesture = newValue }
    }
    /// How the box is told to change a new card's mode while linking ("press Select"): `select`.
    public var cardModeGesture: String {
        get { cardSession.modeGesture }
        set { cardSession.modeGesture = newValue }
    }
    /// Help pages: the controls of the board and what they do.
    public var helpEntries: [HelpEntry] {
        get { navigation.helpEntries }
        set { navigation.helpEntries = newValue }
    }
    /// Inactivity after which browse, help and menu go back to now playing (tests shorten it).
    public var browseTimeoutMilliseconds: Int {
        get { timers.browseTimeoutMilliseconds }
        set { timers.browseTimeoutMilliseconds = newValue }
    }
    /// Period of resume-state saves while playing (tests shorten it).
    public var saveIntervalMilliseconds: Int {
        get { recorder.intervalMilliseconds }
        set { recorder.intervalMilliseconds = newValue }
    }

    /// The browse list of the current category, and the selection in it.
    var collections: [Collection] { navigation.collections(catalog) }
    public var selectedIndex: Int { navigation.selectedIndex(count: collections.count) }
    /// The volumes reachable now: the config's, lowered by a card's limit.
    var volumeLimits: VolumeLimits { volumeControl.limits }
    /// Nothing is queued and no restored track plays.
    var isIdle: Bool { queue.isEmpty && restore.playingAloneState == nil }

    // MARK: - moving through the queue

    /// Next and previous of the buttons (`PlayQueue`'s rules); the play state is kept.
    func skip(forward: Bool) {
        guard !queue.isEmpty else { return }
        if restore.engineHoldsRestoredTrackOnly {
            startQueue(at: queueIndex, frame: livePositionFrames, status: status)
        }
        moveOn(forward ? .next : .previous(playedSeconds: positionSeconds))
    }

    /// Moves the queue on from entry `entry` (the current one unless given) as `PlayQueue` decides
    /// for `origin`, and applies what it says.
    func moveOn(_ origin: PlayQueue.Origin, after entry: Int? = nil) {
        let (transition, _) = playQueue.step(after: entry ?? queueIndex, origin: origin)
        switch transition {
        case .gapless(let index):
            if case .previous = origin { engine.previous() } else { engine.next() }
            moveQueueIndex(to: index)
        case .start(let index, let state):
            let next: PlaybackStatus =
                switch state {
                case .kept: status
                case .playing: .playing
                case .paused: .paused
                }
            startQueue(at: index, frame: 0, status: next)
        case .restart:
            engine.seek(toFrame: 0)
            transport.positionFrames = 0
            transport.jumps &+= 1
        case .end:
            finishQueue()
            return
        case .empty:
            // Consume took the last entry: the engine stops on an empty queue.
            clearQueue()
            return
        }
        recorder.saveSoon()
    }

    /// Shows track `index` at its start at once; while playing, `trackStarted` confirms it.
    private func moveQueueIndex(to index: Int) {
        playQueue.index = index
        transport.rewind(sampleRate: currentTrack?.sampleRate ?? 0)
        provideArtworkForCurrentTrack()
    }

    /// The end of the queue (played out, or next on the last track without repeat): stopped,
    /// positioned at the start of the first track, so play starts the collection again.
    func finishQueue() {
        noteBookmark(finished: true)
        if restore == .adopted { restore = .none }
        setStatus(.stopped)
        if !queue.isEmpty {
            let (requests, start) = playQueue.engineQueue(at: playQueue.firstInOrder)
            engine.setQueue(requests, startAt: start, startFrame: 0)
            moveQueueIndex(to: playQueue.firstInOrder)
        }
        recorder.saveNow()
    }

    /// Hands the queue to the engine, positioned at `index`/`frame`, and plays (`.playing`) or
    /// holds there (`.paused`, `.stopped`).
    func startQueue(at index: Int, frame: Int64, status newStatus: PlaybackStatus) {
        if restore.engineHoldsRestoredTrackOnly { restore = .none }
        let (requests, start) = playQueue.handOver(at: index)
        engine.setQueue(requests, startAt: start, startFrame: frame)
        // The engine starts a ranged entry at its range's start at the earliest.
        transport.positionFrames = max(frame, playQueue.firstFrame(ofEntry: index))
        transport.sampleRate = queue[index].sampleRate
        provideArtworkForCurrentTrack()
        setStatus(newStatus)
        recorder.saveSoon()
    }

    /// Stops the engine on an empty queue (a restored track that cannot go on, a cleared queue).
    func silenceEngine() {
        engine.setQueue([], startAt: 0, startFrame: 0)
        setStatus(.stopped)
        transport.positionFrames = 0
    }

    /// Appends to the queue the engine is playing without disturbing it (no restart of the current
    /// track, no gap). False when the engine holds a restored track alone: the caller replaces it.
    func appendToEngineQueue(_ tracks: [Track]) -> Bool {
        guard !restore.engineHoldsRestoredTrackOnly else { return false }
        restore = .none
        let more = playQueue.appendHandingOver(tracks)
        if !more.isEmpty { engine.append(more) }
        recorder.saveSoon()
        refreshScreen()
        return true
    }

    /// Moves the volume by `delta` within the limits (`VolumeControl`).
    func changeVolume(by delta: Int) {
        let new = volumeLimits.clamp(volume + delta)
        // The screen shows the level standing at its top; a box without one says so.
        if delta > 0, new == volume, announcer.mode != .off { onSpeak?(SpokenForm.volumeLimitReached) }
        overlays.showVolume(new)
        if new != volume {
            volumeControl.level = new
            engine.setVolume(new)
            recorder.saveSoon()
        }
        refreshScreen()
    }

    /// A card's volume limit (nil: none); a volume above it comes down to it.
    func setVolumeCeiling(_ percent: Int?) {
        volumeControl.cardCeiling = percent
        if volume > volumeLimits.range.upperBound { changeVolume(by: volumeLimits.range.upperBound - volume) }
    }

    /// Records where the queue's collection is (`CollectionMemory`), unless the engine still holds
    /// a restored track alone (its queue is not settled).
    func noteBookmark(finished: Bool = false, leaving: Bool = false) {
        guard !restore.engineHoldsRestoredTrackOnly, !queue.isEmpty else { return }
        memory.note(
            playQueue, frames: livePositionFrames, sampleRate: sampleRate, playing: status == .playing,
            finished: finished, leaving: leaving)
    }

    // MARK: - resume state

    public func resumeState() -> ResumeState {
        ResumeState(
            queue: playQueue, transport: transport, livePositionFrames: livePositionFrames, restore: restore,
            category: category, volume: volume, outputDevice: outputDevice,
            sleepRemainingSeconds: timers.sleepRemainingSeconds, locked: locked)
    }

    /// The position of the current track now: the engine's counter while it plays the track (the
    /// last position event may be 250 ms old), else the last known one.
    var livePositionFrames: Int64 {
        let current: UInt64? =
            queue.isEmpty
            ? (restore.playingAloneState != nil ? RestoreSession.provisionalID : nil)
            : playQueue.engineID(ofEntry: queueIndex)
        // One read: the frames belong to the track it names (a gapless change cannot mix them).
        let now = engine.playbackPosition
        guard status == .playing, let current, now.trackID == current else { return positionFrames }
        return max(0, now.frames)
    }

    public func saveNow() { recorder.saveNow() }

    /// Waits until every save handed to the writer is on the device (tests that read the state
    /// files; the shutdown does it itself).
    public func flushSaves() { recorder.flush() }

    // MARK: - screen

    /// Pages the help screen needs on this screen (1 without a screen).
    var helpPageCount: Int { screen?.helpPageCount(entries: helpEntries.count) ?? 1 }

    /// The player as the screen sees it.
    var view: PlayerView {
        var view = PlayerView(
            navigation: navigation, shelf: shelf, queue: playQueue, transport: transport,
            restore: restore, overlays: overlays, volumeRange: volumeLimits.range, shuttingDown: shuttingDown,
            helpPageCount: helpPageCount, menuEntries: menuEntries, cardEntries: cardEntries,
            sleepCountdown: timers.sleepCountdown, locked: locked)
        view.exhibit = exhibitView
        return view
    }

    /// What the screen should show now.
    public func screenState() -> ScreenState { view.screen }

    /// The one-line status (systemd's `STATUS=`).
    public func statusText() -> String { view.statusText }

    /// Draws the screen from one view of the player and tells systemd and remote clients.
    public func refreshScreen() {
        scheduler.assertInLoop()
        let view = self.view
        let state = view.screen
        switch state {
        case .nowPlaying, .exhibit: break
        case .browse, .help, .message, .off: overlays.dropVolume()
        }
        timers.followIdlePowerOff(playing: status == .playing || shuttingDown)
        // A browse list can appear without a move (nothing queued at start, a new catalog): its
        // visible entries need their thumbnails then too.
        if case .browse(let list) = state, list.items.contains(where: { $0.artworkKey != nil }), let catalog,
            navigation.browseArtworkDue(
                "\(view.category.rawValue)#\(view.selectedIndex)#\(ObjectIdentifier(catalog).hashValue)")
        {
            provideArtworkForBrowse()
        }
        screen?.show(state)
        noteLightState(view, screen: state)
        if isExhibit { sendExhibitStatus(always: false) }
        if let words = announcer.follow(state) { onSpeak?(words) }
        onStatus?(view.statusText)
        onChange?()
    }

    func provideArtworkForCurrentTrack() {
        guard let track = currentTrack, let catalog, let screen else { return }
        screen.provideArtwork(key: PlayerView.artworkKey(for: track), loadArtwork: { catalog.artwork(for: track) })
    }

    /// The selected collection of the browse list and its neighbours (the visible part of it).
    func provideArtworkForBrowse() {
        guard let catalog, let screen else { return }
        let list = collections
        guard !list.isEmpty else { return }
        for collection in list[max(0, selectedIndex - 3)...min(list.count - 1, selectedIndex + 3)] {
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
        setStatus(.stopped)
        recorder.saveNow(flushingQueue: true)
        refreshScreen()
        handler()
    }

    /// Stops everything for process exit: state saved, audio stopped, screen cleared.
    public func shutdown() {
        scheduler.assertInLoop()
        recorder.stopPeriodic()
        // The bookmark to the second (a playing one is otherwise written every 30 s only).
        noteBookmark(leaving: true)
        recorder.saveNow(flushingQueue: true)
        // The last state on the device before the process may end (the writer's thread is joined).
        recorder.stop()
        engine.shutdown()
    }
}
