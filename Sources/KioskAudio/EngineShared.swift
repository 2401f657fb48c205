// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import Synchronization

// MARK: - The engine's atomics, and what each pairs with
//
// Three threads share the engine: the loop (L), the decoder (D) and the output (O). They talk
// through the typed channel (EngineChannel.swift): commands L→D and L→O, events D→L and O→L, and
// markers D→O in the ring's frame stream. Every atomic the engine still has is listed here; x86 and
// qemu-user cannot show a missing acquire/release pair, an aarch64 board can, so each names its
// partner. "rel" = releasing store (or read-modify-write), "acq" = acquiring load.
//
// Queues and the ring (one producer, one consumer each):
//  1. `SPSCQueue.tail` (RingBuffer.swift). Producer fills a slot, then stores `tail` rel; the consumer
//     loads it acq before reading the slot. Queues: `decoderCommands` (L→D), `outputCommands` (L→O),
//     `decoderEvents` (D→L), `outputEvents` (O→L), `markers` (D→O).
//  2. `SPSCQueue.head`. Consumer moves the element out, then stores `head` rel; the producer loads it
//     acq before it writes that slot again.
//  3. `RingBuffer.writeIndex` (D writes rel after decoding into the ring; O loads acq before
//     reading frames) and `RingBuffer.readIndex` (O writes rel after the device took frames; D loads
//     acq before overwriting them). The ring's geometry (frame size, capacity) is relaxed: D changes
//     it only while O keeps off, between the flush handshake (5) and the next `writeIndex` rel.
//     Markers are pushed before the frames behind them are committed, so O, reading `writeIndex`
//     first and the marker queue after, sees every marker among the frames it took.
//
// Position (sequence locks, one writer each, readers on any thread):
//  4. `playingPosition` (O writes: `PlayingPosition.publish`/`setFrames`) and `requestedPosition`
//     (L writes in `AudioEngine.issue`). The writer makes the sequence odd (relaxed, then an
//     acquire-release fence), stores the fields relaxed, and stores the even sequence rel; a reader
//     loads the sequence acq, the fields relaxed, fences acq, and retries when the sequence moved.
//
// Handshakes between the audio threads:
//  5. `flushRequest` (D stores rel: "drop the ring, then acknowledge n") → O loads acq, so it sees
//     the device D stored in `flushDevice` before it. `resetAck` (O stores rel after emptying the
//     ring and the markers) → D loads acq before it reconfigures or refills the ring.
//  6. `flushDevice` (`Handoff`, an exchange acq-rel of a pointer): D puts the device before storing
//     `flushRequest`; O takes it (exchange acq-rel) before it looks at `flushRequest`.
//  7. `positionQueued`: O stores true (relaxed, it alone sets it) before pushing a position event;
//     L stores false rel after popping one, and O's acq load sees that before it pushes the next,
//     so at most one position waits in `outputEvents`.
//  8. `shutdown`: L stores true rel, then signals every wait; D and O load acq in every wait's
//     predicate and in `post`, which blocks only while a queue is full.
//
// Counters (relaxed: each is a count read on its own, no other memory hangs on it):
//  9. the steady-state counts (`decoderIterations` … `outputFaults`, `decoderAllocationsTotal`:
//     D or O adds, L reads in `steadyStateCounts`, final after the threads are joined) and
//     `underruns` (O adds; its account goes to L as an `underrun` event) and `longestAway`
//     (O alone stores, the longest yet; any thread reads it for a benchmark or a log line).
//
// Inside KioskSystem: `EventCount`'s futex word (signal after publishing, check the predicate after
// `prepare`; kiosk_audio.h) and its `wakeups` counter (relaxed).

/// State the loop thread, the decoder thread and the output thread share: the typed channel's
/// queues, the ring, the wakes, and the atomics listed above. Everything else is immutable.
///
/// Thread: each member says which thread writes it; see the list above.
final class EngineShared: @unchecked Sendable {
    let ring: RingBuffer
    /// The allocation counter of the benches (`Benchmarks/kiosk_alloc_counter.c`), when preloaded.
    let allocationProbe = AllocationProbe()
    /// D → O: track starts, format changes, segment and queue ends, at frame positions.
    let markers = SPSCQueue<Marker>(capacity: 256)
    let decoderWake = EventCount()
    let outputWake = EventCount()
    /// L → D and L → O.
    let decoderCommands: CommandQueue<DecoderCommand>
    let outputCommands: CommandQueue<OutputCommand>
    /// D → L and O → L.
    let decoderEvents = SPSCQueue<EngineEvent>(capacity: 256)
    let outputEvents = SPSCQueue<EngineEvent>(capacity: 1024)
    /// The eventfd the loop watches for events; owned here, so it stays open while an audio thread
    /// may still signal it and closes with the last reference.
    private let eventDescriptor: FileDescriptor
    var eventFD: Int32 { eventDescriptor.rawValue }
    /// L → audio threads: the loop took events off the queues (signalled after every drain), so a
    /// thread waiting in `post` for room looks again.
    let eventRoom = EventCount()
    /// (7) O → L: a position event is queued.
    let positionQueued = Atomic<Bool>(false)
    /// (5) D → O: reset the ring now (out of band), number `value`.
    let flushRequest = Atomic<UInt64>(0)
    /// (5) O → D: resets done up to this number.
    let resetAck = Atomic<UInt64>(0)
    /// (6) D → O: the device the stream after the flush is for.
    let flushDevice = Handoff<String>()
    /// (8) L → D, O.
    let shutdown = Atomic<Bool>(false)
    /// (4) What the device plays (O writes), read whole.
    let playingPosition = PlayingPosition()
    /// (4) What the loop asked for last (L writes in `issue`), read whole: the position while a
    /// new target is not playing yet.
    let requestedPosition = PlayingPosition()

