// SPDX-License-Identifier: GPL-3.0-or-later
import KioskLibrary
import Testing

@testable import KioskCore

/// The whole matrix of "what plays next" (`PlayQueue.step(after:origin:)`) on a queue of three
/// entries, 0 1 2, in their own order: every origin (the engine's end of its queue, a button's
/// next and previous, MPD's next and previous) with repeat, single, one-shot and consume. MPD 0.23
/// is the reference for the remote origins and for single and consume (its `Queue::GetNextOrder`
/// and the border pause of single mode); SingleConsumeTests play the same on the player.
@Suite struct PlayQueueStepTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let origin: PlayQueue.Origin
        let from: Int
        var repeats = false
        var single = SingleMode.off
        var consume = false
        let transition: PlayQueue.Transition
        var consumed: Int? = nil
        var singleAfter: SingleMode? = nil

        var testDescription: String {
            var modes: [String] = []
            if repeats { modes.append("repeat") }
            if single != .off { modes.append("single \(single.rawValue)") }
            if consume { modes.append("consume") }
            return "\(origin) from \(from)\(modes.isEmpty ? "" : " with " + modes.joined(separator: ", "))"
        }
    }

    static let rows: [Row] = [
        // The engine played its queue to the end (the last entry; in single mode the current one).
        Row(origin: .ended, from: 2, transition: .end),
        Row(origin: .ended, from: 2, repeats: true, transition: .start(at: 0, state: .playing)),
        Row(origin: .ended, from: 0, single: .on, transition: .start(at: 1, state: .paused), singleAfter: .on),
        Row(origin: .ended, from: 0, single: .oneshot, transition: .start(at: 1, state: .paused), singleAfter: .off),
        Row(origin: .ended, from: 0, repeats: true, single: .on, transition: .start(at: 0, state: .playing)),
        Row(origin: .ended, from: 2, single: .on, transition: .end),
        Row(origin: .ended, from: 2, consume: true, transition: .end, consumed: 2),
        Row(
            origin: .ended, from: 2, repeats: true, consume: true, transition: .start(at: 0, state: .playing),
            consumed: 2),
        Row(
            origin: .ended, from: 0, single: .on, consume: true, transition: .start(at: 0, state: .paused), consumed: 0),
        // A button's next: gapless inside the engine's queue, the play state kept.
        Row(origin: .next, from: 0, transition: .gapless(to: 1)),
        Row(origin: .next, from: 2, transition: .end),
        Row(origin: .next, from: 2, repeats: true, transition: .start(at: 0, state: .kept)),
        Row(origin: .next, from: 0, single: .on, transition: .start(at: 1, state: .kept)),
        Row(origin: .next, from: 0, consume: true, transition: .start(at: 0, state: .kept), consumed: 0),
        Row(origin: .next, from: 2, consume: true, transition: .end, consumed: 2),
        // A button's previous: the start of the track after 3 s or on the first entry.
        Row(origin: .previous(playedSeconds: 1), from: 1, transition: .gapless(to: 0)),
        Row(origin: .previous(playedSeconds: 5), from: 1, transition: .restart),
        Row(origin: .previous(playedSeconds: 1), from: 0, transition: .restart),
        Row(origin: .previous(playedSeconds: 1), from: 0, repeats: true, transition: .restart),
        Row(origin: .previous(playedSeconds: 1), from: 1, single: .on, transition: .start(at: 0, state: .kept)),
        Row(origin: .previous(playedSeconds: 1), from: 1, consume: true, transition: .start(at: 0, state: .kept)),
        // MPD's next always plays; at the end it stops (or wraps with repeat).
        Row(origin: .remoteNext, from: 0, transition: .start(at: 1, state: .playing)),
        Row(origin: .remoteNext, from: 2, transition: .end),
        Row(origin: .remoteNext, from: 2, repeats: true, transition: .start(at: 0, state: .playing)),
        Row(origin: .remoteNext, from: 0, single: .on, transition: .start(at: 1, state: .playing)),
        Row(origin: .remoteNext, from: 0, consume: true, transition: .start(at: 0, state: .playing), consumed: 0),
        Row(origin: .remoteNext, from: 2, consume: true, transition: .end, consumed: 2),
        // MPD's previous: the entry before; on the first, the last with repeat, else the first again.
        Row(origin: .remotePrevious, from: 2, transition: .start(at: 1, state: .playing)),
        Row(origin: .remotePrevious, from: 0, transition: .start(at: 0, state: .playing)),
        Row(origin: .remotePrevious, from: 0, repeats: true, transition: .start(at: 2, state: .playing)),
    ]

    @Test(arguments: rows) func theStepIsTheRowsTransition(_ row: Row) throws {
        var queue = try PlayQueue.ofThree(at: row.from)
        queue.repeats = row.repeats
        queue.single = row.single
        queue.consume = row.consume
        let before = queue.tracks
        let (transition, consumed) = queue.step(after: row.from, origin: row.origin)
        #expect(transition == row.transition)
        #expect(consumed == row.consumed)
        var expected = before
        if let gone = row.consumed { expected.remove(at: gone) }
        #expect(queue.tracks == expected, "the entries left")
        #expect(queue.single == (row.singleAfter ?? row.single))
    }

    @Test func consumingTheOnlyEntryEmptiesTheQueueWhateverTheRepeat() throws {
        for origin in [PlayQueue.Origin.ended, .next, .remoteNext] {
            for repeats in [false, true] {
                var queue = try PlayQueue.ofThree(at: 0)
                queue.replace(with: [queue.tracks[0]], collection: nil)
                queue.repeats = repeats
                queue.consume = true
                let (transition, consumed) = queue.step(after: 0, origin: origin)
                #expect(transition == .empty && consumed == 0, "\(origin), repeat \(repeats)")
                #expect(queue.isEmpty)
            }
        }
    }

    @Test func anEmptyQueueHasNothingToPlayNext() {
        var queue = PlayQueue(repeats: true)
        #expect(queue.step(after: 0, origin: .remoteNext) == (.empty, nil))
    }

    @Test func aTrackBorderPlayedPastIsConsumedButAJumpThePlayerMadeIsNot() throws {
        var queue = try PlayQueue.ofThree(at: 0)
        queue.consume = true
        _ = queue.handOver(at: 0)
        // The engine moved on by itself to entry 1: entry 0 was played past.
        #expect(queue.engineStarted(id: queue.engineID(ofEntry: 1)) == 0)
        #expect(queue.count == 2)
        // The player jumped to the last entry: the one it left stays.
        _ = queue.handOver(at: 1)
        #expect(queue.engineStarted(id: queue.engineID(ofEntry: 1)) == 1)
        #expect(queue.count == 2)
    }
}

extension PlayQueue {
    /// Three tracks of the fixture's first album, in their order, entry `index` current.
    static func ofThree(at index: Int) throws -> PlayQueue {
        var queue = PlayQueue()
        queue.replace(with: Array(try PlayQueueFixture.tracks().prefix(3)), collection: nil)
        queue.index = index
        return queue
    }
}
