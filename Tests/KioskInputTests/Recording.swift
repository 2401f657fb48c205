// SPDX-License-Identifier: GPL-3.0-or-later
import KioskInput
import KioskModel

/// Recorded inputs for tests: kernel-style CLOCK_MONOTONIC timestamps (an arbitrary uptime plus
/// the milliseconds of the recording).
enum Recording {
    /// The uptime at which recordings start (about 1 h 23 min after boot).
    static let base: UInt64 = 5_000_123_456_789

    static func ns(_ ms: Double) -> UInt64 { base + UInt64((ms * 1_000_000).rounded()) }
    static func ms(_ ns: UInt64) -> Double { Double(Int64(ns) - Int64(base)) / 1_000_000 }

    /// A contact that bounces: `count` extra transitions 0.3 ms apart after the edge at `at`,
    /// ending at `level`.
    static func bouncy(_ at: Double, to level: Bool, bounces count: Int = 4) -> [(Double, Bool)] {
        var edges: [(Double, Bool)] = [(at, level)]
        var current = level
        for i in 1...(count * 2) {
            current.toggle()
            edges.append((at + 0.3 * Double(i), current))
        }
        return edges
    }
}

/// Collects what a `Gestures` emits.
final class GestureLog {
    var events: [Gestures.Event] = []
    lazy var gestures = Gestures(settings: settings) { [unowned self] in self.events.append($0) }
    let settings: InputSettings

    init(_ settings: InputSettings = InputSettings()) { self.settings = settings }

    func feed(_ id: Gestures.ButtonID, _ edges: [(Double, Bool)]) {
        for (ms, level) in edges { gestures.edge(id, active: level, at: Recording.ns(ms)) }
    }

    /// (action, repeatCount, milliseconds since the recording started) of each action.
    var actions: [(Action, Int, Double)] {
        events.compactMap { e in
            switch e.kind {
            case .press, .longPress, .doublePress, .hold, .chord:
                return e.action.map { ($0, e.repeatCount, Recording.ms(e.timestampNs)) }
            default: return nil
            }
        }
    }

    var actionNames: [String] { actions.map { $0.0.rawValue } }

    func count(_ kind: Gestures.Event.Kind) -> Int { events.filter { $0.kind == kind }.count }
}
