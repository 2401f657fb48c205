// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// The output's gain: the volume (`AudioEngine.setVolume`), the track's gain (`TrackRequest.gain`,
/// from its trackStart marker), the fade (`AudioEngine.fadeOut`), the declick ramps
/// (`AudioSettings.declickMilliseconds`) and the duck under a spoken prompt (`duck(to:frames:)`)
/// applied to frames on their way to the device, converting them into its encoding in a scratch
/// buffer when they are not sent as they are.
///
/// The fade is the last request seen, its length and progress in device frames; past its end the
/// output is silent until a cancel.
///
/// A track's gain takes over on its first frame: at once when the frames come from the ring (the
/// marker is handled when the ring is read up to it), else after the frames of the previous track
/// the output stage still holds (`trackStarts(gain:after:)`).
///
/// Thread: the output thread only (`OutputWorker` owns it), after `init` on the loop thread.
final class OutputGain {
    /// Frames per fade block: 32 (0.7 ms at 44.1 kHz).
    static let fadeBlockFrames = 32
    /// Frames per declick ramp block: 8.
    static let rampBlockFrames = 8
    /// The most frames one `prepare` converts (the scratch buffer's, at the widest frame: 8
    /// channels × 4 bytes).
    static let scratchFrames = 4096

    /// The volume (`OutputCommand.volume`), Q16.
    var volume = SampleConverter.unity
    /// A fade asked for and not started yet: its length in milliseconds (0: a cancel), converted to
    /// device frames at the next `prepare`, which knows the device's rate.
    private var requestedFadeMilliseconds: Int?
    private var fade: (total: Int, done: Int)?
    private let scratch: UnsafeMutableRawPointer
    /// The gain of the track whose frames go out now (Q16).
    private var trackGain = SampleConverter.unity
    /// The next track's gain, and how many device frames of the previous track come before it (0:
    /// no change waits). Plain values, not an optional tuple: a debug build instantiates a tuple's
    /// type metadata on first use, which allocates on this thread.
    private var nextTrackGain = SampleConverter.unity
    private var framesBeforeNextTrack = 0
    /// The declick ramp under way (`rampIn`/`rampOut`): its length and progress in device frames,
    /// and its direction. Plain values for the same reason as above.
    private var rampTotal = 0
    private var rampDone = 0
    private var rampRising = true
    /// The duck: the gain (Q16) it moves from and to over `duckTotal` frames, `duckDone` of them
    /// gone; at rest when done and at unity (then frames may go out untouched again).
    private var duckFrom = SampleConverter.unity
    private var duckTo = SampleConverter.unity
    private var duckTotal = 0
    private var duckDone = 0

    init() {
        scratch = UnsafeMutableRawPointer.allocate(byteCount: Self.scratchFrames * 32, alignment: 16)
        memset(scratch, 0, Self.scratchFrames * 32)
    }

    deinit { scratch.deallocate() }

    /// The fade's gain (Q16) after `done` of `total` frames: (1 − t)³, which falls about evenly in
    /// loudness (the volume law is the square of the percentage), then 0.
    static func fadeCurve(done: Int, total: Int) -> Int32 {
        guard total > 0, done < total else { return 0 }
        let rest = Double(total - done) / Double(total)
        return Int32(rest * rest * rest * 65536)
    }

    /// The declick ramp's gain (Q16) after `done` of `total` frames: half a cosine from 0 to 1
    /// (rising) or 1 to 0, whose ends have no slope, so the edge itself makes no click.
    static func rampCurve(done: Int, total: Int, rising: Bool) -> Int32 {
        guard total > 0 else { return SampleConverter.unity }
        let t = Double(min(done, total)) / Double(total)
        let up = 0.5 - 0.5 * cos(Double.pi * t)
        return Int32((rising ? up : 1 - up) * 65536)
    }

    /// Whether a declick ramp is under way (a fade-out that has not reached silence yet, or a
    /// fade-in that has not reached full level).
    var isRamping: Bool { rampDone < rampTotal }

    /// The next `frames` device frames rise from silence (after a start, a resume or a skip).
    func rampIn(frames: Int) {
        rampTotal = frames
        rampDone = 0
        rampRising = true
    }

    /// The next `frames` device frames fall to silence (before a pause, a stop or a skip); a
    /// chunk `prepare` gives ends where the ramp ends.
    func rampOut(frames: Int) {
        rampTotal = frames
        rampDone = 0
        rampRising = false
    }

    /// Ends a ramp at once (the stream it belonged to is gone).
    func endRamp() {
        rampTotal = 0
        rampDone = 0
    }

    /// Whether frames go out lowered under a prompt, or on their way down or back up: every chunk
    /// `prepare` gives is then in the scratch buffer, where the prompt is mixed in.
    var isDucked: Bool { duckDone < duckTotal || duckTo != SampleConverter.unity }

    /// The duck's gain (Q16) now.
    private func duckGain(after frames: Int) -> Int32 {
        let done = duckDone + frames
        guard done < duckTotal else { return duckTo }
        let t = Double(done) / Double(duckTotal)
        let moved = 0.5 - 0.5 * cos(Double.pi * t)
        return Int32(Double(duckFrom) + Double(duckTo - duckFrom) * moved)
    }

    /// The next `frames` frames move (half a cosine, as the declick) to `level` (Q16): down under a
    /// prompt, back to unity after it.
    func duck(to level: Int32, frames: Int) {
        duckFrom = duckGain(after: 0)
        duckTo = level
        duckTotal = max(1, frames)
        duckDone = 0
    }

