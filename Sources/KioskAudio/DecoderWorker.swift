// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// The decoder thread: opens the queue's files one after another and decodes them into the ring,
/// gaplessly while the format allows, with a drain-and-reset of the ring when it changes.
///
/// Thread: its own (the decoder thread) only, after `init` on the loop thread.
final class DecoderWorker: @unchecked Sendable {
    private enum State { case idle, open, decoding }

    private let shared: EngineShared
    private let decoders = DecoderSet()
    /// The current file's decoder (the last one used between files).
    private var decoder: any AudioDecoder
    private var state = State.idle
    private var tracks: [TrackRequest] = []
    private var epoch: UInt64 = 0
    private var index = 0
    private var startFrame: Int64 = 0
    /// The frame the current track ends before (its request's range; nil: the file's end).
    private var endFrame: Int64?
    /// The format the ring is set up for (nil: must be set up before the next frames).
    private var segment: PCMFormat?
    private var resetSequence: UInt64 = 0
    /// Free frames to wait for before decoding a block.
    private var minimumSpace = 4096
    /// Whether the current track decoded a block since open/seek (libFLAC has sized its buffers).
    private var warm = false
    /// The newest target taken off the command queue and not applied yet (latest wins: a burst of
    /// seeks costs one flush, not one each).
    private var waitingTarget: DecoderTarget?

    init(shared: EngineShared) {
        self.shared = shared
        decoder = decoders.decoder(for: .flac)!
    }

    private var ring: RingBuffer { shared.ring }

    func run() {
        while !shared.isShuttingDown {
            if targetWaiting, let target = waitingTarget {
                waitingTarget = nil
                apply(target)
                continue
            }
            switch state {
            case .idle:
                // Ended by the loop's commands (`issue`, `append`) or `shutdown`.
                shared.decoderWake.wait(until: { !self.commands.isEmpty || self.shared.isShuttingDown })
            case .open:
                openNext()
            case .decoding:
                decodeStep()
            }
        }
        decoder.close()
    }

    private var commands: CommandQueue<DecoderCommand> { shared.decoderCommands }

    /// Takes the loop's commands: the newest target waits in `waitingTarget` (an extension of it
    /// goes into it), an extension of the queue playing applies at once. Whether a target waits.
    private var targetWaiting: Bool {
        while let command = commands.receive() {
            switch command {
            case .target(let target):
                waitingTarget = target
            case .extend(let epoch, let tracks):
                if waitingTarget?.epoch == epoch {
                    waitingTarget?.tracks = tracks
                } else if waitingTarget == nil {
                    extend(epoch: epoch, tracks: tracks)
                }
            }
        }
        return waitingTarget != nil
    }

    private func apply(_ target: DecoderTarget) {
        decoder.close()
        // The output drops what it has; afterwards the ring is empty and may change shape.
        guard reset(drain: false, device: target.device) else { return }
        tracks = target.tracks
        index = target.index
        startFrame = target.startFrame
        epoch = target.epoch
        segment = nil
        state = .open
    }

    /// Takes a longer queue for the current epoch: decoding goes on into the new tracks. When the
    /// end of the old queue is already on its way to the output, nothing changes here: its marker
    /// says how many tracks this queue had, and the loop goes on from there when it arrives.
    private func extend(epoch extended: UInt64, tracks more: [TrackRequest]) {
        // A newer target carries the whole queue.
        guard extended == epoch, state != .idle else { return }
        tracks = more
    }

    /// Asks the output to empty the ring, by playing it out (`drain`, in band) or dropping it, and
    /// waits for the acknowledgement. False when interrupted (shutdown, or a new target while
    /// draining: the caller returns to the main loop, which applies it).
    /// A `device` is handed to the output after the flush request (the output takes a device before
    /// it looks for a flush, so when it sees this device it also sees the flush).
    private func reset(drain: Bool, device: String? = nil) -> Bool {
        resetSequence += 1
        let sequence = resetSequence
        if drain {
            var marker = Marker(kind: .segmentEnd, position: ring.writePosition, epoch: epoch)
            marker.sequence = sequence
            guard push(marker) else { return false }
        } else {
            // (6) before (5): the output takes the device before it looks at the request.
            if let device { shared.flushDevice.put(device) }
            shared.flushRequest.store(sequence, ordering: .releasing)
        }
        shared.outputWake.signal()
        // (5) Acquiring: pairs with the output's releasing acknowledgement after it emptied the ring.
        while shared.resetAck.load(ordering: .acquiring) < sequence {
            if shared.isShuttingDown { return false }
            if drain && targetWaiting { return false }
            // Ended by the output's `acknowledge`, the loop's commands (a new target) or `shutdown`.
            shared.decoderWake.wait(until: {
                self.shared.resetAck.load(ordering: .acquiring) >= sequence || self.shared.isShuttingDown
                    || (drain && !self.commands.isEmpty)
            })
        }
        return true
    }

    /// Queues a marker, waiting for room. False when interrupted by shutdown or a new target.
    private func push(_ marker: Marker) -> Bool {
        while !shared.markers.push(marker) {
            if shared.isShuttingDown || targetWaiting { return false }
            // Ended by the output popping a marker (`handle`, `flush`), the loop's commands or
            // `shutdown`; the timeout is a second guard only.
            shared.decoderWake.wait(
                until: { !self.shared.markers.isFull || self.shared.isShuttingDown || !self.commands.isEmpty },
                timeoutNanoseconds: 50_000_000)
        }
        shared.outputWake.signal()
        return true
    }

    private func postError(_ failure: DecodeError, index: Int, id: UInt64) {
        // Waits for room while the loop is busy: an error dropped here was a file never reported.
        shared.post(
            .decodeFailed(TrackMark(epoch: epoch, trackID: id, index: index), failure), to: shared.decoderEvents)
    }

