// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel
import KioskSystem

/// The appliance's state machine: what plays, what the screen shows, what each button does.
///
/// Driven by four kinds of events: `ActionEvent`s from the inputs (`Navigation` has the per-mode
/// tables), `CardEvent`s (Player+Cards.swift), `AudioEvent`s from the engine and `LibraryEvent`s
/// from the library (Player+Library.swift). It keeps parts, each a type with its own state and
/// transitions: the `PlayQueue` (order, and every rule of what plays next), the `Transport`
/// (status, position and volume), the `RestoreSession` (the saved queue coming back after a
/// restart), the `Navigation` (mode, category, selection, what each action does on each screen),
/// the `Overlays` (messages, volume overlay, status line), the `PlayerTimers` (browse timeout,
/// idle power-off, sleep, a card taken away) and the `CardSession`, each a value whose `handle`
/// returns `PlayerEffect`s, which `apply(_:)` alone carries out; the `CollectionMemory`
/// (audiobooks, bookmarks) and the `LibraryShelf`; and the services it drives: the engine (any
/// `PlaybackEngine`), the `OutputSupervisor` (device fallback), the `ResumeRecorder` (what is
/// saved, when), the screen (`PlayerView` says what it shows). What it tells the appliance goes
/// to its listeners as typed `PlayerChange`s (`listen(to:_:)`). Buttons and remote clients (MPD,
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

    // The stored state: twelve parts and services, each owning its own state.
    let env: PlayerEnvironment
    var recorder: ResumeRecorder!
    /// The queue: tracks, current entry, repeat, single, consume, shuffle, engine ids.
    public internal(set) var playQueue: PlayQueue {
        // No `oldValue`: the queue is changed in place, never copied.
        didSet { outbox.remoteChanges.queueChanged(playQueue) }
    }
    var transport: Transport {
        didSet {
            // Every jump the player made counts, however short (a `seekcur +1`).
            if transport.status != oldValue.status || transport.jumps != oldValue.jumps {
                outbox.remoteChanges.note(.playback)
            }
            if transport.volume.level != oldValue.volume.level { outbox.remoteChanges.note(.volume) }
        }
    }
    var restore = RestoreSession.none
    var navigation = Navigation()
    var overlays = Overlays()
    var timers: PlayerTimers
    var cardSession: CardSession
    /// Exhibit mode's state (`Player+Exhibit.swift`); nil: a music player.
    let exhibit: ExhibitSession?
    var box: BoxState
    var outbox = PlayerOutbox()

    // Short names for the parts of `env`, `box` and `outbox`.
    var scheduler: any Scheduler { env.scheduler }
    var engine: any PlaybackEngine { env.engine }
    var screen: (any ScreenOutput)? { env.screen }
    var config: Config { env.config }
    var output: OutputSupervisor { env.output }
    var memory: CollectionMemory { env.memory }
    var shelf: LibraryShelf {
        get { navigation.shelf }
        set { navigation.shelf = newValue }
    }
    var volumeControl: VolumeControl { transport.volume }
    var shuttingDown: Bool {
        get { box.shuttingDown }
        set { box.shuttingDown = newValue }
    }
    /// The button lock (`Player+Lock.swift`): inputs but the lock itself are ignored; kept over a
    /// restart.
    public internal(set) var locked: Bool {
        get { box.locked }
        set { box.locked = newValue }
    }
    /// How the box is told to unlock ("Hold down+select 3 s"), shown with "Locked"; nil: not said.
    public var lockGesture: String? {
        get { box.lockGesture }
        set { box.lockGesture = newValue }
    }
    var seekHold: SeekHold {
        get { box.seekHold }
        set { box.seekHold = newValue }
    }
    var isLowPower: Bool {
        get { box.isLowPower }
        set { box.isLowPower = newValue }
    }
    var announcer: SpeechAnnouncer {
        get { box.announcer }
        set { box.announcer = newValue }
    }
    var bedtime: BedtimeRules? {
        get { box.bedtime }
        set { box.bedtime = newValue }
    }
    var battery: BatteryGuard? {
        get { box.battery }
        set { box.battery = newValue }
    }
    var bluetooth: BluetoothLink? {
        get { box.bluetooth }
        set { box.bluetooth = newValue }
    }
    var stickOffer: StickOffer {
        get { box.stickOffer }
        set { box.stickOffer = newValue }
    }
    var keptSettings: ImportedSettings? {
        get { box.keptSettings }
        set { box.keptSettings = newValue }
    }
    /// Where the confirmation of an update offer goes (`KIOSK_UPDATE_CONFIRM`, in the player's
    /// runtime directory, which kiosk-update reads); nil: offers cannot be taken.
    public var updateConfirmPath: String? {
        get { box.updateConfirmPath }
        set { box.updateConfirmPath = newValue }
    }
    /// Runs a set's export to a stick (`StickSet.export`) off the loop thread and hands its
    /// outcome to `stickSetExported` on the loop; nil: the export runs in place (tests).
    public var stickSetExporter: ((_ mountPoint: String, _ text: String, _ summary: String) -> Void)? {
        get { box.stickSetExporter }
        set { box.stickSetExporter = newValue }
    }
    /// Looks at a stick that came for the box's set (`StickSet.arrival`) off the loop thread and
    /// hands what it found to `stickSetLooked` on the loop; nil: looked at in place (tests).
    public var stickSetLooker: ((_ mountPoint: String) -> Void)? {
        get { box.stickSetLooker }
        set { box.stickSetLooker = newValue }
    }
    var lightState: LightState? {
        get { outbox.lightState }
        set { outbox.lightState = newValue }
    }
    /// Runs the staff stick's play-count export (`StaffExport.run`) off the loop thread and hands
    /// its outcome to `playCountsExported` on the loop; nil: the export runs in place (tests).
    public var stickExporter: ((_ mountPoint: String, _ csv: [UInt8]) -> Void)? {
        get { exhibit?.stickExporter }
        set { exhibit?.stickExporter = newValue }
    }
    public var speechMode: SpeechConfig.Mode {
        get { announcer.mode }
        set { announcer.mode = newValue }
    }

    /// - Parameters:
    ///   - loop: the timers (the event loop; a virtual clock in tests).
    ///   - outputDevices: the devices the menu offers, the configured one first.
    ///   - deviceOpens: whether a device opens now, for taking the chosen one back after a fallback.
    ///   - wallClock: the time of day for the bedtime rules (tests give their own).
    public init(
        loop: any Scheduler, engine: any PlaybackEngine, screen: (any ScreenOutput)?, config: Config,
        outputDevices: [String], resume: ResumeState?,
        deviceOpens: @escaping (String) -> Bool, wallClock: WallClock = .system
    ) {
        let output = OutputSupervisor(
            engine: engine, scheduler: loop, devices: outputDevices, chosen: resume?.outputDevice, opens: deviceOpens)
        env = PlayerEnvironment(
            scheduler: loop, wallClock: wallClock, engine: engine, screen: screen, config: config, output: output,
            memory: CollectionMemory(config: config))
        box = BoxState(locked: resume?.locked ?? false, seekHold: SeekHold(settings: config.inputs.seek))
        cardSession = CardSession(directory: config.stateDirectory)
        timers = PlayerTimers(config: config)
        exhibit = config.exhibit.map {
            ExhibitSession(config: $0, stateDirectory: config.stateDirectory, startedAt: loop.nowNanoseconds)
        }
        if let staff = config.exhibit?.volume {
            // The staff's range and default; a visitor's change does not outlive the visit or a restart.
            transport = Transport(
                volume: VolumeControl(configured: VolumeLimits(staff.min...staff.max), level: staff.initial))
        } else {
            transport = Transport(
                volume: VolumeControl(
                    configured: config.volumeLimits,
                    level: config.volumeAtBoot ?? resume?.volumePercent ?? config.volume))
        }
        playQueue = PlayQueue(repeats: config.repeatQueue)
        playQueue.replayGain = config.replayGain
        playQueue.setShuffle(resume?.shuffle.flatMap(PlayQueue.Shuffle.init(rawValue:)) ?? config.shuffle)
        if let resume {
            playQueue.continueIdentity(version: resume.queueVersion ?? 0, nextSongID: resume.nextSongID ?? 0)
            navigation.category = KioskModel.Category(rawValue: resume.category) ?? .album
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
        memory.alwaysKept = { [unowned self] in self.cards.isContinued($0.category, key: $0.key) }
        memory.writeFile = { [writer = recorder.writer] in writer.submitFile($0, text: $1) }
        cardSession.store.writer = recorder.writer
        engine.setVolume(volume)
        outbox.remoteChanges.queueChanged(playQueue)
        _ = outbox.remoteChanges.take()
        if let seconds = resume?.sleepRemainingSeconds, seconds > 0 { setSleepTimer(seconds: seconds) }
        startBedtime()
        battery = config.battery.map(BatteryGuard.init(config:))
        bluetooth = config.bluetooth.map(BluetoothLink.init(config:))
    }

    // MARK: - state, as the screen and remote clients read it

    public var catalog: (any CatalogSnapshot)? { shelf.catalog }
    public var status: PlaybackStatus { transport.status }
    public var mode: PlayerMode { navigation.mode }
    public var category: KioskModel.Category { navigation.category }
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
            apply(transport.handle(.seek(toFrame: 0)))
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
        apply(transport.handle(.rewound(sampleRate: currentTrack?.sampleRate ?? 0)))
        provideArtworkForCurrentTrack()
    }

    /// The end of the queue (played out, or next on the last track without repeat): stopped,
    /// positioned at the start of the first track, so play starts the collection again.
    func finishQueue() {
        noteBookmark(finished: true)
        apply(restore.handle(.queueFinished))
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
    func startQueue(at index: Int, frame: Int64, status wanted: PlaybackStatus) {
        if restore.engineHoldsRestoredTrackOnly { apply(restore.handle(.takenOver)) }
        // Refused by the bedtime rules, the queue is there to see but does not play.
        let newStatus = wanted == .playing && !bedtimeAdmits(queue[index].relativePath) ? .stopped : wanted
        let (requests, start) = playQueue.handOver(at: index)
        engine.setQueue(requests, startAt: start, startFrame: frame)
        // The engine starts a ranged entry at its range's start at the earliest.
        apply(
            transport.handle(
                .located(frames: max(frame, playQueue.firstFrame(ofEntry: index)), sampleRate: queue[index].sampleRate))
        )
        provideArtworkForCurrentTrack()
        setStatus(newStatus)
        recorder.saveSoon()
    }

    /// Appends to the queue the engine is playing without disturbing it (no restart of the current
    /// track, no gap). False when the engine holds a restored track alone: the caller replaces it.
    func appendToEngineQueue(_ tracks: [Track]) -> Bool {
        guard !restore.engineHoldsRestoredTrackOnly else { return false }
        apply(restore.handle(.takenOver))
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
        if delta > 0, new == volume, announcer.mode != .off { send(.speak(SpokenForm.volumeLimitReached)) }
        apply(overlays.handle(.volume(new)))
        apply(transport.handle(.volume(new, saved: true)))
        refreshScreen()
    }

    /// A card's volume limit (nil: none); a volume above it comes down to it.
    func setVolumeCeiling(_ percent: Int?) {
        apply(transport.handle(.volumeCeiling(percent)))
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
            category: category, volume: volume, outputDevice: output.inUse,
            sleepRemainingSeconds: sleepRemainingSeconds, locked: locked)
    }

    /// The position of the current track now: the engine's counter while it plays the track (the
    /// last position event may be 250 ms old), else the last known one.
    var livePositionFrames: Int64 {
        let current: UInt64? =
            queue.isEmpty
            ? (restore.playingAloneState != nil ? RestoreSession.provisionalID : nil)
            : playQueue.engineID(ofEntry: queueIndex)
        // One read: the frames belong to the track it names (a gapless change cannot mix them).
        let now = enginePosition
        guard status == .playing, let current, now.trackID == current else { return positionFrames }
        return max(0, now.frames)
    }

    /// Where the engine is now: the track it plays and the frames of it played (one read of its
    /// counters, which the output thread moves).
    var enginePosition: PlaybackPosition { engine.playbackPosition }

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
            sleepCountdown: timers.sleepCountdown(now: scheduler.nowNanoseconds), locked: locked)
        view.exhibit = exhibitView
        view.battery = batteryLabel
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
        case .browse, .help, .message, .off: apply(overlays.handle(.dropVolume))
        }
        apply(timers.handle(.follow(playing: status == .playing || shuttingDown)))
        followBedtime()
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
        if let words = announcer.follow(state) { send(.speak(words)) }
        send(.status(view.statusText))
        publishChanges()
    }

    // MARK: - effects

    /// Carries out what the parts asked for: the one place that reaches the engine and the saves
    /// for them.
    func apply(_ effects: [PlayerEffect]) {
        for effect in effects {
            switch effect {
            case .engine(.setQueue(let requests, let start, let frame)):
                engine.setQueue(requests, startAt: start, startFrame: frame)
            case .engine(.play): engine.play()
            case .engine(.pause): engine.pause()
            case .engine(.stop): engine.stop()
            case .engine(.seek(let frame)): engine.seek(toFrame: frame)
            case .engine(.setVolume(let level)): engine.setVolume(level)
            case .engine(.fadeOut(let milliseconds)): engine.fadeOut(overMilliseconds: milliseconds)
            case .engine(.cancelFade): engine.cancelFade()
            case .engine(.releaseDevice): engine.releaseDevice()
            case .engine(.fadeInNextStart(let milliseconds)): engine.fadeInNextStart(overMilliseconds: milliseconds)
            case .save(.soon): recorder.saveSoon()
            case .save(.now): recorder.saveNow()
            case .periodicSaves(true): recorder.startPeriodic()
            case .periodicSaves(false): recorder.stopPeriodic()
            case .chooseCurrentEntry: playQueue.chooseCurrent()
            case .after(let milliseconds, let later):
                _ = scheduler.schedule(afterMilliseconds: milliseconds) { [weak self] in self?.hear(later) }
            case .redraw: refreshScreen()
            case .arm(let alarm, let milliseconds): arm(.timers(alarm), milliseconds: milliseconds, repeating: false)
            case .disarm(let alarm): disarm(.timers(alarm))
            case .armExhibit(let alarm, let milliseconds, let repeating):
                arm(.exhibit(alarm), milliseconds: milliseconds, repeating: repeating)
            case .disarmExhibit(let alarm): disarm(.exhibit(alarm))
            case .browseTimedOut: browseTimedOut()
            case .powerOffWarning: warnOfPowerOff()
            case .shutdown: requestShutdown()
            case .stopPlayback: if status != .stopped { stop() }
            case .cardStayedAway: cardStayedAway()
            case .transport(.status(.playing)) where !bedtimeAdmits(restore.playingAloneState?.relativePath):
                // The restored track waits, paused where it was, until the rules let it play.
                apply(transport.handle(.status(.paused)))
            case .transport(let event): apply(transport.handle(event))
            case .timers(let event): apply(timers.handle(event))
            case .remoteChange(let aspects): outbox.remoteChanges.note(aspects)
            case .silence:
                engine.setQueue([], startAt: 0, startFrame: 0)
                apply(transport.handle(.status(.stopped)))
                apply(transport.handle(.located(frames: 0, sampleRate: sampleRate)))
            case .adoptRestoredTrack(let entry):
                playQueue.adoptID(RestoreSession.provisionalID, forEntry: entry)
                provideArtworkForCurrentTrack()
            case .moveOn(let origin): moveOn(origin)
            case .command(let command): apply(command, from: .button)
            case .overlays(let event): apply(overlays.handle(event))
            case .seekByHold(let event): seekByHold(event)
            case .noteMove: announcer.noteMove()
            case .browseArtwork: provideArtworkForBrowse()
            case .playSelection(let fromStart): playSelection(fromStart: fromStart)
            case .playFromStart: playFromStart()
            case .chooseNextOutput: chooseNextOutput()
            case .cycleShuffle: cycleShuffle()
            case .cycleSleepTimer: cycleSleepTimer()
            case .unlinkCard(let row): unlinkCardOnScreen(row: row)
            case .bedtime(.save(let saved)):
                recorder.writer.submitFile(
                    BedtimeStore.path(directory: config.stateDirectory), text: BedtimeStore.text(saved))
            case .bedtime(let outcome): tellBedtime(outcome)
            case .armBedtime(let milliseconds): arm(.bedtime, milliseconds: milliseconds, repeating: false)
            case .battery(let outcome): tellBattery(outcome)
            case .bluetooth(let outcome): carryOut(outcome)
            case .confirmUpdate(let offer):
                guard let path = updateConfirmPath else {
                    Log.error("updates: cannot confirm update \(offer.version): no KIOSK_UPDATE_CONFIRM")
                    break
                }
                Log.notice("updates: install of \(offer.version) confirmed (\(path))")
                // A RAM file system: not durable, but written off the loop and in order like the state.
                recorder.writer.submitFile(path, text: offer.confirmation)
            case .importStickSet(let set, let file): importStickSet(set, file: file)
            case .undoStickSetImport(let previous): undoStickSetImport(previous)
            }
        }
    }

    /// Arms the loop timer of `key` (replacing one armed before); when it rings, its part hears
    /// of it.
    private func arm(_ key: PlayerOutbox.AlarmKey, milliseconds: Int, repeating: Bool) {
        disarm(key)
        outbox.alarms[key] = scheduler.schedule(
            afterMilliseconds: milliseconds, repeatingMilliseconds: repeating ? milliseconds : nil
        ) { [weak self] in
            guard let self else { return }
            if !repeating { outbox.alarms[key] = nil }
            switch key {
            case .timers(let alarm): apply(timers.handle(.rang(alarm, now: scheduler.nowNanoseconds)))
            case .exhibit(let alarm): exhibitAlarmRang(alarm)
            case .bedtime: bedtimeTicked()
            }
        }
    }

    private func disarm(_ key: PlayerOutbox.AlarmKey) {
        if let armed = outbox.alarms.removeValue(forKey: key) { scheduler.cancel(armed) }
    }

    /// A part's event come back after its time.
    private func hear(_ later: PlayerEffect.Later) {
        switch later {
        case .messageTimedOut(let generation): apply(overlays.handle(.messageTimedOut(generation: generation)))
        case .offerExpired(let generation): stickOfferExpired(generation: generation)
        }
    }

    // MARK: - listeners

    /// Calls `listener` on the loop thread with each change of the `kinds` asked for, from now on;
    /// the id returned stops it (`stopListening`).
    @discardableResult
    public func listen(to kinds: PlayerChange.Kinds = .all, _ listener: @escaping PlayerListener) -> Int {
        outbox.listeners.add(kinds, listener)
    }

    public func stopListening(_ id: Int) { outbox.listeners.remove(id) }

    /// Tells the listeners of `change`'s kind.
    func send(_ change: PlayerChange) {
        for listener in outbox.listeners.listeners(of: change) { listener(change) }
    }

    /// Tells remote clients what changed since they were last told, if anything did (each screen
    /// refresh does it; a remote command does it at once).
    public func publishChanges() {
        let aspects = outbox.remoteChanges.take()
        if !aspects.isEmpty { send(.remote(aspects)) }
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

    /// The box shuts down as by its shutdown control: playback ends, the state is saved and flushed,
    /// then the listeners are asked to power off. `keepingPlace`: playing pauses rather than stops
    /// (a stop rewinds the track), so the resume point is where the sound ended (a battery running
    /// out, not a person's choice to stop).
    func requestShutdown(keepingPlace: Bool = false) {
        guard outbox.listeners.hears(.shutdown) else { return }
        shuttingDown = true
        if keepingPlace && status == .playing {
            engine.pause()
            setStatus(.paused)
        } else {
            engine.stop()
            setStatus(.stopped)
        }
        recorder.saveNow(flushingQueue: true)
        refreshScreen()
        send(.shutdownRequested)
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
