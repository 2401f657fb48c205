// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskHardware
import KioskModel
import KioskSystem

/// The input router: runs the inputs of a board on the event loop through its backends
/// (`GPIOBackend` for buttons and encoders, `EvdevBackend`, `KeyboardBackend` for the terminal,
/// `CardReaderBackend`) and event scripts. Every backend feeds the same path (`Gestures`,
/// `QuadratureDecoder`, the keymap) and each action reaches `onAction`; cards (`USBCardReader`,
/// `RC522Reader`, scripts) reach `onCard`.
///
/// A backend that fails (no chip, a busy line, a missing device, no permission) logs an error that
/// names the chip and line or the device, records it in `problems`, and the other inputs keep
/// working. An evdev device that is missing or vanishes is retried every `evdevRetryMs`.
///
/// Thread: the event-loop thread only (create, start, stop and deinit there); its backends likewise.
public final class InputManager {
    let loop: EventLoop
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
    /// Each debounced press (true) and release (false) of a button or key, by its gesture source
    /// ("button A", "key KEY_1"), before any gesture is told apart: exhibit mode's clips act on these.
    public var onEdge: ((_ source: String, _ down: Bool) -> Void)?
    /// How the RC522 readers reach their chip (nil: spidev; tests give a simulated chip).
    public var openRC522Bus: RC522Reader.OpenBus?
    /// Every input problem reported so far, as logged.
    public private(set) var problems: [String] = []
    /// The GPIO chip in use, once `startGPIO` found one.
    public var gpioChip: GPIOChip? { gpio.chip }

    private(set) var gestures: Gestures!
    private var gpio: GPIOBackend!
    private var evdev: EvdevBackend!
    private var keyboard: KeyboardBackend!
    private var cardReaders: CardReaderBackend!
    private var timer: TimerID?
    private var timerDeadline: UInt64?
    private var scriptTimers: [Int: TimerID] = [:]
    private var nextScript = 0
    private var warnedClock = false

    /// Sets up the gesture engine and keymap of `profile`; nothing is opened until a `start…` call.
    public init(
        loop: EventLoop, profile: InputProfile, settings: InputSettings, onAction: @escaping (ActionEvent) -> Void
    ) {
        self.loop = loop
        self.profile = profile
        self.settings = settings
        self.onAction = onAction
        gestures = Gestures(settings: settings) { [unowned self] event in self.gestureEvent(event) }
        gpio = GPIOBackend(router: self)
        for chord in profile.chords {
            let members = chord.buttons.compactMap { name in
                profile.buttons.firstIndex { $0.name == name }.map { gpio.buttonIDs[$0] }
            }
            if members.count >= 2 {
                gestures.addChord(
                    members, holdMs: chord.holdMs, action: chord.action,
                    source: "chord \(chord.buttons.joined(separator: "+"))")
            }
        }
        evdev = EvdevBackend(router: self)
        keyboard = KeyboardBackend(router: self)
        cardReaders = CardReaderBackend(router: self)
    }

    deinit {
        stop()
    }

    // MARK: - backends

    /// Finds the GPIO chip and requests every button and encoder line. Each failure is logged
    /// with its chip and line; the lines that worked are used.
    public func startGPIO() {
        loop.assertInLoop()
        gpio.start()
    }

    /// Opens every evdev device of the profile; missing ones are looked for again every `evdevRetryMs`.
    public func startEvdev() {
        loop.assertInLoop()
        evdev.start()
    }

    /// The device of the profile's entries that come and go (Bluetooth headphones' buttons) is the
    /// one named `name` from now on (BlueZ's "<headphones' name> (AVRCP)"), not any whose name ends
    /// like the entry's; nil: any again. A device open under another name is let go.
    public func retargetComingAndGoing(to name: String?) {
        loop.assertInLoop()
        evdev.retargetComingAndGoing(to: name)
    }

    /// Starts every card reader of the profile: USB readers are opened and grabbed (missing ones
    /// are looked for again every `evdevRetryMs`), RC522 modules are polled on their own threads.
    public func startCardReaders() {
        loop.assertInLoop()
        cardReaders.start()
    }

    /// The RC522 readers poll less often while the box idles (its screen asleep).
    public func setCardReadersIdle(_ idle: Bool) {
        loop.assertInLoop()
        cardReaders.setIdle(idle)
    }

