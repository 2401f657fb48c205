// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskAudio
import KioskConfig
import KioskCore
import KioskDisplay
import KioskInput
import KioskLibrary
import KioskModel
import KioskSystem

/// How `run` and `demo` differ from the plain appliance.
public struct ApplianceOptions: Sendable {
    /// Overrides the screen type of the config and the board.
    public var screenType: ScreenType?
    /// For "png": the file each frame is written to.
    public var pngPath: String?
    /// Plain directories scanned like mounted volumes (the demo library).
    public var extraVolumes: [String] = []
    /// Use the terminal keyboard as buttons (nil = config, else when stdin is a terminal).
    public var keyboard: Bool?
    /// Replay this event script as input.
    public var script: String?
    /// Exit once the event script has been replayed and this many milliseconds have passed.
    public var exitAfterScriptMs: Int?
    /// Print the key map at start (when the terminal is not the screen: there the key map stays
    /// in sight beside the picture).
    public var printKeymap = false
    /// With the terminal as the screen: its size (nil: `TerminalSize.of(fd: 1)`), and notes kept in
    /// sight under the key map ("No sound card: …").
    public var terminalSize: TerminalSize?
    public var terminalNotes: [String] = []
    /// The shutdown control ends the program instead of powering the box off (demo, development).
    public var shutdownQuits = false
    /// Services started with the player and stopped before it (the MPD server): each is called
    /// once the player exists and may return nil (not configured).
    public var services: [@Sendable (ApplianceContext) throws -> (any ApplianceService)?] = []

    public init() {}
}

/// Something that runs beside the player on its loop, e.g. remote control. Thread: loop thread.
public protocol ApplianceService: AnyObject {
    /// Called at shutdown, before the player saves its state and stops.
    func stop()
}

/// What a service gets to work with. Thread: loop thread.
public struct ApplianceContext {
    public let loop: EventLoop
    public let player: Player
    public let library: Library
    public let inputs: InputManager?
    public let resolved: ResolvedConfig
}

/// The whole player: config and board → event loop, audio engine, library, screen, inputs,
/// player state machine, resume state, systemd notification. `run()` returns at SIGTERM/SIGINT
/// after a clean shutdown (state saved, audio stopped, screen cleared).
///
/// Thread: created and run on one thread, which becomes the event-loop thread. Create it before
/// any other thread (the loop blocks the signals it handles).
public final class Appliance {
    public let resolved: ResolvedConfig
    public let options: ApplianceOptions
    let loop: EventLoop
    let notify = SystemdNotify()
    private(set) var display: Display?
    private(set) var engine: AudioEngine!
    private(set) var library: Library!
    private(set) var inputs: InputManager?
    public private(set) var player: Player!
    private var exitStatus: Int32 = 0
    private var trimScheduled = false
    private var services: [any ApplianceService] = []
    private var speech: SpokenPrompts?
    /// Writes the staff stick's play counts (exhibit mode), so the loop never waits for a stick.
    private var stickWriter: WorkerThread<@Sendable () -> Void>?

    public init(resolved: ResolvedConfig, options: ApplianceOptions = ApplianceOptions()) throws {
        self.resolved = resolved
        self.options = options
        loop = try EventLoop()
    }

