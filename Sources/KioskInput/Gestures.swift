// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// Turns the edges of buttons and keys into gestures: debounce, press and release, short press vs
/// long press, hold-repeat, chords.
///
/// Time is the event timestamps (CLOCK_MONOTONIC nanoseconds, from the kernel) and `advance(to:)`:
/// an edge first advances time to its own timestamp, so every decision is made from timestamps,
/// never from when code happened to run. The owner arms a timer for `nextDeadline` and calls
/// `advance(to:)` with that deadline when it fires (`InputManager` does, on the event loop); tests
/// call it with recorded times.
///
/// Rules, per button:
/// - Debounce: a change counts once the line has been steady for `debounceNs`; it is dated at the
///   first edge of the burst. Shorter glitches count nothing.
/// - A button with only `press` (or `press` equal to `hold`, or only `hold`) acts at once on the
///   press; with `hold`, repeats follow after `repeatDelay`, every `repeat` (repeatCount 1, 2, …).
/// - A button with `longPress` acts on release when released before `longPress` (a short press),
///   or once when the press reaches `longPress` (and not again on release).
/// - A button with `press` and a different `hold` acts `press` on a release before the first repeat.
/// - A button with `doublePress` acts `press` once `doublePressMs` have passed after a short press's
///   release without a second press; a second press in that window acts `doublePress` on its
///   release or, held, repeats `doubleHold` instead of `hold` (one button for next, previous and
///   seeking both ways).
/// - A chord member's press waits for `chordWindow` (or the release, if sooner): if all members
///   of a chord go down within the window, the chord takes the press (no member acts) and its action
///   fires once all have been held `holdNs`; releasing one before cancels it.
///
/// Thread: the event-loop thread (not thread-safe); `emit` runs synchronously inside `edge` and
/// `advance`.
public final class Gestures {
    /// A button registered with `addButton`.
    public struct ButtonID: Hashable, Sendable {
        public let rawValue: Int
    }

    /// What happened, with the action when there is one.
    public struct Event: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: Sendable, Equatable {
            /// The debounced press (no action: acting on it is `press`).
            case down
            /// The debounced release, after `heldNs`.
            case up(heldNs: UInt64)
            /// A short press (or an immediate one).
            case press
            case longPress
            /// A second short press soon after a first (`ButtonBinding.doublePress`).
            case doublePress
            /// A hold-repeat.
            case hold
            /// All buttons of a chord went down together.
            case chordStart
            /// The chord was held long enough.
            case chord
            /// A chord member was released before `holdMs`.
            case chordCancelled
        }
        public let kind: Kind
        public let source: String
        public let action: Action?
        public let repeatCount: Int
        public let timestampNs: UInt64