    /// Reads keys from `fd` (standard input by default). A terminal is put in raw mode (no echo, no
    /// line editing) and restored by `stop()`, at exit and on fatal signals; ^C still interrupts.
    public func startKeyboard(fd: Int32 = 0) {
        loop.assertInLoop()
        keyboard.start(fd: fd)
    }

    /// A kernel timestamp, or `now` when it is not on CLOCK_MONOTONIC (kernels before 5.7 stamp
    /// GPIO v1 events with CLOCK_REALTIME).
    func checked(_ timestamp: UInt64, now: UInt64) -> UInt64 {
        let ahead = timestamp > now ? timestamp - now : 0
        let behind = now > timestamp ? now - timestamp : 0
        if ahead < 1_000_000_000 && behind < 60_000_000_000 { return timestamp }
        if !warnedClock {
            warnedClock = true
            Log.warning("input: event timestamps are not on CLOCK_MONOTONIC; using the time of reading")
        }
        return now
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
        loop.assertInLoop()
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
        loop.assertInLoop()
        scriptEvent(kind, at: timestampNs)
    }

    /// Processes the gesture deadlines (long press, repeats, chords, debounce) due at or before
    /// `timestampNs`, as the loop's timer does when it fires.
    public func advance(to timestampNs: UInt64) {
        loop.assertInLoop()
        gestures.advance(to: timestampNs)
        eventsHandled()
    }

    private func scriptEvent(_ kind: EventScript.Event.Kind, at t: UInt64) {
        switch kind {
        case .line(let offset, let active):
            gpio.lineEdge(offset, active: active, at: t)
        case .key(let key):
            keyboard.keyPressed(key, at: t)
        case .action(let action):
            let event = ActionEvent(action: action, source: "script", timestampNs: t)
            raw(event.description)
            onAction(event)
        case .evdev(let device, let type, let code, let value):
            evdev.event(device, type: type, code: code, value: value, at: t)
        case .cardReaderKey(let reader, let code, let value):
            cardReaders.key(reader: reader, code: code, value: value, at: t)
        case .card(let uid):
            cardReaders.card(CardEvent(.presented, uid: uid, source: "script", timestampNs: t))
        case .cardRemoved(let uid):
            guard let uid = uid ?? cardReaders.lastCard else {
                raw("script: card removed, but none was presented")
                return
            }
            cardReaders.card(CardEvent(.removed, uid: uid, source: "script", timestampNs: t))
        }
        eventsHandled()
    }

    // MARK: - gestures and the timer

    private func gestureEvent(_ event: Gestures.Event) {
        raw(event.description)
        Log.debug("gesture: \(event) at \(event.timestampNs / 1_000_000) ms")
        switch event.kind {
        case .down: onEdge?(event.source, true)
        case .up: onEdge?(event.source, false)
        default: break
        }
        guard let action = event.action else { return }
        switch event.kind {
        case .press, .longPress, .doublePress, .hold, .chord:
            onAction(
                ActionEvent(
                    action: action, repeatCount: event.repeatCount, source: event.source,
                    timestampNs: event.timestampNs))
        default:
            break
        }
    }

    /// An action of a backend, to `onAction`.
    func emit(_ event: ActionEvent) {
        onAction(event)
    }

    /// Keeps one loop timer armed for the gestures' next deadline: called after every batch of
    /// events a backend or a script handled.
    func eventsHandled() {
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
            self.gpio.drain()
            self.gestures.advance(to: next)
            self.eventsHandled()
        }
    }

    // MARK: - stopping

    /// Releases the GPIO lines, closes evdev devices, restores the terminal, stops scripts and
    /// timers. Safe to call twice.
    public func stop() {
        if let timer { loop.cancel(timer) }
        timer = nil
        timerDeadline = nil
        gpio.stop()
        evdev.stop()
        keyboard.stop()
        cardReaders.stop()
        for timer in scriptTimers.values { loop.cancel(timer) }
        scriptTimers.removeAll()
    }

    // MARK: - reporting

    func problem(_ message: String) {
        problems.append(message)
        Log.error(message)
        raw("problem: \(message)")
    }

    func raw(_ text: String) {
        onRawEvent?(text)
    }

    static func seconds(_ ns: UInt64) -> String {
        let micro = ns / 1000
        let frac = String(micro % 1_000_000)
        return "\(micro / 1_000_000).\(String(repeating: "0", count: 6 - frac.count))\(frac)"
    }
}
