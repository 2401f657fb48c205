// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import Synchronization
import Testing

@testable import KioskAudio

/// The position the output thread publishes is read whole by other threads.
@Suite struct PlayingPositionTests {
    /// A writer publishes values whose fields agree (frames = id × 1000, index = id mod 1000,
    /// epoch = id) as fast as it can, alternating whole publishes with frame updates of the same
    /// track; a reader on another thread must never see fields of two different values. Read
    /// field by field, as the engine did before, this sees torn values within milliseconds on
    /// two cores.
    @Test func aReaderNeverSeesFieldsOfTwoDifferentValues() throws {
        let position = PlayingPosition()
        let done = Atomic<Bool>(false)
        let writer = try KioskThread(name: "test-writer", realtimePriority: nil) {
            var id: UInt64 = 1
            while !done.load(ordering: .relaxed) {
                var value = PlayingSnapshot()
                value.epoch = id
                value.valid = true
                value.trackID = id
                value.index = Int(id % 1000)
                value.frames = Int64(id) * 1000
                position.publish(value)
                // The same track moves on: frames stay within the track's thousand.
                position.setFrames(Int64(id) * 1000 + 999)
                id &+= 1
            }
        }
        var torn = 0
        var distinct = Set<UInt64>()
        // Until the reader has seen the writer move a thousand times (or 10 s on a loaded machine).
        let deadline = Syscalls.monotonicNanoseconds() + 10_000_000_000
        while distinct.count < 1000 && Syscalls.monotonicNanoseconds() < deadline {
            let value = position.read()
            guard value.valid else { continue }
            distinct.insert(value.trackID)
            let consistent =
                value.epoch == value.trackID && value.index == Int(value.trackID % 1000)
                && value.frames / 1000 == Int64(value.trackID)
            if !consistent { torn += 1 }
        }
        done.store(true, ordering: .relaxed)
        writer.join()
        #expect(torn == 0)
        #expect(distinct.count >= 1000, "the reader saw the writer move (\(distinct.count) values)")
    }
}
