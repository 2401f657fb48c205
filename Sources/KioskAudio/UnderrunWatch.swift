// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// What the output thread notes about its writes so that an underrun can be accounted for
/// (`UnderrunAccount`): when the last good write returned, how long it waited in the device, what
/// the device then held, and whether the thread has since waited for the decoder (an empty ring).
///
/// Thread: the output thread only (a value `OutputWorker` keeps).
struct UnderrunWatch {
    private var lastWriteNanoseconds: UInt64 = 0
    private var lastWriteDuration: UInt64 = 0
    private var queuedAfterLastWrite = 0
    private var waitedForFrames = false

    /// The ring was empty: the thread waits for the decoder.
    mutating func waitingForDecoder() {
        waitedForFrames = true
    }

    /// A good write from `start` to `end` (monotonic nanoseconds) left `queued` frames in the device.
    mutating func wrote(start: UInt64, end: UInt64, queued: Int) {
        // The wait is the write's own; what follows (the position, its events) is time away.
        lastWriteNanoseconds = end
        lastWriteDuration = end &- start
        queuedAfterLastWrite = queued
        waitedForFrames = false
    }

    /// How long the thread was away from the device when it came back to write at `start`: from the
    /// last write's return (taking the frames, the position, its events). Nil when it waited for
    /// the decoder since (that wait is the decoder's lateness, not this thread's) or no write came
    /// before.
    func away(at start: UInt64) -> UInt64? {
        guard lastWriteNanoseconds != 0, !waitedForFrames else { return nil }
        return start &- lastWriteNanoseconds
    }

    /// A write that returned at `now` found the device set up as `device` dry: its account, for the
    /// loop to log (the caller counts it and posts it).
    func underrun(at now: UInt64, device: OutputConfiguration) -> UnderrunAccount {
        let rate = max(1, device.deviceRate)
        return UnderrunAccount(
            awayMilliseconds: Int((now &- lastWriteNanoseconds) / 1_000_000),
            waitMilliseconds: Int(lastWriteDuration / 1_000_000),
            queuedMilliseconds: queuedAfterLastWrite * 1000 / rate,
            bufferMilliseconds: device.bufferFrames * 1000 / rate,
            ringWasEmpty: waitedForFrames)
    }
}
