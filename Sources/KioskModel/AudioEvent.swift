// SPDX-License-Identifier: GPL-3.0-or-later
/// What the engine tells the player, delivered on the loop thread through `AudioEngine`'s `onEvent`.
///
/// Thread: a value; any.
public enum AudioEvent: Equatable, Sendable {
    /// The track's first frame was played by the device (for gapless tracks: right after the previous
    /// track's `trackFinished`). `startFrame`: the track's frame it started from (a restored
    /// position, a seek, a range's start), however late the event is handled.
    case trackStarted(id: UInt64, format: PCMFormat, totalFrames: Int64?, startFrame: Int64)
    /// The track's last frame was played. Not sent for a track left by seek, next, previous or stop.
    case trackFinished(id: UInt64)
    /// The queue played to its end; the engine is stopped.
    case queueFinished
    /// About every 250 ms of playback: frames of the current track played so far.
    case position(id: UInt64, frames: Int64, sampleRate: Int)
    /// The file cannot be played (further): the engine skips to the next track. When a damaged file
    /// fails after it started, its played part still ends with `trackFinished`.
    case error(id: UInt64, path: String, message: String)
    /// The output device failed or vanished; the engine keeps its queue and position and reopens the
    /// device with back-off.
    case deviceLost(device: String, message: String)
    /// The device works again after `deviceLost`.
    case deviceBack(device: String)
    /// The device was set up for a new format, e.g. "S24_3LE 96000 Hz 2 ch" (+ " (converted)" when
    /// samples are changed on the way, which is also logged).
    case formatChanged(PCMFormat, deviceFormat: String)
}
