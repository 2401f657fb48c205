// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig

/// The trigger rules of exhibit mode: what a press, a release or a clip's end does, given which
/// clip plays. Pure: it decides, the player carries the decision out (and tells it when a clip ends).
///
/// - A press of a clip's input while nothing else plays starts it. While its own clip plays:
///   `oneShot` ignores it, `retrigger` starts it again, `toggle` stops it (`holdToPlay` cannot be
///   pressed again before its release). While another clip plays: it starts (cutting that one) only
///   when its `interrupts` allows that clip.
/// - A `holdToPlay` clip stops at its input's release; one that ends while still held leaves
///   silence until the release (a handset off the hook does not get the attract loop).
/// - After a clip stops or ends, the attract loop comes back once `returnAfterSeconds` passed
///   with nothing playing (`advance(to:)`); without an attract loop it stays silent.
///
/// Time is whatever monotonic nanoseconds the caller gives (virtual time in tests).
///
/// Thread: a value; the owner's (the loop thread in the player).
public struct ClipTriggers: Sendable, Equatable {
    /// What to do now.
    public enum Effect: Sendable, Equatable {
        /// Start the clip from its start (cutting whatever plays).
        case play(String)
        /// Stop: silence (the attract loop comes back later).
        case stop
        /// Start the attract loop.
        case attract
        /// Nothing changes; why, for the log.
        case ignored(String)
    }

    public enum State: Sendable, Equatable {
        /// The attract loop plays (or, without one, silence with nothing due).
        case attract
        /// A clip plays; `held` while its holdToPlay input is down.
        case clip(String, held: Bool)
        /// A holdToPlay clip ended while its input is still held.
        case heldAfterEnd(String)
        /// Silence after a clip, until `until` (then the attract loop).
        case returning(until: UInt64)
    }

    public private(set) var state: State = .attract
    private let config: ExhibitConfig

    public init(config: ExhibitConfig) {
        self.config = config
    }

    /// The clip playing, if any.
    public var playing: String? {
        if case .clip(let name, _) = state { return name }
        return nil
    }

    /// When `advance(to:)` has something to do.
    public var nextDeadline: UInt64? {
        if case .returning(let until) = state, config.attract != nil { return until }
        return nil
    }

    /// The input of `clip` went down.
    public mutating func pressed(_ clip: String, at now: UInt64) -> Effect {
        guard let new = config.clip(named: clip) else { return .ignored("no clip \"\(clip)\"") }
        if let current = playing {
            if current == clip {
                switch new.mode {
                case .oneShot: return .ignored("\"\(clip)\" plays once to its end")
                case .retrigger: return start(new)
                case .toggle: return stop(at: now)
                case .holdToPlay: return .ignored("\"\(clip)\" is held already")
                }
            }
            guard new.interrupts.allows(current) else {
                return .ignored("\"\(clip)\" may not interrupt \"\(current)\"")
            }
            return start(new)
        }
        if case .heldAfterEnd(let held) = state, !new.interrupts.allows(held) {
            return .ignored("\"\(clip)\" may not interrupt \"\(held)\" (still held)")
        }
        return start(new)
    }

    /// The input of `clip` went up.
    public mutating func released(_ clip: String, at now: UInt64) -> Effect {
        switch state {
        case .clip(let name, held: true) where name == clip:
            return stop(at: now)
        case .heldAfterEnd(let name) where name == clip:
            return stop(at: now)
        default:
            return .ignored("release of \"\(clip)\" changes nothing")
        }
    }

    /// The playing clip reached its end.
    public mutating func clipEnded(at now: UInt64) -> Effect {
        switch state {
        case .clip(let name, held: true):
            state = .heldAfterEnd(name)
            return .stop
        case .clip:
            return stop(at: now)
        default:
            return .ignored("no clip was playing")
        }
    }

    /// Time passed: the attract loop comes back when its silence is over.
    public mutating func advance(to now: UInt64) -> Effect {
        guard case .returning(let until) = state, config.attract != nil, now >= until else {
            return .ignored("nothing due")
        }
        state = .attract
        return .attract
    }

    private mutating func start(_ clip: ExhibitConfig.Clip) -> Effect {
        state = .clip(clip.name, held: clip.mode == .holdToPlay)
        return .play(clip.name)
    }

    private mutating func stop(at now: UInt64) -> Effect {
        let seconds = config.attract?.returnAfterSeconds ?? 0
        state = .returning(until: now + UInt64(seconds * 1_000_000_000))
        return .stop
    }
}
