import CKioskShims
import Glibc
import KioskHardware
import KioskSystem

/// Runs the inputs of a board on the event loop: GPIO buttons and encoders (libgpiod), evdev
/// devices, the terminal keyboard, card readers, event scripts. Every backend feeds the same path
/// (`Gestures`, `QuadratureDecoder`, the keymap) and each action reaches `onAction`; cards
/// (`USBCardReader`, `RC522Reader`, scripts) reach `onCard`.
///
/// A backend that fails (no chip, a busy line, a missing device, no permission) logs an error that
/// names the chip and line or the device, records it in `problems`, and the other inputs keep
/// working. An evdev device that is missing or vanishes is retried every `evdevRetryMs`.
///
/// Thread: the event-loop thread only (create, start, stop and deinit there).
public final class InputManager {
    private enum LineRoute {
        case button(Int)
        case encoderA(Int)
        case encoderB(Int)
    }

    private struct EncoderState {
        let config: EncoderConfig
        var decoder: QuadratureDecoder
        var a = false
        var b = false
        var acceleration: EncoderAcceleration?
        var invalidReported = 0
    }

    private struct EvdevState {
        let config: EvdevConfig
        var device: EvdevDevice?
        var source: SourceID?
        var retry: TimerID?
        var keys: [UInt16: Gestures.ButtonID] = [:]
        var axes: [UInt16: (axis: EvdevConfig.Axis, acceleration: EncoderAcceleration)] = [:]
        var dropping = false
        var reportedMissing = false
    }

    private struct GPIORequest {
        let line: GPIOInputLine
        var source: SourceID?
    }

    private let loop: EventLoop
    public let profile: InputProfile
    public let settings: InputSettings
    private let onAction: (ActionEvent) -> Void

    /// Every gesture, detent, key and device change as a line of text, actions included
    /// ("button A press → play-pause"). For `kiosk-player inputs`.
    public var onRawEvent: ((String) -> Void)?
    /// Also report each raw GPIO edge through `onRawEvent` (wiring a new box).
    public var reportEdges = false
    /// Where the GPIO chips and the evdev devices are (tests point them elsewhere).
    public var gpioDirectory = "/dev"
    public var evdevDirectory = "/dev/input"
    /// How often a missing or vanished evdev device is looked for again.
    public var evdevRetryMs = 2000
    /// Cards presented and removed, from every reader and from scripts.
    public var onCard: ((CardEvent) -> Void)?
    /// How the RC522 readers reach their chip (nil: spidev; tests give a simulated chip).
    public var openRC522Bus: RC522Reader.OpenBus?
    /// Every input problem reported so far, as logged.
    public private(set) var problems: [String] = []
    /// The GPIO chip in use, once `startGPIO` found one.
    public private(set) var gpioChip: GPIOChip?

    private var gestures: Gestures!
    private var buttonIDs: [Gestures.ButtonID] = []
    private var lineRoutes: [Int: LineRoute] = [:]
    private var encoders: [EncoderState] = []
    private var gpioRequests: [GPIORequest] = []
    private var evdev: [EvdevState] = []
    private var timer: TimerID?
    private var timerDeadline: UInt64?
    private var keyboardFD: Int32?
    private var keyboardSource: SourceID?
    private var keyboardDecoder = KeyboardDecoder()
    private var lastKey: (key: String, at: UInt64, count: Int)?
    private var scriptTimers: [Int: TimerID] = [:]
    private var nextScript = 0
    private var warnedClock = false
    private var usbCardReaders: [Int: USBCardReader] = [:]
    private var rc522Readers: [RC522Reader] = []
    private var lastCard: CardUID?

