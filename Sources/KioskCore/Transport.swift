// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig

/// Playback status as the user sees it.
public enum PlaybackStatus: String, Sendable {
    case stopped, playing, paused
}

/// Where playback is — playing, paused or stopped, how far into the current track (as the engine
/// last reported it, in the track's frames) — and the volume. A part of the player: its state
/// changes only in `handle`, which returns what the rest of the player must do about it (the
/// engine, the saves), applied in one place (`Player.apply(_:)`).
///
/// Thread: any (a value); the player's copy lives on the loop thread.
struct Transport: Equatable {
    private(set) var status = PlaybackStatus.stopped
    /// Frames of the current track played so far, and its rate.
    private(set) var positionFrames: Int64 = 0
    private(set) var sampleRate = 0
    /// Jumps within a track the player asked of the engine (a seek, a restart), counted: a remote
    /// client is told of each (MPD's `player` idle event), however short.
    private(set) var jumps: UInt64 = 0
    /// The volume and its limits.
    private(set) var volume: VolumeControl

    init(volume: VolumeControl) { self.volume = volume }

    var positionSeconds: Double { sampleRate > 0 ? Double(positionFrames) / Double(sampleRate) : 0 }

    /// What happens to the transport.
    enum Event: Equatable {
        /// Play from where it is (the queue is not empty).
        case play
        case pause
        /// Continue after a pause, or from a position the engine holds.
        case resume
        /// Stop and rewind to the start of the current track.
        case stop
        /// The status, with what follows it (the player started a queue, finished one, ...).
        case status(PlaybackStatus)
        /// Move to a frame of the current track, keeping the play state.
        case seek(toFrame: Int64)
        /// The engine says where it is (or a queue was handed over starting there).
        case located(frames: Int64, sampleRate: Int)
        /// At the start of a track of `sampleRate` (0: not known yet, the last one stays).
        case rewound(sampleRate: Int)
        /// The volume at `level` (within the limits); `saved`: the resume state keeps it.
        case volume(Int, saved: Bool)
        /// A card's volume limit (nil: none).
        case volumeCeiling(Int?)
        /// Bluetooth headphones' volume limit while they play (nil: none).
        case headphonesCeiling(Int?)
        /// New limits in place of the config's (a parent's change from the phone page).
        case configuredLimits(VolumeLimits)
    }

    mutating func handle(_ event: Event) -> [PlayerEffect] {
        switch event {
        case .play:
            return become(.playing) + [.save(.soon)]
        case .pause:
            return [.engine(.pause)] + become(.paused) + [.save(.now)]
        case .resume:
            // The engine may be positioned rather than paused (a restored position, a track chosen
            // while paused): its play covers both.
            return become(.playing) + [.save(.now)]
        case .stop:
            let effects = [.engine(.stop)] + become(.stopped)
            positionFrames = 0
            return effects + [.save(.now)]
        case .status(let status):
            return become(status)
        case .seek(let frame):
            positionFrames = frame
            jumps &+= 1
            return [.engine(.seek(toFrame: frame)), .save(.soon)]
        case .located(let frames, let rate):
            positionFrames = frames
            sampleRate = rate
            return []
        case .rewound(let rate):
            positionFrames = 0
            if rate > 0 { sampleRate = rate }
            return []
        case .volume(let level, let saved):
            let new = volume.limits.clamp(level)
            guard new != volume.level else { return [] }
            volume.level = new
            return [.engine(.setVolume(new))] + (saved ? [.save(.soon)] : [])
        case .volumeCeiling(let percent):
            volume.cardCeiling = percent
            return []
        case .headphonesCeiling(let percent):
            volume.headphonesCeiling = percent
            return []
        case .configuredLimits(let limits):
            volume.configured = limits
            return []
        }
    }

    /// The status, with the engine playing and the periodic saves running only while playing.
    private mutating func become(_ new: PlaybackStatus) -> [PlayerEffect] {
        status = new
        var effects: [PlayerEffect] = []
        // MPD's current song: what plays or is paused.
        if new != .stopped { effects.append(.chooseCurrentEntry) }
        effects += new == .playing ? [.engine(.play), .periodicSaves(true)] : [.periodicSaves(false)]
        return effects
    }
}

/// The volume and what bounds it: the config's limits, lowered by a card's limit
/// (`volume-limit-N`) while one is set and by Bluetooth headphones' own (`bluetooth.maxVolume`)
/// while they play.
///
/// Thread: any (a value); the player's copy lives on the loop thread.
struct VolumeControl: Equatable {
    var configured: VolumeLimits
    var level: Int
    /// A card's limit, on top of the config's.
    var cardCeiling: Int?
    /// The headphones' limit while they play, on top of the others.
    var headphonesCeiling: Int?

    init(configured: VolumeLimits, level: Int) {
        self.configured = configured
        self.level = configured.clamp(level)
    }

    /// The volumes reachable now.
    var limits: VolumeLimits {
        let ceilings = [cardCeiling, headphonesCeiling].compactMap { $0 }
        guard let ceiling = ceilings.min() else { return configured }
        let range = configured.range
        return VolumeLimits(range.lowerBound...max(range.lowerBound, min(range.upperBound, ceiling)))
    }
}