    /// Runs until SIGTERM/SIGINT (or the end of an event script with `exitAfterScriptMs`).
    public func run() throws -> Int32 {
        let config = resolved.config
        let board = resolved.board
        let startNs = Syscalls.monotonicNanoseconds()
        do {
            try Syscalls.mkdirs(config.stateDirectory)
        } catch {
            Log.error("cannot create the state directory: \(error); playing without saved state")
        }
        let resume = ResumeState.load(directory: config.stateDirectory)
        display = makeDisplay()

        // Events reach the player through this box: the player is made after the engine.
        let sink = EventSink()
        // The engine and the player name devices by their config names (their String API).
        // A card the device tree gives no pins (the Pi 400's and Zero 2 W's Headphones) is skipped.
        let deviceTree = DeviceTree.live
        let outputDevices = resolved.audioDevices(skipping: deviceTree.silentCards).map(\.name)
        var audioSettings = AudioSettings(
            device: resume?.outputDevice.flatMap { outputDevices.contains($0) ? $0 : nil } ?? outputDevices[0],
            bufferMs: config.audio.bufferMs, ringSeconds: config.audio.ringSeconds, mixer: resolved.mixer,
            realtimePriority: config.audio.realtimePriority > 0 ? Int32(config.audio.realtimePriority) : nil)
        audioSettings.declickMilliseconds = config.audio.declickMs
        audioSettings.keepOpen = resolved.keepOpen
        audioSettings.pauseStopsClock = deviceTree.i2sStopsClockOnPause
        // No probe of the device here: opening it costs milliseconds before the first sound, and
        // the engine reports a device that does not open (deviceLost) and retries by itself.
        engine = try AudioEngine(loop: loop, settings: audioSettings) { event in sink.player?.handle(event) }
        library = try Library(loop: loop, stateDirectory: config.stateDirectory, mediaRoots: config.mediaRoots) {
            [unowned self] event, catalog in
            sink.player?.handle(event, catalog: catalog)
            switch event {
            case .scanFinished, .catalogChanged: self.scheduleMemoryTrim()
            default: break
            }
        }
        player = Player(
            loop: loop, engine: engine, screen: display, config: config, outputDevices: outputDevices,
            resume: resume, deviceOpens: OutputPresence.isPresent)
        sink.player = player
        speech = SpokenPrompts(
            resolved: resolved, hasScreen: display != nil, loop: loop, engine: engine, player: player)
        player.listen(to: .status) { [notify] change in
            if case .status(let status) = change { notify.status(status) }
        }
        player.listen(to: .shutdown) { [unowned self] _ in
            let go = { [unowned self] in
                if self.options.shutdownQuits {
                    self.loop.schedule(afterMilliseconds: 300) { self.shutdown(reason: "the shutdown control") }
                } else {
                    self.requestPowerOff()
                }
            }
            // "Shutting down" is said before the power goes (at most `SpokenPrompts.quietWaitMs`).
            if let speech = self.speech { speech.whenQuiet(loop: self.loop, go) } else { go() }
        }

        startInputs()
        player.helpEntries = helpEntries()
        let context = ApplianceContext(loop: loop, player: player, library: library, inputs: inputs, resolved: resolved)
        for make in [BoardOutputLines.make, UnderVoltageWatch.make, BatteryWatch.make, BluetoothWatch.make]
            + options.services
        {
            do {
                if let service = try make(context) { services.append(service) }
            } catch {
                Log.error("\(error)")
            }
        }

        loop.onSignal(SIGTERM) { [unowned self] _ in self.shutdown(reason: "SIGTERM") }
        loop.onSignal(SIGINT) { [unowned self] _ in self.shutdown(reason: "SIGINT") }
        loop.onSignal(SIGHUP) { [unowned self] _ in
            Log.notice("SIGHUP: rescanning the library")
            self.library.rescanAll()
        }
        loop.onSignal(SIGCHLD) { _ in
            var status: Int32 = 0
            while waitpid(-1, &status, WNOHANG) > 0 {}
        }

        library.start()
        // Folders on the SD card (config) and on the command line are played like sticks.
        for folder in config.libraryDirectories + options.extraVolumes { library.addVolume(path: folder) }
        player.refreshScreen()
        notify.ready(loop: loop, status: player.statusText())
        let startupMs = (Syscalls.monotonicNanoseconds() - startNs) / 1_000_000
        Log.info(
            "kiosk-player running: board \(board.name), audio \(audioSettings.device), screen \(display.map { "\($0.surface.width)×\($0.surface.height)" } ?? "none"), started in \(startupMs) ms"
        )
        try loop.run()
        return exitStatus
    }

    // MARK: - parts