    /// Sets up the gesture engine and keymap of `profile`; nothing is opened until a `start…` call.
    public init(
        loop: EventLoop, profile: InputProfile, settings: InputSettings, onAction: @escaping (ActionEvent) -> Void
    ) {
        self.loop = loop
        self.profile = profile
        self.settings = settings
        self.onAction = onAction
        gestures = Gestures(settings: settings) { [unowned self] event in self.gestureEvent(event) }
        for (i, button) in profile.buttons.enumerated() {
            let id = gestures.addButton(
                source: "button \(button.name)", binding: button.binding,
                debounceMs: button.debounceMs ?? settings.debounceMs)
            buttonIDs.append(id)
            lineRoutes[button.line] = .button(i)
        }
        for chord in profile.chords {
            let members = chord.buttons.compactMap { name in
                profile.buttons.firstIndex { $0.name == name }.map { buttonIDs[$0] }
            }
            if members.count >= 2 {
                gestures.addChord(
                    members, holdMs: chord.holdMs, action: chord.action,
                    source: "chord \(chord.buttons.joined(separator: "+"))")
            }
        }
        for (i, encoder) in profile.encoders.enumerated() {
            // Until the chip is read, the lines are taken as inactive (scripts and tests start there).
            encoders.append(
                EncoderState(
                    config: encoder,
                    decoder: QuadratureDecoder(stepsPerDetent: encoder.stepsPerDetent, a: false, b: false),
                    acceleration: encoder.acceleration.map(EncoderAcceleration.init)))
            lineRoutes[encoder.a] = .encoderA(i)
            lineRoutes[encoder.b] = .encoderB(i)
        }
        for config in profile.evdev {
            var state = EvdevState(config: config)
            for key in config.keys {
                state.keys[key.code] = gestures.addButton(
                    source: "key \(key.name)", binding: key.binding, debounceMs: 0)
            }
            for axis in config.relative {
                state.axes[axis.code] = (axis, EncoderAcceleration())
            }
            evdev.append(state)
        }
    }

    deinit {
        stop()
    }

    // MARK: - GPIO

    /// Finds the GPIO chip and requests every button and encoder line. Each failure is logged
    /// with its chip and line; the lines that worked are used.
    public func startGPIO() {
        guard profile.usesGPIO, gpioChip == nil else { return }
        let chip: GPIOChip
        switch GPIOChip.find(profile.gpioChips, in: gpioDirectory) {
        case .failure(let error):
            problem("GPIO: \(error.message); buttons and encoders on GPIO will not work")
            return
        case .success(let found):
            chip = found
        }
        gpioChip = chip
        Log.info(
            "GPIO: using \(chip.path) \(chip.description), \(chip.lineCount) lines, \(GPIOChip.libraryDescription)")
        let now = Syscalls.monotonicNanoseconds()
        for (i, button) in profile.buttons.enumerated() {
            guard let line = request(chip, button.line, button.bias, button.activeLow, "button \(button.name)") else {
                continue
            }
            do throws(Errno) {
                gestures.sync(buttonIDs[i], active: try line.value(), at: now)
            } catch {
                problem("GPIO: \(error)")
            }
        }
        for (i, encoder) in profile.encoders.enumerated() {
            guard let a = request(chip, encoder.a, encoder.bias, false, "encoder \(encoder.name) A") else { continue }
            guard let b = request(chip, encoder.b, encoder.bias, false, "encoder \(encoder.name) B") else {
                release(a)
                continue
            }
            let levelA = (try? a.value()) ?? false
            let levelB = (try? b.value()) ?? false
            encoders[i].a = levelA
            encoders[i].b = levelB
            encoders[i].decoder = QuadratureDecoder(stepsPerDetent: encoder.stepsPerDetent, a: levelA, b: levelB)
        }
        armTimer()
    }

