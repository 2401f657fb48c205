// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

// The engine's typed channel: commands in (loop → decoder, loop → output), events out (decoder →
// loop, output → loop), each an enum through one `SPSCQueue` per pair of threads. What a command or
// an event means travels with it (a queue, a clip, a message), so nobody reads a field back beside
// it. The few atomics left are listed, with their pairing, in EngineShared.swift.

/// What the decoder should play: a new queue, position or device (`AudioEngine.issue`).
struct DecoderTarget {
    var epoch: UInt64
    var tracks: [TrackRequest]
    var index: Int
    var startFrame: Int64
    /// The device the stream is for: the decoder hands it to the output with the flush, so a
    /// switched device never gets frames decoded for the old one.
    var device: String
}

/// Loop → decoder. Thread: made on the loop thread, taken by the decoder thread.
enum DecoderCommand {
    /// Play `DecoderTarget`; it replaces what every earlier command asked (latest wins).
    case target(DecoderTarget)
    /// The queue of `epoch` is now `tracks`, longer at its end (`AudioEngine.append`).
    case extend(epoch: UInt64, tracks: [TrackRequest])
}

/// What the loop asks the output to do with the stream. Thread: a value; any.
enum OutputTransport: Equatable {
    /// Play the ring's frames.
    case playing
    /// Hold in place, the device kept open.
    case paused
    /// Hold with the device closed until the next play (kept open and fed silence with
    /// `AudioSettings.keepOpen`).
    case stopped
}

/// Loop → output. Thread: made on the loop thread, taken by the output thread.
enum OutputCommand {
    case transport(OutputTransport)
    /// The software volume, Q16 (unity with a hardware mixer).
    case volume(Int32)
    /// Fade out over this many milliseconds (at least 1); silent after it until `cancelFade`.
    case fadeOut(milliseconds: Int)
    case cancelFade
    /// The next ramp in from silence lasts this long (0: the declick's).
    case fadeInNextStart(milliseconds: Int)
    /// Close a device kept open while stopped (`AudioEngine.releaseDevice`).
    case releaseDevice
    /// Use this device from the next stream on (after the queue ended; otherwise the decoder hands
    /// the device over with its flush).
    case device(String)
    /// A spoken prompt, made for the device's set-up (`PromptQueue`).
    case prompt(PromptClip)
}

/// A track as events name it: the queue generation it belongs to, its id and its index there.
/// Thread: a value; any.
struct TrackMark: Equatable {
    var epoch: UInt64
    var trackID: UInt64
    var index: Int
}

/// Audio thread → loop: what happened, with its data. Thread: made on an audio thread, taken on the
/// loop thread. Payloads are structs, not tuples: a debug build instantiates a tuple's type metadata
/// on first use, which allocates on the audio thread.
enum EngineEvent {
    /// The track's first frame was played; `startFrame` is the track's frame it started from.
    case trackStarted(TrackMark, format: PCMFormat, totalFrames: Int64?, startFrame: Int64)
    case trackFinished(TrackMark)
    /// The queue of `epoch` played out; it had `queueLength` tracks (more were appended when the
    /// loop's queue is longer now).
    case queueFinished(epoch: UInt64, queueLength: Int)
    /// Frames of the track played so far (at most one queued at a time, `EngineShared.postPosition`).
    case position(TrackMark, frames: Int64, sampleRate: Int)
    /// The decoder cannot play the file (further).
    case decodeFailed(TrackMark, DecodeError)
    /// The device refused the track's format.
    case refused(TrackMark, format: PCMFormat, reason: String)
    case deviceLost(message: String)
    case deviceBack
    /// The device is set up as `configuration` for a stream; `conversion` says what the output stage
    /// does to it (nil: nothing, or already reported for this set-up).
    case formatChanged(OutputConfiguration, conversion: String?)
    /// The spoken prompt handed over has played, or could not (`failure`).
    case promptFinished(failure: String?)
    /// The prompt was made for another set-up than the device's (`device`).
    case promptRefused(PromptTarget)
    /// The device ran dry (counted in `EngineShared.underruns` whether or not this event fits).
    case underrun(UnderrunAccount)
}

/// A device set-up a prompt is made for. Thread: a value; any.
struct PromptTarget: Equatable {
    var rate = 0
    var channels = 0
    var encoding = SampleEncoding.s16
}

/// The loop's end of a command queue: commands go out in order and never block the loop. When
/// the queue is full (its thread is stuck in a device or a file), they wait here, in order, and
/// `flush()` (called by the next command and by the engine's retry timer) moves them on.
///
/// Thread: `send`, `flush`, `hasBacklog` on the loop thread; `receive`, `isEmpty` on the consuming
/// audio thread.
final class CommandQueue<Command>: @unchecked Sendable {
    private let queue: SPSCQueue<Command>
    /// Signalled after every send, so a waiting consumer looks at the queue.
    let wake: EventCount
    /// Loop thread: commands that did not fit yet.
    private var backlog: [Command] = []

    init(capacity: Int, wake: EventCount) {
        queue = SPSCQueue(capacity: capacity)
        self.wake = wake
    }

    /// Loop: queues `command` behind any backlog and wakes the consumer. False when it waits in
    /// the backlog (the caller arranges a `flush` later).
    @discardableResult
    func send(_ command: Command) -> Bool {
        if backlog.isEmpty && queue.push(command) {
            wake.signal()
            return true
        }
        backlog.append(command)
        return flush()
    }

    /// Loop: moves the backlog into the queue as far as it fits; true when none is left.
    @discardableResult
    func flush() -> Bool {
        var moved = 0
        while moved < backlog.count, queue.push(backlog[moved]) { moved += 1 }
        backlog.removeFirst(moved)
        wake.signal()
        return backlog.isEmpty
    }

    /// Loop: whether commands wait for room.
    var hasBacklog: Bool { !backlog.isEmpty }

    /// Consumer: the next command.
    func receive() -> Command? { queue.pop() }

    /// Consumer: whether no command waits (a wait's predicate).
    var isEmpty: Bool { queue.isEmpty }
}