    private func makeDisplay() -> Display? {
        let config = resolved.config
        let profile = resolved.screenProfile
        let type = resolved.screenType(override: options.screenType)
        let surface: (any Surface)?
        switch type {
        case .none:
            surface = nil
        case .png:
            let (width, height) = (config.screen.width, config.screen.height)
            if options.pngPath == nil, let directory = config.screen.pngDirectory {
                surface = FrameFilesSurface(directory: directory, width: width, height: height)
            } else {
                let path = options.pngPath ?? "\(config.stateDirectory)/screen.png"
                surface = PNGSurface(path: path, width: width, height: height)
            }
        case .terminal:
            surface = TerminalSurface(
                size: options.terminalSize, width: config.screen.width, height: config.screen.height,
                panel: terminalPanel())
        case .spi:
            surface = openPanel(profile, required: true)
        case .auto where profile.spiPanel != nil:
            // The framebuffer found by its sysfs name (a kernel driver for the panel, or HDMI),
            // else the panel over spidev, else none.
            if let name = profile.fbName, let device = FramebufferSurface.find(name: name) {
                do {
                    surface = try FramebufferSurface.open(device: device, rotation: profile.rotation)
                } catch {
                    Log.notice("screen: \(error); trying the SPI panel")
                    surface = openPanel(profile, required: false)
                }
            } else {
                surface = openPanel(profile, required: false)
            }
        case .framebuffer, .auto:
            // The named framebuffer, else (auto) no screen.
            do {
                surface = try FramebufferSurface.open(profile: profile)
            } catch {
                if type == .framebuffer {
                    Log.error("screen: \(error); running without a screen")
                } else {
                    Log.notice("screen: \(error); running without a screen (the player still plays)")
                }
                surface = nil
            }
        }
        guard let surface else { return nil }
        do {
            let fonts = try FontSet.load()
            let theme = Theme.named(config.screen.theme) ?? .dark
            let display = try Display(loop: loop, surface: surface, fonts: fonts, theme: theme)
            if surface is SPIPanelSurface || surface is FramebufferSurface {
                display.minimumFrameNanoseconds = 1_000_000_000 / UInt64(max(1, config.screen.maxFramesPerSecond))
            }
            display.idleOffNanoseconds = UInt64(config.screen.idleOffSeconds) * 1_000_000_000
            return display
        } catch {
            Log.error("screen: \(error); running without a screen")
            return nil
        }
    }

    /// The board's SPI panel over spidev; nil (logged) when it cannot be opened.
    private func openPanel(_ profile: ScreenProfile, required: Bool) -> (any Surface)? {
        guard let panel = profile.spiPanel else {
            Log.error(
                "screen: the board profile \(resolved.board.name) describes no SPI panel (screen.panel); running without a screen"
            )
            return nil
        }
        do {
            return try SPIPanelSurface.open(
                panel: panel, gpioChips: resolved.board.gpioChips, extraRotation: profile.rotation,
                maxFramesPerSecond: resolved.config.screen.maxFramesPerSecond)
        } catch {
            let message = "screen: SPI panel: \(error); running without a screen (the player still plays)"
            if required { Log.error(message) } else { Log.notice(message) }
            return nil
        }
    }