    private func request(_ chip: GPIOChip, _ offset: Int, _ bias: GPIOBias, _ activeLow: Bool, _ use: String)
        -> GPIOInputLine?
    {
        let line: GPIOInputLine
        do throws(HardwareError) {
            line = try GPIOInputLine(chip: chip, offset: offset, bias: bias, activeLow: activeLow, use: use)
        } catch {
            problem("GPIO: \(error.message)")
            return nil
        }
        do throws(Errno) {
            let source = try loop.addSource(fd: line.fd, events: .readable) { [unowned self] _ in self.drainGPIO() }
            gpioRequests.append(GPIORequest(line: line, source: source))
        } catch {
            problem("GPIO: cannot watch line \(offset) (\(use)): \(error)")
            return nil
        }
        return line
    }

    private func release(_ line: GPIOInputLine) {
        guard let index = gpioRequests.firstIndex(where: { $0.line === line }) else { return }
        if let source = gpioRequests[index].source { loop.removeSource(source) }
        gpioRequests.remove(at: index)
    }

    /// Reads every GPIO line's pending edges and handles them in timestamp order (the lines of an
    /// encoder have separate fds under libgpiod v1; their edges must interleave by time).
    private func drainGPIO() {
        guard !gpioRequests.isEmpty else { return }
        var edges: [GPIOInputLine.Edge] = []
        var failed: [GPIOInputLine] = []
        for request in gpioRequests {
            do throws(Errno) {
                try request.line.readEdges(into: &edges)
            } catch {
                problem(
                    "GPIO: line \(request.line.offset) (\(request.line.use)) on \(request.line.chip.path) stopped: \(error.message)"
                )
                failed.append(request.line)
            }
        }
        for line in failed { release(line) }
        if edges.isEmpty { return }
        let now = Syscalls.monotonicNanoseconds()
        let ordered = edges.enumerated().sorted {
            ($0.element.timestampNs, $0.offset) < ($1.element.timestampNs, $1.offset)
        }
        for (_, edge) in ordered {
            lineEdge(edge.offset, active: edge.active, at: checked(edge.timestampNs, now: now))
        }
        armTimer()
    }

    /// A kernel timestamp, or `now` when it is not on CLOCK_MONOTONIC (kernels before 5.7 stamp
    /// GPIO v1 events with CLOCK_REALTIME).
    private func checked(_ timestamp: UInt64, now: UInt64) -> UInt64 {
        let ahead = timestamp > now ? timestamp - now : 0
        let behind = now > timestamp ? now - timestamp : 0
        if ahead < 1_000_000_000 && behind < 60_000_000_000 { return timestamp }
        if !warnedClock {
            warnedClock = true
            Log.warning("input: event timestamps are not on CLOCK_MONOTONIC; using the time of reading")
        }
        return now
    }

    /// An edge of a GPIO line (from the chip or from a script): the same path for both.
    private func lineEdge(_ offset: Int, active: Bool, at t: UInt64) {
        guard let route = lineRoutes[offset] else { return }
        if reportEdges { raw("line \(offset) \(active ? "↑ active" : "↓ inactive") at \(Self.seconds(t)) s") }
        switch route {
        case .button(let i):
            gestures.edge(buttonIDs[i], active: active, at: t)
        case .encoderA(let e):
            encoders[e].a = active
            encoderMoved(e, at: t)
        case .encoderB(let e):
            encoders[e].b = active
            encoderMoved(e, at: t)
        }
    }

    private func encoderMoved(_ e: Int, at t: UInt64) {
        let config = encoders[e].config
        var detents = encoders[e].decoder.update(a: encoders[e].a, b: encoders[e].b)
        let invalid = encoders[e].decoder.invalidTransitions
        if invalid > encoders[e].invalidReported {
            encoders[e].invalidReported = invalid
            raw("encoder \(config.name): invalid transition ignored (\(invalid) so far)")
        }
        if detents == 0 { return }
        if config.reverse { detents = -detents }
        let steps = encoders[e].acceleration?.steps(detents: detents, at: t) ?? abs(detents)
        let action = detents > 0 ? config.clockwise : config.counterClockwise
        let event = ActionEvent(action: action, steps: steps, source: "encoder \(config.name)", timestampNs: t)
        let direction = detents > 0 ? "clockwise" : "counter-clockwise"
        raw(
            "encoder \(config.name): \(abs(detents)) detent\(abs(detents) == 1 ? "" : "s") \(direction) → \(action.rawValue) ×\(steps)"
        )
        onAction(event)
    }