        public var description: String {
            var text = "\(source) "
            switch kind {
            case .down: text += "down"
            case .up(let held): text += "up (held \(held / 1_000_000) ms)"
            case .press: text += "press"
            case .longPress: text += "long press"
            case .doublePress: text += "double press"
            case .hold: text += "hold \(repeatCount)"
            case .chordStart: text += "pressed together"
            case .chord: text += "held"
            case .chordCancelled: text += "released too soon"
            }
            if let action { text += " → \(action.rawValue)" }
            return text
        }
    }

    private struct Button {
        let source: String
        let binding: ButtonBinding
        let debounceNs: UInt64
        var chords: [Int] = []
        // Debounce.
        var raw = false
        var stable = false
        var burstStart: UInt64?
        var settleAt: UInt64?
        var lastEdge: UInt64 = 0
        // The current press.
        var downAt: UInt64 = 0
        /// A chord took this press, or it began before we could see it: no action until released.
        var consumed = false
        var pressed = false
        var longDone = false
        var repeats = 0
        var deferredAt: UInt64?
        var longAt: UInt64?
        var repeatAt: UInt64?
        /// A short press waiting for a second (`doublePress`): when it acts alone.
        var secondDueBy: UInt64?
        /// This press is the second of a double press.
        var second = false

        /// Acts on the press itself (no long press or double press to tell apart, no different hold
        /// action).
        var actsOnPress: Bool {
            binding.longPress == nil && binding.doublePress == nil
                && (binding.hold == nil || binding.press == nil || binding.press == binding.hold)
        }
        /// What holding this press repeats.
        var holdAction: Action? { second ? binding.doubleHold : binding.hold }
        var immediate: Bool { actsOnPress && chords.isEmpty }
        /// What a short press does.
        var shortAction: Action? { binding.press ?? (binding.longPress == nil ? binding.hold : nil) }
    }

    private struct Chord {
        let members: [Int]
        let holdNs: UInt64
        let action: Action
        let source: String
        var active = false
        var fired = false
        var fireAt: UInt64?
    }

    private enum Deadline: Int {
        case settle, chord, deferred, long, repeats, double
    }

    private var buttons: [Button] = []
    private var chords: [Chord] = []
    private let longPressNs: UInt64
    private let repeatDelayNs: UInt64
    private let repeatNs: UInt64
    private let chordWindowNs: UInt64
    private let doublePressNs: UInt64
    private let emit: (Event) -> Void
    /// The latest time processed.
    public private(set) var now: UInt64 = 0

    /// `emit` receives every event, in time order of processing.
    public init(settings: InputSettings, emit: @escaping (Event) -> Void) {
        longPressNs = UInt64(settings.longPressMs) * 1_000_000
        repeatDelayNs = UInt64(settings.repeatDelayMs) * 1_000_000
        repeatNs = UInt64(max(1, settings.repeatMs)) * 1_000_000
        doublePressNs = UInt64(max(1, settings.doublePressMs)) * 1_000_000
        // A chord window longer than the first long press or repeat would let those fire first.
        chordWindowNs = UInt64(min(settings.chordMs, settings.longPressMs - 1, settings.repeatDelayMs - 1)) * 1_000_000
        self.emit = emit
    }

    /// Registers a button or key named `source` ("button A", "key KEY_OK").
    public func addButton(source: String, binding: ButtonBinding, debounceMs: Int) -> ButtonID {
        buttons.append(Button(source: source, binding: binding, debounceNs: UInt64(max(0, debounceMs)) * 1_000_000))
        return ButtonID(rawValue: buttons.count - 1)
    }

    /// Registers a chord of `members` (at least two), named `source` ("chord A+X").
    public func addChord(_ members: [ButtonID], holdMs: Int, action: Action, source: String) {
        precondition(members.count >= 2, "a chord needs two buttons")
        let index = chords.count
        chords.append(
            Chord(
                members: members.map(\.rawValue), holdNs: UInt64(max(0, holdMs)) * 1_000_000, action: action,
                source: source))
        for member in members { buttons[member.rawValue].chords.append(index) }
    }

    public func source(of id: ButtonID) -> String { buttons[id.rawValue].source }

    /// Sets a button's level without a gesture: at start, or after events were lost. A button found
    /// down is ignored until it is released.
    public func sync(_ id: ButtonID, active: Bool, at timestampNs: UInt64) {
        advance(to: timestampNs)
        var b = buttons[id.rawValue]
        b.raw = active
        b.burstStart = nil
        b.settleAt = nil
        b.deferredAt = nil
        b.longAt = nil
        b.repeatAt = nil
        if active != b.stable {
            b.stable = active
            b.consumed = active
            b.downAt = timestampNs
        }
        buttons[id.rawValue] = b
        if !active { cancelChords(of: id.rawValue, at: timestampNs, report: false) }
    }

    /// An edge of a button: its new (logical) level at the kernel's timestamp.
    public func edge(_ id: ButtonID, active: Bool, at timestampNs: UInt64) {
        advance(to: timestampNs)
        let i = id.rawValue
        let t = max(timestampNs, buttons[i].lastEdge)
        buttons[i].lastEdge = t
        if buttons[i].debounceNs == 0 {
            buttons[i].raw = active
            if active != buttons[i].stable { commit(i, active, at: t) }
            return
        }
        buttons[i].raw = active
        if active != buttons[i].stable && buttons[i].burstStart == nil { buttons[i].burstStart = t }
        buttons[i].settleAt = t + buttons[i].debounceNs
    }

    /// The earliest time at which something is due, if anything is.
    public var nextDeadline: UInt64? { earliest()?.time }

    /// Processes everything due at or before `time`, in time order.
    public func advance(to time: UInt64) {
        while let due = earliest(), due.time <= time {
            now = max(now, due.time)
            fire(due.kind, due.index, at: due.time)
        }
        now = max(now, time)
    }

    // MARK: - internals

    private func earliest() -> (time: UInt64, kind: Deadline, index: Int)? {
        var best: (time: UInt64, kind: Deadline, index: Int)?
        func consider(_ time: UInt64?, _ kind: Deadline, _ index: Int) {
            guard let time else { return }
            if let b = best, (b.time, b.kind.rawValue, b.index) <= (time, kind.rawValue, index) { return }
            best = (time, kind, index)
        }
        for (i, b) in buttons.enumerated() {
            consider(b.settleAt, .settle, i)
            consider(b.deferredAt, .deferred, i)
            consider(b.longAt, .long, i)
            consider(b.repeatAt, .repeats, i)
            consider(b.secondDueBy, .double, i)
        }
        for (i, c) in chords.enumerated() { consider(c.fireAt, .chord, i) }
        return best
    }

    private func fire(_ kind: Deadline, _ i: Int, at t: UInt64) {
        switch kind {
        case .settle:
            let start = buttons[i].burstStart ?? t
            buttons[i].settleAt = nil
            buttons[i].burstStart = nil
            if buttons[i].raw != buttons[i].stable { commit(i, buttons[i].raw, at: start) }
        case .deferred:
            buttons[i].deferredAt = nil
            if let action = buttons[i].shortAction {
                buttons[i].pressed = true
                send(.press, buttons[i].source, action, 0, t)
            }
        case .long:
            buttons[i].longAt = nil
            buttons[i].longDone = true
            send(.longPress, buttons[i].source, buttons[i].binding.longPress, 0, t)
        case .repeats:
            buttons[i].repeats += 1
            buttons[i].repeatAt = t + repeatNs
            send(.hold, buttons[i].source, buttons[i].holdAction, buttons[i].repeats, t)
        case .double:
            // No second press came: the first acts alone.
            buttons[i].secondDueBy = nil
            send(.press, buttons[i].source, buttons[i].shortAction, 0, t)
        case .chord:
            chords[i].fireAt = nil
            chords[i].fired = true
            send(.chord, chords[i].source, chords[i].action, 0, t)
        }
    }

    private func send(_ kind: Event.Kind, _ source: String, _ action: Action?, _ repeatCount: Int, _ t: UInt64) {
        emit(Event(kind: kind, source: source, action: action, repeatCount: repeatCount, timestampNs: t))
    }

    private func commit(_ i: Int, _ active: Bool, at t: UInt64) {
        buttons[i].stable = active
        if active { down(i, at: t) } else { up(i, at: t) }
    }

    private func down(_ i: Int, at t: UInt64) {
        let firstWaiting = buttons[i].secondDueBy != nil
        buttons[i].secondDueBy = nil
        buttons[i].second = firstWaiting
        buttons[i].downAt = t
        buttons[i].consumed = false
        buttons[i].pressed = false
        buttons[i].longDone = false
        buttons[i].repeats = 0
        send(.down, buttons[i].source, nil, 0, t)
        if startChord(completedBy: i, at: t) {
            // A chord took the second press: the first acts alone after all.
            if firstWaiting { send(.press, buttons[i].source, buttons[i].shortAction, 0, t) }
            buttons[i].second = false
            return
        }
        let b = buttons[i]
        if b.immediate {
            if let action = b.shortAction {
                buttons[i].pressed = true
                send(.press, b.source, action, 0, t)
            }
        } else if b.actsOnPress && b.shortAction != nil {
            buttons[i].deferredAt = t + chordWindowNs
        }
        if b.binding.longPress != nil { buttons[i].longAt = t + longPressNs }
        if b.holdAction != nil { buttons[i].repeatAt = t + repeatDelayNs }
    }

    private func up(_ i: Int, at t: UInt64) {
        let b = buttons[i]
        buttons[i].deferredAt = nil
        buttons[i].longAt = nil
        buttons[i].repeatAt = nil
        send(.up(heldNs: t >= b.downAt ? t - b.downAt : 0), b.source, nil, 0, t)
        cancelChords(of: i, at: t, report: true)
        if b.consumed {
            buttons[i].consumed = false
            return
        }
        if let doublePress = b.binding.doublePress {
            buttons[i].second = false
            if b.repeats > 0 || b.pressed { return }
            if b.second {
                send(.doublePress, b.source, doublePress, 0, t)
            } else {
                buttons[i].secondDueBy = t + doublePressNs
            }
            return
        }
        if !b.pressed && !b.longDone && b.repeats == 0, let action = b.shortAction {
            send(.press, b.source, action, 0, t)
        }
    }

    /// Starts every chord that `i` completes: all members down within the window, none acted yet.
    private func startChord(completedBy i: Int, at t: UInt64) -> Bool {
        var started = false
        for c in buttons[i].chords where !chords[c].active {
            let members = chords[c].members
            let ready = members.allSatisfy { m in
                let b = buttons[m]
                return b.stable && !b.consumed && !b.pressed && !b.longDone && b.repeats == 0
                    && t - min(t, b.downAt) <= chordWindowNs
            }
            guard ready else { continue }
            chords[c].active = true
            chords[c].fired = false
            for m in members {
                buttons[m].consumed = true
                buttons[m].deferredAt = nil
                buttons[m].longAt = nil
                buttons[m].repeatAt = nil
            }
            send(.chordStart, chords[c].source, nil, 0, t)
            if chords[c].holdNs == 0 {
                chords[c].fired = true
                send(.chord, chords[c].source, chords[c].action, 0, t)
            } else {
                chords[c].fireAt = t + chords[c].holdNs
            }
            started = true
        }
        return started
    }

    private func cancelChords(of i: Int, at t: UInt64, report: Bool) {
        for c in buttons[i].chords where chords[c].active {
            chords[c].active = false
            chords[c].fireAt = nil
            if !chords[c].fired && report { send(.chordCancelled, chords[c].source, nil, 0, t) }
        }
    }
}