    // (9) Steady-state measurements (see SteadyStateCounts).
    let decoderIterations = Atomic<UInt64>(0)
    let decoderAllocations = Atomic<UInt64>(0)
    let decoderLocks = Atomic<UInt64>(0)
    let decoderFaults = Atomic<UInt64>(0)
    let decoderAllocationsTotal = Atomic<UInt64>(0)
    let outputIterations = Atomic<UInt64>(0)
    let outputAllocations = Atomic<UInt64>(0)
    let outputLocks = Atomic<UInt64>(0)
    let outputFaults = Atomic<UInt64>(0)
    /// (9) Writes the device refused because it had run dry (EPIPE): what it played was silence.
    let underruns = Atomic<UInt64>(0)
    /// (9) The longest the output thread was away from the device between two writes of one
    /// stretch of sound, in nanoseconds (`UnderrunWatch.away`).
    let longestAway = Atomic<UInt64>(0)

    let settings: AudioSettings
    let bufferMs: Int
    /// `settings.ringSeconds`, clamped: the decoded audio the ring holds, of the stream playing.
    let ringSeconds: Double
    /// `settings.declickMilliseconds`, clamped.
    let declickMs: Int

    init(settings: AudioSettings, eventFD: consuming FileDescriptor) {
        self.settings = settings
        eventDescriptor = eventFD
        bufferMs = max(40, min(100, settings.bufferMs))
        declickMs = max(0, min(50, settings.declickMilliseconds))
        ringSeconds = max(0.25, min(30, settings.ringSeconds))
        // Reserved for the largest stream; each stream uses (and faults in) its own seconds' worth.
        ring = RingBuffer(byteCapacity: Int(ringSeconds * 192_000 * 8))
        decoderCommands = CommandQueue(capacity: 64, wake: decoderWake)
        outputCommands = CommandQueue(capacity: 256, wake: outputWake)
    }

    var isShuttingDown: Bool { shutdown.load(ordering: .acquiring) }

    /// Audio threads: queues an event the loop must see (a track's start or end, the queue's end,
    /// an error, the device's state) and wakes the loop. While the queue is full it waits for the
    /// loop to take events off (`eventRoom`), never drops: a dropped `queueFinished` left the
    /// engine stopped with nobody told (`play` on an unpaced device never exited, 1 run in 25 here,
    /// when the real-time audio threads kept the loop off the CPU). False only at shutdown.
    @discardableResult
    func post(_ event: EngineEvent, to queue: SPSCQueue<EngineEvent>) -> Bool {
        while queue.isFull {
            if isShuttingDown { return false }
            // Ended by the loop's signal after each drain of the queues, or by shutdown's.
            eventRoom.wait(until: { !queue.isFull || self.isShuttingDown })
        }
        queue.push(event)
        Syscalls.eventfdSignal(eventFD)
        return true
    }

    /// Output thread: queues a position event unless the last one is still queued. Positions are
    /// periodic and the loop reads the newest one, so at most one is in the queue: an unpaced device
    /// (thousands of reports a second) cannot fill the queue the other events need.
    func postPosition(_ event: EngineEvent) {
        // (7) Acquiring: pairs with the loop's releasing clear after it took the last one.
        if positionQueued.load(ordering: .acquiring) { return }
        positionQueued.store(true, ordering: .relaxed)
        if outputEvents.push(event) {
            Syscalls.eventfdSignal(eventFD)
        } else {
            positionQueued.store(false, ordering: .relaxed)
        }
    }

    /// Output thread: queues an event the loop may miss (the account of an underrun, which is also
    /// counted) without waiting for room.
    func postIfRoom(_ event: EngineEvent) {
        if outputEvents.push(event) { Syscalls.eventfdSignal(eventFD) }
    }
}