    // MARK: - evdev

    /// Opens every evdev device of the profile; missing ones are looked for again every `evdevRetryMs`.
    public func startEvdev() {
        for i in evdev.indices where evdev[i].device == nil && evdev[i].retry == nil {
            if !openEvdev(i) { scheduleRetry(i) }
        }
    }

    @discardableResult
    private func openEvdev(_ i: Int) -> Bool {
        let spec = evdev[i].config.device
        let device: EvdevDevice
        switch EvdevDevice.find(spec, in: evdevDirectory) {
        case .failure(let error):
            if !evdev[i].reportedMissing {
                evdev[i].reportedMissing = true
                problem("evdev: \(error.message); looking again every \(evdevRetryMs) ms, the other inputs work")
            }
            return false
        case .success(let found):
            device = found
        }
        let source: SourceID
        do throws(Errno) {
            source = try loop.addSource(fd: device.fd, events: .readable) { [unowned self] events in
                self.evdevReadable(i, events)
            }
        } catch {
            problem("evdev: cannot watch \(device.path): \(error)")
            return false
        }
        evdev[i].device = device
        evdev[i].source = source
        evdev[i].dropping = false
        evdev[i].reportedMissing = false
        if let retry = evdev[i].retry {
            loop.cancel(retry)
            evdev[i].retry = nil
        }
        Log.info("evdev: \"\(device.name)\" at \(device.path)\(device.monotonic ? "" : " (no monotonic timestamps)")")
        raw("evdev \"\(device.name)\" connected at \(device.path)")
        for key in evdev[i].config.keys where device.has(type: UInt16(EV_KEY), code: key.code) == false {
            Log.warning("evdev: \"\(device.name)\" has no key \(key.name)")
        }
        for axis in evdev[i].config.relative where device.has(type: UInt16(EV_REL), code: axis.code) == false {
            Log.warning("evdev: \"\(device.name)\" has no axis \(axis.name)")
        }
        syncKeys(i)
        return true
    }

    private func scheduleRetry(_ i: Int) {
        guard evdev[i].retry == nil else { return }
        evdev[i].retry = loop.schedule(afterMilliseconds: evdevRetryMs, repeatingMilliseconds: evdevRetryMs) {
            [unowned self] in
            if self.evdev[i].device == nil { self.openEvdev(i) }
        }
    }

    /// Sets every mapped key to the device's current state, without gestures.
    private func syncKeys(_ i: Int) {
        guard let device = evdev[i].device else { return }
        let now = Syscalls.monotonicNanoseconds()
        for (code, id) in evdev[i].keys {
            gestures.sync(id, active: device.keyIsDown(code), at: now)
        }
    }

    private func evdevReadable(_ i: Int, _ readiness: IOEvents) {
        guard let device = evdev[i].device else { return }
        let events: [kiosk_input_event]
        do throws(Errno) {
            events = try device.read()
        } catch {
            vanished(i, reason: error.message)
            return
        }
        let now = Syscalls.monotonicNanoseconds()
        for event in events {
            let t = device.monotonic ? checked(event.timestamp_ns, now: now) : now
            evdevEvent(i, type: event.type, code: event.code, value: event.value, at: t)
        }
        if events.isEmpty && (readiness.contains(.hangup) || readiness.contains(.error)) {
            vanished(i, reason: "hang-up")
        }
        armTimer()
    }

