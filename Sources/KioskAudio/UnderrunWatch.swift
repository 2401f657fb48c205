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

    /// A write that returned at `now` found the device set up as `device` dry: counts the underrun
    /// with its account and wakes the loop, which logs it now rather than at the next event.
    func underrun(at now: UInt64, device: OutputConfiguration, shared: EngineShared) {
        let rate = max(1, device.deviceRate)
        shared.underrunAwayNanoseconds.store(now &- lastWriteNanoseconds, ordering: .relaxed)
        shared.underrunWaitNanoseconds.store(lastWriteDuration, ordering: .relaxed)
        shared.underrunQueuedMicroseconds.store(queuedAfterLastWrite * 1_000_000 / rate, ordering: .relaxed)
        shared.underrunBufferMicroseconds.store(device.bufferFrames * 1_000_000 / rate, ordering: .relaxed)
        shared.underrunRingWasEmpty.store(waitedForFrames, ordering: .relaxed)
        shared.underruns.add(1, ordering: .relaxed)
        Syscalls.eventfdSignal(shared.eventFD)
    }
}