    private func compatible(_ a: PCMFormat, _ b: PCMFormat) -> Bool {
        a.sampleRate == b.sampleRate && a.channels == b.channels && a.ringEncoding == b.ringEncoding
    }

    /// Sets the ring up for `format`, after a drain when it held another format. False when interrupted.
    private func prepareSegment(for format: PCMFormat) -> Bool {
        if let segment, compatible(segment, format) { return true }
        if segment != nil {
            guard reset(drain: true) else { return false }
        }
        // The ring holds the seconds asked for of this stream (faulted in as it first fills), and
        // never less than a few blocks.
        let block = max(decoder.maxBlockSize, 4096)
        let seconds = Int(shared.ringSeconds * Double(format.sampleRate))
        ring.configure(frameBytes: format.channels * format.ringEncoding.bytes, minimumFrames: max(seconds, 4 * block))
        segment = format
        // At most the free space the output wakes this thread for (see `decodeStep`).
        minimumSpace = min(block, ring.producerWakeFrames)
        return true
    }

    private func openNext() {
        guard index >= 0 && index < tracks.count else {
            var end = Marker(kind: .queueEnd, position: ring.writePosition, epoch: epoch)
            end.index = tracks.count
            if push(end) { state = .idle }
            return
        }
        let track = tracks[index]
        // A track's range bounds where it starts: a resume or seek before it starts at its start.
        let start = max(startFrame, track.startFrame)
        do throws(DecodeError) {
            decoder = try decoders.open(path: track.path)
            if start > 0 || track.endFrame != nil {
                let end = min(track.endFrame ?? .max, decoder.totalFrames ?? .max)
                if start >= end {
                    // Resuming past the end (the file changed, or its range): go on with the next track.
                    decoder.close()
                    index += 1
                    startFrame = 0
                    return
                }
            }
            if start > 0 { try decoder.seek(toFrame: start) }
        } catch {
            decoders.closeAll()
            postError(error, index: index, id: track.id)
            index += 1
            startFrame = 0
            return
        }
        guard let format = decoder.format, prepareSegment(for: format) else { return }
        var marker = Marker(kind: .trackStart, position: ring.writePosition, epoch: epoch)
        marker.trackID = track.id
        marker.index = index
        marker.format = format
        marker.encoding = format.ringEncoding
        marker.startFrame = start
        marker.totalFrames = decoder.totalFrames ?? -1
        marker.gain = SampleConverter.gain(scale: track.gain)
        guard push(marker) else { return }
        startFrame = 0
        endFrame = track.endFrame
        warm = false
        state = .decoding
    }

    private func decodeStep() {
        let threshold = min(minimumSpace, ring.producerWakeFrames)
        if ring.writable < threshold {
            // Ended by the output's write that frees the ring's `producerWakeFrames` (a quarter of
            // it, at least `threshold`; one wake per refill, not one per write), its discards and
            // marker pops, `issue`, `shutdown`.
            shared.decoderWake.wait(until: {
                self.ring.writable >= threshold || !self.commands.isEmpty || self.shared.isShuttingDown
            })
            return
        }
        var limit = Int.max
        if let endFrame {
            let left = endFrame - decoder.position
            // The range's end is the track's end: what follows it in the file is not played.
            guard left > 0 else { return finishTrack() }
            limit = Int(clamping: left)
        }
        // Until the ring has been written all round, a write may fault a page of it in.
        let steady = warm && ring.isFaultedIn
        let before = shared.allocationProbe.sample()
        let step = decoder.decode(into: ring.writableRegions(limit: limit))
        if case .frames(let n) = step {
            // A waiting output is woken once a batch is there (`consumerWakeFrames`), not for
            // every block; the end of a track or of the queue wakes it for what is left.
            if ring.commitWriteCrossing(n) { shared.outputWake.signal() }
            let after = shared.allocationProbe.sample()
            if steady {
                shared.decoderIterations.add(1, ordering: .relaxed)
                shared.decoderAllocations.add(after.allocations &- before.allocations, ordering: .relaxed)
                shared.decoderLocks.add(after.locks &- before.locks, ordering: .relaxed)
                shared.decoderFaults.add(after.faults &- before.faults, ordering: .relaxed)
            }
            warm = true
            return
        }
        let track = tracks[index]
        switch step {
        case .frames:
            break
        case .formatChange(let format):
            guard prepareSegment(for: format) else { return }
            var marker = Marker(kind: .formatChange, position: ring.writePosition, epoch: epoch)
            marker.trackID = track.id
            marker.index = index
            marker.format = format
            marker.encoding = format.ringEncoding
            marker.startFrame = decoder.position
            marker.totalFrames = decoder.totalFrames ?? -1
            marker.gain = SampleConverter.gain(scale: track.gain)
            _ = push(marker)
        case .endOfStream:
            finishTrack()
        case .failed(let failure):
            decoder.close()
            // The frames decoded so far play while the next file opens (see `finishTrack`).
            shared.outputWake.signal()
            postError(failure, index: index, id: track.id)
            index += 1
            state = .open
        }
    }

    /// The current track is decoded to its end: the next one opens (gaplessly when its format allows).
    private func finishTrack() {
        decoder.close()
        // The last frames may be fewer than a waiting output is woken for: they are all there will
        // be until the next file is open (a slow stick) and its marker queued.
        shared.outputWake.signal()
        endFrame = nil
        index += 1
        state = .open
    }

    /// Total allocator calls of this thread so far (0 without the counter).
    func recordTotals() {
        shared.decoderAllocationsTotal.store(shared.allocationProbe.sample().allocations, ordering: .relaxed)
    }
}