    private func vanished(_ i: Int, reason: String) {
        guard let device = evdev[i].device else { return }
        if let source = evdev[i].source { loop.removeSource(source) }
        evdev[i].source = nil
        evdev[i].device = nil
        let now = Syscalls.monotonicNanoseconds()
        for id in evdev[i].keys.values { gestures.sync(id, active: false, at: now) }
        problem(
            "evdev: \"\(device.name)\" at \(device.path) is gone (\(reason)); looking again every \(evdevRetryMs) ms")
        evdev[i].reportedMissing = true
        raw("evdev \"\(device.name)\" disconnected")
        scheduleRetry(i)
        armTimer()
    }

    /// One evdev event (from the device or a script).
    private func evdevEvent(_ i: Int, type: UInt16, code: UInt16, value: Int32, at t: UInt64) {
        if evdev[i].dropping {
            // The kernel dropped events: ignore until the next report, then read the key states.
            if type == UInt16(EV_SYN) && code == UInt16(SYN_REPORT) {
                evdev[i].dropping = false
                syncKeys(i)
            }
            return
        }
        switch type {
        case UInt16(EV_SYN) where code == UInt16(SYN_DROPPED):
            evdev[i].dropping = true
        case UInt16(EV_KEY):
            guard value == 0 || value == 1 else { return }  // 2 is the kernel's autorepeat: we repeat ourselves
            if let id = evdev[i].keys[code] {
                gestures.edge(id, active: value == 1, at: t)
            } else if value == 1 {
                raw("key \(Keymap.evdevName(type: type, code: code)) (not mapped)")
            }
        case UInt16(EV_REL):
            guard value != 0 else { return }
            guard let (axis, _) = evdev[i].axes[code] else {
                raw("axis \(Keymap.evdevName(type: type, code: code)) \(value) (not mapped)")
                return
            }
            let steps = evdev[i].axes[code]!.acceleration.steps(detents: Int(value), at: t)
            let action = value > 0 ? axis.positive : axis.negative
            let text = "axis \(axis.name) \(value > 0 ? "+" : "")\(value)"
            guard let action else {
                raw("\(text) (not mapped)")
                return
            }
            raw("\(text) → \(action.rawValue) ×\(steps)")
            onAction(ActionEvent(action: action, steps: steps, source: "axis \(axis.name)", timestampNs: t))
        default:
            break
        }
    }

    // MARK: - card readers

    /// Starts every card reader of the profile: USB readers are opened and grabbed (missing ones
    /// are looked for again every `evdevRetryMs`), RC522 modules are polled on their own threads.
    public func startCardReaders() {
        for (i, reader) in profile.cardReaders.enumerated() {
            switch reader {
            case .usb(let device):
                guard usbCardReaders[i] == nil else { continue }
                let usb = USBCardReader(
                    spec: device, loop: loop, directory: evdevDirectory, retryMs: evdevRetryMs,
                    onCard: { [unowned self] in self.card($0) }, onProblem: { [unowned self] in self.problem($0) },
                    onRaw: { [unowned self] in self.raw($0) })
                usbCardReaders[i] = usb
                usb.start()
            case .rc522(let config):
                do throws(Errno) {
                    rc522Readers.append(
                        try RC522Reader(
                            config: config, loop: loop, openBus: openRC522Bus, gpioChips: profile.gpioChips,
                            onCard: { [unowned self] in self.card($0) },
                            onProblem: { [unowned self] in self.problem($0) }, onRaw: { [unowned self] in self.raw($0) }
                        ))
                } catch {
                    problem("card reader: cannot start the thread for \(config.devicePath): \(error)")
                }
            }
        }
    }

    /// The RC522 readers poll less often while the box idles (its screen asleep).
    public func setCardReadersIdle(_ idle: Bool) {
        for reader in rc522Readers { reader.setIdle(idle) }
    }

    private func card(_ event: CardEvent) {
        if event.kind == .presented { lastCard = event.uid }
        raw(event.description)
        onCard?(event)
    }

    // MARK: - keyboard