    private func startInputs() {
        let config = resolved.config
        var profile: InputProfile
        do {
            profile = try resolved.inputProfile()
        } catch {
            Log.error("\(error); using the board's key map")
            profile = resolved.board.input
        }
        // Bluetooth headphones' buttons (AVRCP), through the uinput device BlueZ makes for them.
        if config.bluetooth != nil { profile.evdev.append(EvdevConfig.headsetButtons) }
        let settings = InputSettings(
            debounceMs: config.inputs.debounceMs, longPressMs: config.inputs.longPressMs,
            repeatDelayMs: config.inputs.repeatDelayMs, repeatMs: config.inputs.repeatMs,
            chordMs: config.inputs.chordMs,
            doublePressMs: config.inputs.doublePressMs)
        let manager = InputManager(loop: loop, profile: profile, settings: settings) { [unowned self] event in
            Log.debug("input: \(event)")
            self.display?.noteActivity()
            self.player.handle(event)
        }
        manager.onCard = { [unowned self] event in
            Log.debug("input: \(event)")
            self.display?.noteActivity()
            self.player.handle(event)
        }
        if config.exhibit != nil {
            manager.onEdge = { [unowned self] source, down in self.player.exhibitEdge(source: source, down: down) }
            player.exhibitButtons = profile.buttons.map(\.name)
            // The heartbeat: a file a monitoring script (or a volunteer with a shell) reads.
            let file = Self.runtimeDirectory + "/exhibit-status.json"
            var failed = false
            // Restart=always in the unit starts the player again.
            player.listen(to: .dailyRestart) { [unowned self] _ in
                self.shutdown(reason: "the daily restart, exhibit.restartAt")
            }
            // The staff export on a worker; its outcome back to the player on the loop.
            let exported = Mailbox<StaffExport.Outcome>(loop: loop) { [unowned self] outcome in
                self.player.playCountsExported(outcome)
            }
            do {
                let writer = try WorkerThread<@Sendable () -> Void>(name: "kiosk-stick-out") { $0() }
                stickWriter = writer
                player.stickExporter = { mountPoint, csv in
                    _ = writer.submit { exported.send(StaffExport.run(mountPoint: mountPoint, csv: csv)) }
                }
            } catch {
                Log.warning("exhibit: no thread for the staff export (\(error)); it runs on the loop")
            }
            player.listen(to: .exhibitStatus) { change in
                guard case .exhibitStatus(let text) = change else { return }
                do {
                    try AtomicFile.replace(file, with: text)
                    failed = false
                } catch {
                    // Once per failure, not at every change.
                    if !failed { Log.warning("exhibit: cannot write \(file): \(error)") }
                    failed = true
                }
            }
        } else {
            // A set's export to a stick (`kiosk-export`) and the look for a set on a stick that came,
            // on a worker; their outcomes back on the loop.
            let exported = Mailbox<(StickSet.ExportOutcome, String)>(loop: loop) { [unowned self] outcome in
                self.player.stickSetExported(outcome.0, summary: outcome.1)
            }
            do {
                let writer = try WorkerThread<@Sendable () -> Void>(name: "kiosk-stick-out") { $0() }
                stickWriter = writer
                player.stickSetExporter = { mountPoint, text, summary in
                    _ = writer.submit { exported.send((StickSet.export(text, to: mountPoint), summary)) }
                }
                // The look for a set on a stick that came, on the same worker: the loop never reads a stick.
                let looked = Mailbox<(StickSet.Arrival, String)>(loop: loop) { [unowned self] found in
                    self.player.stickSetLooked(found.0, mountPoint: found.1)
                }
                player.stickSetLooker = { mountPoint in
                    _ = writer.submit { looked.send((StickSet.arrival(at: mountPoint), mountPoint)) }
                }
            } catch {
                Log.warning("stick set: no thread for the export (\(error)); it runs on the loop")
            }
        }
        inputs = manager
        player.linkGesture = Self.linkGesture(
            profile, keyboard: options.keyboard ?? config.inputs.keyboard ?? (isatty(0) != 0))
        player.cardModeGesture = Self.modeGesture(
            profile, keyboard: options.keyboard ?? config.inputs.keyboard ?? (isatty(0) != 0))
        player.lockGesture = Self.lockGesture(
            profile, keyboard: options.keyboard ?? config.inputs.keyboard ?? (isatty(0) != 0))
        if profile.usesGPIO { manager.startGPIO() }
        if !profile.evdev.isEmpty { manager.startEvdev() }
        if !profile.cardReaders.isEmpty {
            manager.startCardReaders()
            display?.onSleepChange = { [unowned manager] asleep in manager.setCardReadersIdle(asleep) }
        }
        let keyboard = options.keyboard ?? config.inputs.keyboard ?? (isatty(0) != 0)
        if keyboard {
            manager.startKeyboard()
            if options.printKeymap && !(display?.surface is TerminalSurface) { printKeymap(profile) }
        }
        if let script = options.script ?? config.inputs.script {
            do {
                _ = try manager.startScript(path: script) { [unowned self] in
                    guard let ms = self.options.exitAfterScriptMs else { return }
                    self.loop.schedule(afterMilliseconds: ms) { self.shutdown(reason: "end of the event script") }
                }
            } catch {
                Log.error("event script: \(error)")
            }
        }
    }

    /// How this board asks for `play-from-start`, which links a new card: "Hold Select".
    static func linkGesture(_ profile: InputProfile, keyboard: Bool) -> String {
        if let button = profile.buttons.first(where: { $0.binding.longPress == .playFromStart }) {
            return "Hold \(button.name)"
        }
        for device in profile.evdev {
            if let key = device.keys.first(where: { $0.binding.longPress == .playFromStart }) {
                return "Hold \(Self.keyName(key.name))"
            }
            if let key = device.keys.first(where: { $0.binding.press == .playFromStart }) {
                return "Press \(Self.keyName(key.name))"
            }
        }
        if let chord = profile.chords.first(where: { $0.action == .playFromStart }) {
            return "Hold \(chord.buttons.joined(separator: "+"))"
        }
        if keyboard, let key = profile.keyboard.first(where: { $0.value == .playFromStart })?.key {
            return "Press \(key.prefix(1).uppercased() + key.dropFirst())"
        }
        return "Hold Select"
    }