    /// Ends the duck at once (the device is gone).
    func endDuck() {
        duckFrom = SampleConverter.unity
        duckTo = SampleConverter.unity
        duckTotal = 0
        duckDone = 0
    }

    /// The scratch buffer `prepare` gives while `isDucked`, for the prompt to be mixed into.
    var scratchBuffer: UnsafeMutableRawPointer { scratch }

    /// The frames to send for `frames` frames in `encoding` at `source`: the source itself when
    /// the device takes them as they are at full volume, else the scratch buffer (and then at most
    /// `scratchFrames`).
    func prepare(_ source: UnsafeRawPointer, _ encoding: SampleEncoding, frames: Int, device: OutputConfiguration)
        -> (pointer: UnsafeRawPointer, frames: Int)
    {
        let gain = SampleConverter.product(volume, trackGain)
        // A chunk never spans a change of track gain.
        let frames = framesBeforeNextTrack > 0 ? min(frames, framesBeforeNextTrack) : frames
        followFadeRequests(rate: device.deviceRate)
        if isRamping || isDucked {
            // Per block of `rampBlockFrames`: a 5 ms ramp at 44.1 kHz takes 28 steps of under 4 %.
            let count = min(frames, Self.scratchFrames, isRamping ? rampTotal - rampDone : Int.max)
            let channels = device.channels
            let inBytes = encoding.bytes * channels
            let outBytes = device.encoding.bytes * channels
            var offset = 0
            while offset < count {
                let n = min(Self.rampBlockFrames, count - offset)
                var blockGain = Int64(gain)
                if let fade {
                    blockGain = (blockGain * Int64(Self.fadeCurve(done: fade.done + offset, total: fade.total))) >> 16
                }
                if isRamping {
                    let ramp = Self.rampCurve(done: rampDone + offset, total: rampTotal, rising: rampRising)
                    blockGain = (blockGain * Int64(ramp)) >> 16
                }
                if isDucked { blockGain = (blockGain * Int64(duckGain(after: offset))) >> 16 }
                SampleConverter.convert(
                    source + offset * inBytes, encoding, to: scratch + offset * outBytes,
                    device.encoding, samples: n * channels, gain: Int32(blockGain))
                offset += n
            }
            return (UnsafeRawPointer(scratch), count)
        }
        if let fade {
            // Each block of `fadeBlockFrames` gets the curve's gain at its start: over a fade of
            // seconds a block's step is far below what an ear hears as a step.
            let count = min(frames, Self.scratchFrames)
            let channels = device.channels
            let inBytes = encoding.bytes * channels
            let outBytes = device.encoding.bytes * channels
            var offset = 0
            while offset < count {
                let n = min(Self.fadeBlockFrames, count - offset)
                let blockGain = Int32(
                    (Int64(gain) * Int64(Self.fadeCurve(done: fade.done + offset, total: fade.total))) >> 16)
                SampleConverter.convert(
                    source + offset * inBytes, encoding, to: scratch + offset * outBytes,
                    device.encoding, samples: n * channels, gain: blockGain)
                offset += n
            }
            return (UnsafeRawPointer(scratch), count)
        }
        if device.encoding != encoding || gain != SampleConverter.unity {
            let count = min(frames, Self.scratchFrames)
            SampleConverter.convert(
                source, encoding, to: scratch, device.encoding, samples: count * device.channels, gain: gain)
            return (UnsafeRawPointer(scratch), count)
        }
        return (source, frames)
    }

    /// `frames` of what `prepare` gave went to the device: the fade moves on.
    func sent(_ frames: Int) {
        if let f = fade { fade = (f.total, f.done + frames) }
        if rampDone < rampTotal { rampDone = min(rampTotal, rampDone + frames) }
        if duckDone < duckTotal {
            duckDone = min(duckTotal, duckDone + frames)
            if duckDone == duckTotal, duckTo == SampleConverter.unity { endDuck() }
        }
        if framesBeforeNextTrack > 0 {
            if framesBeforeNextTrack <= frames {
                trackGain = nextTrackGain
                framesBeforeNextTrack = 0
            } else {
                framesBeforeNextTrack -= frames
            }
        }
    }

    /// A track (or its next part in another format) with `gain` starts after `held` device frames
    /// of what came before (0: with the next frame). A change still waiting takes effect first.
    func trackStarts(gain: Int32, after held: Int) {
        reset()
        if held <= 0 {
            trackGain = gain
        } else {
            nextTrackGain = gain
            framesBeforeNextTrack = held
        }
    }

    /// After a flush: nothing of the previous stream is left to play.
    func reset() {
        if framesBeforeNextTrack > 0 { trackGain = nextTrackGain }
        framesBeforeNextTrack = 0
    }

    /// The loop asked for a fade of `milliseconds` (0: the fade ends, sound comes back).
    func requestFade(milliseconds: Int) {
        requestedFadeMilliseconds = milliseconds
    }

    /// Starts or ends a fade when the loop asked for one since the last look.
    private func followFadeRequests(rate: Int) {
        guard let milliseconds = requestedFadeMilliseconds else { return }
        requestedFadeMilliseconds = nil
        fade = milliseconds > 0 ? (max(1, milliseconds * rate / 1000), 0) : nil
    }
}