    /// Reads keys from `fd` (standard input by default). A terminal is put in raw mode (no echo, no
    /// line editing) and restored by `stop()`, at exit and on fatal signals; ^C still interrupts.
    public func startKeyboard(fd: Int32 = 0) {
        guard keyboardSource == nil else { return }
        if isatty(fd) == 1 && kiosk_keyboard_raw_begin(fd) != 0 {
            problem("keyboard: cannot set the terminal to raw mode: \(Errno.current.message)")
            return
        }
        do throws(Errno) {
            keyboardSource = try loop.addSource(fd: fd, events: .readable) { [unowned self] _ in self.keyboardReadable()
            }
            keyboardFD = fd
        } catch {
            _ = kiosk_keyboard_raw_end()
            problem("keyboard: cannot watch fd \(fd): \(error)")
        }
    }

    private func keyboardReadable() {
        guard let fd = keyboardFD else { return }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n < 0 && (errno == EINTR || errno == EAGAIN) { return }
        if n <= 0 {
            raw("keyboard: end of input")
            stopKeyboard()
            return
        }
        let now = Syscalls.monotonicNanoseconds()
        for key in keyboardDecoder.keys(from: buffer[0..<n]) { keyPressed(key, at: now) }
    }

    /// A terminal key (from the keyboard or a script). A terminal sends no releases, so each key is
    /// a press; the same key again within 250 ms (autorepeat) counts as a repeat.
    private func keyPressed(_ key: String, at t: UInt64) {
        let action = profile.keyboard[key] ?? profile.keyboard[key.lowercased()]
        var count = 0
        if let last = lastKey, last.key == key, t >= last.at, t - last.at < 250_000_000 { count = last.count + 1 }
        lastKey = (key, t, count)
        guard let action else {
            raw("keyboard \(key) (not mapped)")
            return
        }
        let event = ActionEvent(action: action, repeatCount: count, source: "keyboard \(key)", timestampNs: t)
        raw(event.description)
        onAction(event)
    }

    private func stopKeyboard() {
        if let source = keyboardSource { loop.removeSource(source) }
        keyboardSource = nil
        keyboardFD = nil
        _ = kiosk_keyboard_raw_end()
    }

    // MARK: - event scripts

    /// Replays an event script (see `EventScript`) from now on the loop's timers, through the same
    /// paths as the hardware; `onFinished` runs after the last event. Parse errors are thrown.
    /// Returns the start time: event `t` ms is stamped start + t.
    @discardableResult
    public func startScript(path: String, onFinished: (() -> Void)? = nil) throws(ConfigError) -> UInt64 {
        startScript(try EventScript.load(path, profile: profile), onFinished: onFinished)
    }

    /// Replays a parsed script, starting now. Returns the start time.
    @discardableResult
    public func startScript(_ script: EventScript, onFinished: (() -> Void)? = nil) -> UInt64 {
        let id = nextScript
        nextScript += 1
        let start = Syscalls.monotonicNanoseconds()
        scheduleScript(id, script, start: start, index: 0, onFinished: onFinished)
        return start
    }

    private func scheduleScript(
        _ id: Int, _ script: EventScript, start: UInt64, index: Int, onFinished: (() -> Void)?
    ) {
        guard index < script.events.count else {
            scriptTimers[id] = nil
            onFinished?()
            return
        }
        let event = script.events[index]
        let t = start + event.offsetNs
        scriptTimers[id] = loop.schedule(atNanoseconds: t) { [unowned self] in
            self.inject(event.kind, at: t)
            self.scheduleScript(id, script, start: start, index: index + 1, onFinished: onFinished)
        }
    }

    /// Feeds one event as its backend would, with its (kernel-style, CLOCK_MONOTONIC) timestamp:
    /// a GPIO line edge goes where the chip's edges go, an evdev event where the device's go.
    /// Event scripts use it; so do tests that replay recorded sequences.
    public func inject(_ kind: EventScript.Event.Kind, at timestampNs: UInt64) {
        scriptEvent(kind, at: timestampNs)
    }