    /// How this board asks for `select`, which changes a new card's mode while linking: "Press Select".
    static func modeGesture(_ profile: InputProfile, keyboard: Bool) -> String {
        if let button = profile.buttons.first(where: { $0.binding.press == .select }) { return "Press \(button.name)" }
        for device in profile.evdev {
            if let key = device.keys.first(where: { $0.binding.press == .select }) {
                return "Press \(Self.keyName(key.name))"
            }
        }
        if keyboard,
            let key = profile.keyboard.sorted(by: { $0.key < $1.key }).first(where: { $0.value == .select })?.key
        {
            return "Press \(key.prefix(1).uppercased() + key.dropFirst())"
        }
        return "Press Select"
    }

    /// How this board locks and unlocks its inputs: "Hold down+select 3 s"; nil when it has no way.
    static func lockGesture(_ profile: InputProfile, keyboard: Bool) -> String? {
        if let chord = profile.chords.first(where: { $0.action == .lock }) {
            return "Hold \(chord.buttons.joined(separator: "+")) \((chord.holdMs + 500) / 1000) s"
        }
        for key in profile.evdev.flatMap(\.keys) {
            if key.binding.longPress == .lock { return "Hold \(Self.keyName(key.name))" }
            if key.binding.press == .lock { return "Press \(Self.keyName(key.name))" }
        }
        if let button = profile.buttons.first(where: { $0.binding.longPress == .lock }) {
            return "Hold \(button.name)"
        }
        if keyboard, let key = profile.keyboard.first(where: { $0.value == .lock })?.key {
            return "Press \(key.prefix(1).uppercased() + key.dropFirst())"
        }
        return nil
    }

    /// "KEY_ENTER" → "Enter", for the screen.
    private static func keyName(_ name: String) -> String {
        let bare = name.hasPrefix("KEY_") || name.hasPrefix("BTN_") ? String(name.dropFirst(4)) : name
        return bare.prefix(1).uppercased() + bare.dropFirst().lowercased()
    }

    private func printKeymap(_ profile: InputProfile) {
        var lines = ["Keys (the keyboard stands in for the buttons):"]
        for row in Keymap.keyboardHelp(profile.keyboard) {
            lines.append("  \(row.keys.joined(separator: " ").padding(toLength: 18))\(row.words)")
        }
        lines.append("  \("Ctrl+C".padding(toLength: 18))quit")
        printLine(lines.joined(separator: "\n"))
    }

    /// What stays in sight beside the picture in a terminal: the keys (when the keyboard is the
    /// buttons, or the key map is asked for: the demo, also when a script types) and the notes.
    func terminalPanel() -> TerminalSurface.Panel {
        let keyboard =
            options.printKeymap || (options.keyboard ?? resolved.config.inputs.keyboard ?? (isatty(0) != 0))
        let profile = (try? resolved.inputProfile()) ?? resolved.board.input
        return Self.terminalPanel(
            keyboard: keyboard ? profile.keyboard : nil, quits: options.shutdownQuits, notes: options.terminalNotes)
    }

    /// The terminal's panel for the keyboard map `keyboard` (nil: the keyboard is not used) and
    /// `notes`; `quits`: the shutdown key ends the program (the demo) instead of switching off.
    static func terminalPanel(keyboard: [String: Action]?, quits: Bool, notes: [String]) -> TerminalSurface.Panel {
        guard let keyboard else { return TerminalSurface.Panel(heading: "", notes: notes) }
        var keys = Keymap.keyboardHelp(keyboard)
        if quits, let i = keys.firstIndex(where: { $0.words == Action.shutdown.words }) { keys[i].words = "quit" }
        return TerminalSurface.Panel(heading: "Keys (the keyboard is the buttons)", keys: keys, notes: notes)
    }

