// SPDX-License-Identifier: GPL-3.0-or-later
/// What the player needs of an audio engine: a queue of tracks to play gaplessly, the transport,
/// the volume and the device, and where the device is. `AudioEngine` is the real one (decoder and
/// output threads, ALSA); player tests use a fake driven by a virtual clock, the way MPD's
/// `player/Outputs.hxx` decouples the player from the outputs to unit-test it.
///
/// The engine reports what happens as `AudioEvent`s, on the loop thread, to the handler it was
/// made with: `trackStarted` when a track begins to sound (after `play`, a queue change, a seek or
/// a device change while playing; not after a pause), `position` about four times a second while
/// playing, `trackFinished` and then `trackStarted` of the next at a boundary, `queueFinished`
/// after the last track (the engine is then stopped past the end), `error` for a track that cannot
/// play (the next one follows), `deviceLost`/`deviceBack`, and `formatChanged`.
///
/// Thread: commands on the loop thread; `currentTrackID` and `positionFrames` from any thread.
public protocol PlaybackEngine: AnyObject {
    /// Replaces the queue and positions the engine at frame `startFrame` of `tracks[index]`,
    /// stopped. A `startFrame` past the end of that track starts at the next one.
    func setQueue(_ tracks: [TrackRequest], startAt index: Int, startFrame: Int64)
    /// Adds tracks at the end of the queue without disturbing playback.
    func append(_ more: [TrackRequest])
    /// Starts or resumes playback (after `queueFinished`: from the first track).
    func play()
    /// Holds playback in place.
    func pause()
    /// Stops and rewinds to the start of the current track.
    func stop()
    /// Jumps to frame `frame` of the current track (past its end: the next track).
    func seek(toFrame frame: Int64)
    /// Goes to the next track (past the last: the queue finishes).
    func next()
    /// Goes to the previous track (on the first: its start).
    func previous()
    /// Sets the volume, 0…100 %.
    func setVolume(_ percent: Int)
    /// Fades what plays out to silence over `milliseconds` of audio (a smooth curve applied per
    /// block of a few frames, so no zipper noise), then stays silent until `cancelFade`.
    func fadeOut(overMilliseconds milliseconds: Int)
    /// Ends a fade (or the silence after one): the volume is what `setVolume` set again.
    func cancelFade()
    /// The next start from silence (a queue set and played, a resume) rises from silence over
    /// `milliseconds` instead of the declick's few (exhibit mode's attract loop coming back).
    func fadeInNextStart(overMilliseconds milliseconds: Int)
    /// Closes a device kept open while stopped (`AudioSettings.keepOpen`) until the next play.
    func releaseDevice()
    /// Switches to another output device, keeping the queue, the position and the play state.
    func setDevice(_ name: String)
    /// The device in use.
    var device: String { get }
    /// Which track the device plays (or is positioned at; nil when none) and the frames of it
    /// played, as one consistent pair.
    var playbackPosition: PlaybackPosition { get }
    /// Stops for good (threads joined, device closed). Calling it twice does nothing.
    func shutdown()
}

extension PlaybackEngine {
    /// The track the device plays (or is positioned at), nil when none.
    public var currentTrackID: UInt64? { playbackPosition.trackID }
    /// Frames of the current track played (of whichever track is current when read: use
    /// `playbackPosition` to know which).
    public var positionFrames: Int64 { playbackPosition.frames }
}

/// A track and the frames of it played, read together. Thread: a value; any.
public struct PlaybackPosition: Equatable, Sendable {
    public var trackID: UInt64?
    public var frames: Int64
    public init(trackID: UInt64?, frames: Int64) {
        self.trackID = trackID
        self.frames = frames
    }
}