    /// Processes the gesture deadlines (long press, repeats, chords, debounce) due at or before
    /// `timestampNs`, as the loop's timer does when it fires.
    public func advance(to timestampNs: UInt64) {
        gestures.advance(to: timestampNs)
        armTimer()
    }

    private func scriptEvent(_ kind: EventScript.Event.Kind, at t: UInt64) {
        switch kind {
        case .line(let offset, let active):
            lineEdge(offset, active: active, at: t)
        case .key(let key):
            keyPressed(key, at: t)
        case .action(let action):
            let event = ActionEvent(action: action, source: "script", timestampNs: t)
            raw(event.description)
            onAction(event)
        case .evdev(let device, let type, let code, let value):
            evdevEvent(device, type: type, code: code, value: value, at: t)
        case .cardReaderKey(let reader, let code, let value):
            if let usb = usbCardReaders[reader] {
                usb.key(code: code, value: value, at: t)
            } else {
                raw("card reader \(reader) is not started: key ignored")
            }
        case .card(let uid):
            card(CardEvent(.presented, uid: uid, source: "script", timestampNs: t))
        case .cardRemoved(let uid):
            guard let uid = uid ?? lastCard else {
                raw("script: card removed, but none was presented")
                return
            }
            card(CardEvent(.removed, uid: uid, source: "script", timestampNs: t))
        }
        armTimer()
    }

    // MARK: - gestures and the timer

    private func gestureEvent(_ event: Gestures.Event) {
        raw(event.description)
        guard let action = event.action else { return }
        switch event.kind {
        case .press, .longPress, .hold, .chord:
            onAction(
                ActionEvent(
                    action: action, repeatCount: event.repeatCount, source: event.source,
                    timestampNs: event.timestampNs))
        default:
            break
        }
    }

    /// Keeps one loop timer armed for the gestures' next deadline.
    private func armTimer() {
        let next = gestures.nextDeadline
        if next == timerDeadline { return }
        if let timer { loop.cancel(timer) }
        timer = nil
        timerDeadline = next
        guard let next else { return }
        timer = loop.schedule(atNanoseconds: next) { [unowned self] in
            self.timer = nil
            self.timerDeadline = nil
            // Edges stamped before the deadline but not read yet must count first.
            self.drainGPIO()
            self.gestures.advance(to: next)
            self.armTimer()
        }
    }

    // MARK: - stopping

    /// Releases the GPIO lines, closes evdev devices, restores the terminal, stops scripts and
    /// timers. Safe to call twice.
    public func stop() {
        if let timer { loop.cancel(timer) }
        timer = nil
        timerDeadline = nil
        for request in gpioRequests {
            if let source = request.source { loop.removeSource(source) }
        }
        gpioRequests.removeAll()
        gpioChip = nil
        for i in evdev.indices {
            if let source = evdev[i].source { loop.removeSource(source) }
            if let retry = evdev[i].retry { loop.cancel(retry) }
            evdev[i].source = nil
            evdev[i].retry = nil
            evdev[i].device = nil
        }
        stopKeyboard()
        for reader in usbCardReaders.values { reader.stop() }
        usbCardReaders.removeAll()
        for reader in rc522Readers { reader.stop() }
        rc522Readers.removeAll()
        for timer in scriptTimers.values { loop.cancel(timer) }
        scriptTimers.removeAll()
    }

    // MARK: - reporting

    private func problem(_ message: String) {
        problems.append(message)
        Log.error(message)
        raw("problem: \(message)")
    }

    private func raw(_ text: String) {
        onRawEvent?(text)
    }

    static func seconds(_ ns: UInt64) -> String {
        let micro = ns / 1000
        let frac = String(micro % 1_000_000)
        return "\(micro / 1_000_000).\(String(repeating: "0", count: 6 - frac.count))\(frac)"
    }
}