    /// The help pages: each control of the board and what it does, in words ("Hold Next" →
    /// "fast-forward"; `Action.words`).
    func helpEntries() -> [HelpEntry] {
        let profile = inputs?.profile ?? resolved.board.input
        var entries: [HelpEntry] = []
        func add(_ control: String, _ b: ButtonBinding) {
            if let p = b.press { entries.append(HelpEntry(control: control, action: p.words)) }
            if let l = b.longPress { entries.append(HelpEntry(control: "Hold \(control)", action: l.words)) }
            if let h = b.hold { entries.append(HelpEntry(control: "Hold \(control)", action: h.words)) }
            if let d = b.doublePress { entries.append(HelpEntry(control: "\(control) twice", action: d.words)) }
            if let d = b.doubleHold { entries.append(HelpEntry(control: "\(control) twice, hold", action: d.words)) }
        }
        // Board profiles name buttons in lower case ("next"); a page reads "Hold Next".
        func label(_ name: String) -> String { name.prefix(1).uppercased() + name.dropFirst() }
        for button in profile.buttons { add(label(button.name), button.binding) }
        for encoder in profile.encoders {
            entries.append(
                HelpEntry(
                    control: "Turn \(label(encoder.name)) ↻ / ↺",
                    action: "\(encoder.clockwise.words) / \(encoder.counterClockwise.words)"))
        }
        for chord in profile.chords {
            let buttons = chord.buttons.map(label).joined(separator: "+")
            entries.append(HelpEntry(control: "Hold \(buttons)", action: chord.action.words))
        }
        for device in profile.evdev {
            for key in device.keys { add(Self.keyName(key.name), key.binding) }
        }
        if entries.isEmpty || (options.keyboard ?? resolved.config.inputs.keyboard ?? (isatty(0) != 0)) {
            for row in Keymap.keyboardHelp(profile.keyboard) {
                let words = options.shutdownQuits && row.words == Action.shutdown.words ? "quit" : row.words
                entries.append(HelpEntry(control: row.keys.joined(separator: " "), action: words))
            }
        }
        return entries
    }

    // MARK: - stopping

    /// A scan (on its own threads, in their own malloc arenas) leaves freed memory behind that
    /// glibc keeps, also when it finds nothing changed (measured: +2.3 MB after each such
    /// rescan), and a replaced catalog is freed once the player lets go of it: give it back
    /// shortly after (a few milliseconds, once per scan).
    private func scheduleMemoryTrim() {
        if trimScheduled { return }
        trimScheduled = true
        loop.schedule(afterMilliseconds: 100) { [weak self] in
            self?.trimScheduled = false
            _ = kiosk_malloc_trim()
            var inUse = 0
            var held = 0
            kiosk_malloc_usage(&inUse, &held)
            Log.debug("memory after a scan: \(inUse / 1024) KiB in use, \(held / 1024) KiB free in malloc")
        }
    }

    private var stopping = false

    /// Saves state, stops audio, clears the screen, releases inputs, and ends `run()`.
    public func shutdown(reason: String) {
        guard !stopping else { return }
        stopping = true
        Log.notice("stopping (\(reason))")
        notify.stopping()
        inputs?.stop()
        for service in services { service.stop() }
        player.shutdown()
        speech?.stop()
        stickWriter?.stop()
        library.stop()
        display?.shutdown()
        loop.stop()
    }

    /// The service's runtime directory (`$RUNTIME_DIRECTORY`, else /run/kiosk-player): the power-off
    /// request and the exhibit heartbeat go there.
    static var runtimeDirectory: String {
        Syscalls.environment("RUNTIME_DIRECTORY")?.split(separator: ":").first.map(String.init) ?? "/run/kiosk-player"
    }

    /// The shutdown chord: asks systemd (through kiosk-player-poweroff.path) to power off.
    private func requestPowerOff() {
        let flag = "\(Self.runtimeDirectory)/poweroff"
        do {
            try AtomicFile.replace(flag, with: "poweroff requested by the shutdown control\n")
            Log.notice("power-off requested (\(flag))")
        } catch {
            Log.error("cannot request power-off: \(error)")
        }
    }
}

/// Holds the player weakly for callbacks made before it exists.
private final class EventSink {
    weak var player: Player?
}

extension String {
    func padding(toLength width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
