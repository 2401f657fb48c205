// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Synchronization

/// What the device plays, as one consistent value: the queue generation (epoch), the track (valid,
/// id, index) and the frames of it played. Thread: a value; any.
public struct PlayingSnapshot: Equatable, Sendable {
    public var epoch: UInt64 = 0
    public var valid = false
    public var trackID: UInt64 = 0
    public var index = -1
    public var frames: Int64 = 0
    public init() {}
}

/// The output thread publishes what the device plays; any thread reads it whole. A sequence lock:
/// the writer makes the sequence odd, stores the fields, makes it even again; a reader retries
/// while it saw an odd sequence or the sequence changed under it. So a reader never pairs the new
/// track of a gapless change with the old track's frame count (separate atomics could), and the
/// writer, a real-time thread, never waits. The fields are relaxed atomics so that the retried
/// reads are not data races.
///
/// Thread: `publish`/`setFrames` from one thread only (the output thread); `read` from any.
final class PlayingPosition: Sendable {
    private let sequence = Atomic<UInt64>(0)
    private let epoch = Atomic<UInt64>(0)
    private let valid = Atomic<Bool>(false)
    private let trackID = Atomic<UInt64>(0)
    private let index = Atomic<Int>(-1)
    private let frames = Atomic<Int64>(0)

    /// Replaces the whole value (a track starts, the queue ends).
    func publish(_ value: PlayingSnapshot) {
        let s = sequence.load(ordering: .relaxed)
        sequence.store(s &+ 1, ordering: .relaxed)
        // The odd sequence must be visible before any field changes.
        atomicMemoryFence(ordering: .acquiringAndReleasing)
        epoch.store(value.epoch, ordering: .relaxed)
        valid.store(value.valid, ordering: .relaxed)
        trackID.store(value.trackID, ordering: .relaxed)
        index.store(value.index, ordering: .relaxed)
        frames.store(value.frames, ordering: .relaxed)
        sequence.store(s &+ 2, ordering: .releasing)
    }

    /// Moves the played frames of the current track on.
    func setFrames(_ value: Int64) {
        let s = sequence.load(ordering: .relaxed)
        sequence.store(s &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .acquiringAndReleasing)
        frames.store(value, ordering: .relaxed)
        sequence.store(s &+ 2, ordering: .releasing)
    }

    /// The value as one piece.
    func read() -> PlayingSnapshot {
        var attempts = 0
        while true {
            attempts += 1
            // The writer was descheduled in the middle of a write: let it finish.
            if attempts % 64 == 0 { sched_yield() }
            let before = sequence.load(ordering: .acquiring)
            if before & 1 == 1 { continue }  // a write is under way: a few stores, retry
            var value = PlayingSnapshot()
            value.epoch = epoch.load(ordering: .relaxed)
            value.valid = valid.load(ordering: .relaxed)
            value.trackID = trackID.load(ordering: .relaxed)
            value.index = index.load(ordering: .relaxed)
            value.frames = frames.load(ordering: .relaxed)
            // The field loads must complete before the sequence is read again.
            atomicMemoryFence(ordering: .acquiring)
            if sequence.load(ordering: .relaxed) == before { return value }
        }
    }
}
