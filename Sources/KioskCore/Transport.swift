// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig

/// Playback status as the user sees it.
public enum PlaybackStatus: String, Sendable {
    case stopped, playing, paused
}

/// Where playback is: playing, paused or stopped, and how far into the current track (as the
/// engine last reported it, in the track's frames).
///
/// Thread: any (a value); the player's copy lives on the loop thread.
struct Transport: Equatable {
    var status = PlaybackStatus.stopped
    /// Frames of the current track played so far, and its rate.
    var positionFrames: Int64 = 0
    var sampleRate = 0
    /// Jumps within a track the player asked of the engine (a seek, a restart), counted: a remote
    /// client is told of each (MPD's `player` idle event), however short.
    var jumps: UInt64 = 0

    var positionSeconds: Double { sampleRate > 0 ? Double(positionFrames) / Double(sampleRate) : 0 }

    /// Where the engine says it is: `frames` into a track of `rate`.
    mutating func report(frames: Int64, rate: Int) {
        positionFrames = frames
        sampleRate = rate
    }

    /// At the start of a track of `sampleRate` (0: the rate is not known yet, the last one stays).
    mutating func rewind(sampleRate rate: Int = 0) {
        positionFrames = 0
        if rate > 0 { sampleRate = rate }
    }
}

/// The volume and what bounds it: the config's limits, lowered by a card's limit
/// (`volume-limit-N`) while one is set.
///
/// Thread: any (a value); the player's copy lives on the loop thread.
struct VolumeControl: Equatable {
    let configured: VolumeLimits
    var level: Int
    /// A card's limit, on top of the config's.
    var cardCeiling: Int?

    init(configured: VolumeLimits, level: Int) {
        self.configured = configured
        self.level = configured.clamp(level)
    }

    /// The volumes reachable now.
    var limits: VolumeLimits {
        guard let ceiling = cardCeiling else { return configured }
        let range = configured.range
        return VolumeLimits(range.lowerBound...max(range.lowerBound, min(range.upperBound, ceiling)))
    }
}
