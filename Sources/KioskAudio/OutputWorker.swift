import Glibc
import KioskSystem

/// The output thread: takes frames from the ring and writes them to the device, follows the
/// decoder's markers (track starts, format changes, resets, end of queue), keeps the position, and
/// reports events to the loop.
///
/// Positions are counted in device frames: `written` frames went to the device since it was set up,
/// `written - delay` have been played. A marker becomes a "boundary" at the device frame where its
/// data begins and takes effect (track started/finished) when that frame has been played.
///
/// Thread: its own (the output thread) only, after `init` on the loop thread.
final class OutputWorker: @unchecked Sendable {
    private struct Boundary {
        var deviceFrame: Int
        var marker: Marker
    }

    /// A fixed ring of pending boundaries in memory allocated once (no Array growth, no generic
    /// runtime calls on the output thread).
    private struct Boundaries {
        static let capacity = 64
        private let slots = UnsafeMutablePointer<Boundary>.allocate(capacity: Boundaries.capacity)
        private var head = 0
        private(set) var count = 0

        var first: Boundary? { count > 0 ? slots[head] : nil }
        var isFull: Bool { count == Boundaries.capacity }

        mutating func append(_ boundary: Boundary) {
            (slots + (head + count) % Boundaries.capacity).initialize(to: boundary)
            count += 1
        }

        mutating func removeFirst() -> Boundary {
            let boundary = slots[head]
            head = (head + 1) % Boundaries.capacity
            count -= 1
            return boundary
        }

        mutating func removeAll() {
            head = 0
            count = 0
        }

        /// Moves every pending boundary to device frame `frame`.
        func move(to frame: Int) {
            for i in 0..<count { slots[(head + i) % Boundaries.capacity].deviceFrame = frame }
        }

        func deallocate() { slots.deallocate() }
    }

    private let shared: EngineShared
    private var deviceName: String
    private var output: (any AudioOutput)?
    /// The device set-up in use (nil: closed or lost).
    private var configuration: OutputConfiguration?
    /// The format the ring holds now, and its encoding (from the last trackStart/formatChange).
    private var ringFormat: PCMFormat?
    private var ringEncoding = SampleEncoding.s16
    /// The format last reported through formatChanged.
    private var reportedFormat: PCMFormat?

    private var acknowledged: UInt64 = 0
    private var written = 0
    private var boundaries = Boundaries()
    private var current: Marker?
    private var currentStartDevice = 0
    private var nextPositionReport = 0
    private var devicePaused = false
    /// For an underrun's account: when the last good write returned, how long it waited in the
    /// device, what the device then held, and whether the thread has since waited for the decoder
    /// (an empty ring).
    private var lastWriteNanoseconds: UInt64 = 0
    private var lastWriteDuration: UInt64 = 0
    private var queuedAfterLastWrite = 0
    private var waitedForFrames = false
    /// When this thread last waited (in the device, for frames, or asleep), for `yieldToUnpacedDevice`.
    private var lastWait: UInt64 = 0

    /// Dropping the frames of a track the device refused, up to the next marker.
    private var skipping = false
    private var lost = false
    private var retryDelay: UInt64 = 250_000_000
    private var nextRetry: UInt64 = 0

    /// The fade (`AudioEngine.fadeOut`): the last request seen, its length and progress in device
    /// frames (nil: none). Past its end the output is silent until a cancel.
    private var fadeSerialSeen: UInt64 = 0
    private var fade: (total: Int, done: Int)?

    /// Conversion buffer: `scratchFrames` frames of the widest frame (8 channels × 4 bytes).
    private let scratch: UnsafeMutableRawPointer
    private let scratchFrames = 4096
    /// Channels and rate for a device that will not take the stream's (inactive otherwise).
    private let adapter = StreamAdapter()

    init(shared: EngineShared) {
        self.shared = shared
        deviceName = shared.settings.device
        scratch = UnsafeMutableRawPointer.allocate(byteCount: 4096 * 32, alignment: 16)
        memset(scratch, 0, 4096 * 32)
    }

    deinit {
        scratch.deallocate()
        boundaries.deallocate()
    }

    private var ring: RingBuffer { shared.ring }

    private func makeOutput(_ name: String) -> any AudioOutput {
        shared.settings.makeOutput?(name) ?? makeAudioOutput(device: name)
    }

    func run() {
        output = makeOutput(deviceName)
        while !shared.isShuttingDown {
            step()
        }
        if let output {
            output.drop()
            output.close()
        }
    }

    private func step() {
        if let name = shared.deviceRequests.take(), name != deviceName {
            output?.close()
            deviceName = name
            output = makeOutput(name)
            configuration = nil
            if lost { lost = false }
        }
        let request = shared.flushRequest.load(ordering: .acquiring)
        if request > acknowledged {
            flush(request)
            return
        }
        if !shared.playing.load(ordering: .acquiring) {
            hold()
            if shared.stopped.load(ordering: .relaxed) { release() }
            // Ended by the loop's `publishState` (play), the decoder's flush request or device
            // handoff (`reset`), `setDevice` after the end, `shutdown`.
            shared.outputWake.wait(until: { self.shouldWake(playing: true) })
            return
        }
        if devicePaused {
            if let output, configuration != nil { _ = output.pause(false) }
            devicePaused = false
        }
        if lost {
            retryDevice()
            return
        }
        // The published frames first, the markers after: the decoder queues a marker before it
        // commits the frames behind it, so every marker among the frames seen here is visible below.
        // (Peeking first and reading the ring after could take the first frames of a track whose
        // marker came in between for frames of no track: on a start, "frames without a format".)
        let published = ring.writePosition
        if let marker = shared.markers.peek(), marker.position <= ring.readPosition {
            skipping = false
            handle(marker)
            return
        }
        if skipping {
            if let marker = shared.markers.peek() {
                ring.discard(upTo: marker.position)
            } else {
                ring.discard(upTo: published)
                shared.decoderWake.signal()
                // Ended by the decoder's `commitWrite` or `push` (both signal), or as above.
                shared.outputWake.wait(until: {
                    self.ring.readable > 0 || self.shared.markers.peek() != nil || self.shouldWake(playing: false)
                })
            }
            return
        }
        let limit = shared.markers.peek().map { $0.position - ring.readPosition } ?? (published &- ring.readPosition)
        let chunk = min(limit, configuration.map { max($0.periodFrames, 256) } ?? 4096)
        let regions = ring.readableRegions(limit: chunk)
        if regions.frames == 0 {
            waitedForFrames = true
            // Ended by the decoder's `commitWrite` or marker `push` (both signal after publishing),
            // a pause or stop (`publishState`), a flush request, a device request, `shutdown`.
            shared.outputWake.wait(until: {
                self.ring.readable > 0 || self.shared.markers.peek() != nil || self.shouldWake(playing: false)
            })
            lastWait = Syscalls.monotonicNanoseconds()
            return
        }
        if configuration == nil {
            // Frames without a set-up device: after a device switch, set up the new one for them
            // (a failure there loses it); otherwise treat as lost until it comes back.
            if ringFormat != nil {
                setUpDevice()
            } else {
                lose(code: -Int32(ENODEV), message: nil)
            }
            return
        }
        let before = AllocationProbe.sample()
        // libsoxr sizes its buffers on its first blocks after a (re)start: set-up, not steady state.
        let warming = adapter.isWarmingUp
        if write(regions.first, frames: regions.firstFrames), !warming {
            let after = AllocationProbe.sample()
            shared.outputIterations.add(1, ordering: .relaxed)
            shared.outputAllocations.add(after.allocations &- before.allocations, ordering: .relaxed)
            shared.outputLocks.add(after.locks &- before.locks, ordering: .relaxed)
        }
    }

    /// Whether a wait should end: shutdown, a reset, a device change, or (when `playing`) play.
    private func shouldWake(playing: Bool) -> Bool {
        if shared.isShuttingDown || shared.flushRequest.load(ordering: .acquiring) > acknowledged { return true }
        if !shared.deviceRequests.isEmpty { return true }
        let isPlaying = shared.playing.load(ordering: .acquiring)
        return playing ? isPlaying : !isPlaying
    }

    // MARK: - writing

    /// Writes up to `frames` frames at `source` (ring memory), through the output stage when the
    /// device needs the stream changed; true when frames went out (or into the stage).
    private func write(_ source: UnsafeMutableRawPointer, frames: Int) -> Bool {
        guard configuration != nil else { return false }
        guard adapter.isActive else { return write(UnsafeRawPointer(source), ringEncoding, frames: frames) }
        if adapter.pendingFrames == 0 {
            let consumed = adapter.convert(source, ringEncoding, frames: frames)
            ring.commitRead(consumed)
            if ring.writable >= ring.capacityFrames / 4 { shared.decoderWake.signal() }
            // The resampler may keep a first block to itself while its filter fills.
            if adapter.pendingFrames == 0 { return consumed > 0 }
        }
        return write(adapter.pending, .s32, frames: adapter.pendingFrames)
    }

    /// Writes up to `frames` frames in `encoding` at `source` to the device: the ring's frames, or
    /// the output stage's (`fromStage`); true when frames went out.
    private func write(_ source: UnsafeRawPointer, _ encoding: SampleEncoding, frames: Int) -> Bool {
        guard let output, let configuration else { return false }
        let fromStage = adapter.isActive
        var pointer = source
        var count = frames
        let gain = shared.volumeGain.load(ordering: .relaxed)
        followFadeRequests(rate: configuration.deviceRate)
        if let fade {
            // Each block of `fadeBlockFrames` gets the curve's gain at its start: over a fade of
            // seconds a block's step is far below what an ear hears as a step.
            count = min(count, scratchFrames)
            let channels = configuration.channels
            let inBytes = encoding.bytes * channels
            let outBytes = configuration.encoding.bytes * channels
            var offset = 0
            while offset < count {
                let n = min(Self.fadeBlockFrames, count - offset)
                let blockGain = Int32(
                    (Int64(gain) * Int64(Self.fadeCurve(done: fade.done + offset, total: fade.total))) >> 16)
                SampleConverter.convert(
                    pointer + offset * inBytes, encoding, to: scratch + offset * outBytes,
                    configuration.encoding, samples: n * channels, gain: blockGain)
                offset += n
            }
            pointer = UnsafeRawPointer(scratch)
        } else if configuration.encoding != encoding || gain != SampleConverter.unity {
            count = min(count, scratchFrames)
            SampleConverter.convert(
                pointer, encoding, to: scratch, configuration.encoding,
                samples: count * configuration.channels, gain: gain)
            pointer = UnsafeRawPointer(scratch)
        }
        let writeStart = Syscalls.monotonicNanoseconds()
        let result = output.write(pointer, count: count)
        let writeEnd = Syscalls.monotonicNanoseconds()
        yieldToUnpacedDevice(writeStart: writeStart, writeEnd: writeEnd)
        if result < 0 {
            if result == -Int(EPIPE) {
                let rate = max(1, configuration.deviceRate)
                shared.underrunAwayNanoseconds.store(writeEnd &- lastWriteNanoseconds, ordering: .relaxed)
                shared.underrunWaitNanoseconds.store(lastWriteDuration, ordering: .relaxed)
                shared.underrunQueuedMicroseconds.store(queuedAfterLastWrite * 1_000_000 / rate, ordering: .relaxed)
                shared.underrunBufferMicroseconds.store(
                    configuration.bufferFrames * 1_000_000 / rate, ordering: .relaxed)
                shared.underrunRingWasEmpty.store(waitedForFrames, ordering: .relaxed)
                shared.underruns.add(1, ordering: .relaxed)
                // Wakes the loop, which logs the count now rather than at the next event.
                Syscalls.eventfdSignal(shared.eventFD)
            }
            let recovered = output.recover(result)
            if recovered < 0 {
                lose(code: Int32(clamping: recovered), message: nil)
            } else {
                // Underrun or suspend: the device restarted empty (delay 0), what it held was played;
                // a write that timed out on a running stream: the device still holds its frames.
                updatePosition()
            }
            return false
        }
        if fromStage {
            adapter.took(result)
        } else {
            ring.commitRead(result)
            if ring.writable >= ring.capacityFrames / 4 { shared.decoderWake.signal() }
        }
        written += result
        if let f = fade { fade = (f.total, f.done + result) }
        // The wait is the write's own; what follows (the position, its events) is time away.
        lastWriteNanoseconds = writeEnd
        lastWriteDuration = writeEnd &- writeStart
        queuedAfterLastWrite = updatePosition()
        waitedForFrames = false
        return true
    }

    /// A device that never makes this thread wait (ALSA's file and null plugins take any amount at
    /// once) would keep a real-time thread on its core for a whole file, with the loop queued behind it
    /// (`play --loop-stall` saw 237 ms on a 2-core machine): after 20 ms without a wait, it sleeps 1 ms.
    /// A sound card makes every write of a full buffer wait, so this never sleeps there.
    private func yieldToUnpacedDevice(writeStart: UInt64, writeEnd: UInt64) {
        if writeEnd &- writeStart > 1_000_000 || lastWait == 0 {
            lastWait = writeEnd
        } else if writeEnd &- lastWait > 20_000_000 {
            Syscalls.sleep(nanoseconds: 1_000_000)
            lastWait = Syscalls.monotonicNanoseconds()
        }
    }

    /// Frames per fade block: 32 (0.7 ms at 44.1 kHz).
    static let fadeBlockFrames = 32

    /// The fade's gain (Q16) after `done` of `total` frames: (1 − t)³, which falls about evenly in
    /// loudness (the volume law is the square of the percentage), then 0.
    static func fadeCurve(done: Int, total: Int) -> Int32 {
        guard total > 0, done < total else { return 0 }
        let rest = Double(total - done) / Double(total)
        return Int32(rest * rest * rest * 65536)
    }

    /// Starts or ends a fade when the loop asked for one since the last look.
    private func followFadeRequests(rate: Int) {
        let serial = shared.fadeSerial.load(ordering: .acquiring)
        guard serial != fadeSerialSeen else { return }
        fadeSerialSeen = serial
        let milliseconds = shared.fadeMilliseconds.load(ordering: .relaxed)
        fade = milliseconds > 0 ? (max(1, milliseconds * rate / 1000), 0) : nil
    }

    /// Fires the boundaries the device has played and publishes the position; returns the
    /// frames the device still holds.
    @discardableResult
    private func updatePosition() -> Int {
        let delay = min(max(0, output?.delay() ?? 0), written)
        settle(played: written - delay)
        return delay
    }

    private func settle(played: Int) {
        while let first = boundaries.first, first.deviceFrame <= played {
            fire(boundaries.removeFirst())
        }
        guard let current else { return }
        // Device frames are stream frames unless the output stage resamples.
        let deviceRate = configuration?.deviceRate ?? current.format.sampleRate
        var elapsed = Int64(played - currentStartDevice)
        if deviceRate != current.format.sampleRate, deviceRate > 0 {
            elapsed = elapsed * Int64(current.format.sampleRate) / Int64(deviceRate)
        }
        let frames = current.startFrame + elapsed
        shared.playingPosition.setFrames(frames)
        if played >= nextPositionReport {
            nextPositionReport = played + max(1, deviceRate / 4)
            var record = EventRecord(kind: .position, epoch: current.epoch)
            record.trackID = current.trackID
            record.index = current.index
            record.frames = frames
            record.format = current.format
            shared.postPosition(record)
        }
    }

    private func addBoundary(_ marker: Marker) {
        if boundaries.isFull { fire(boundaries.removeFirst()) }
        // What came before the marker and is still in the output stage plays first.
        let held = adapter.isActive ? adapter.heldFrames : 0
        boundaries.append(Boundary(deviceFrame: written + held, marker: marker))
    }

    /// A marker's data is being played: the track (or its new format) is current.
    private func fire(_ boundary: Boundary) {
        let marker = boundary.marker
        switch marker.kind {
        case .trackStart:
            if let current { post(.trackFinished, current) }
            current = marker
            currentStartDevice = boundary.deviceFrame
            nextPositionReport = boundary.deviceFrame
            publish(marker)
            if reportedFormat != marker.format { reportFormat(marker.format) }
            var record = EventRecord(kind: .trackStarted, epoch: marker.epoch)
            record.trackID = marker.trackID
            record.index = marker.index
            record.format = marker.format
            record.totalFrames = marker.totalFrames
            shared.post(record, from: shared.outputEvents)
        case .formatChange:
            current = marker
            currentStartDevice = boundary.deviceFrame
            nextPositionReport = boundary.deviceFrame
            publish(marker)
            if reportedFormat != marker.format { reportFormat(marker.format) }
        case .queueEnd:
            if let current { post(.trackFinished, current) }
            current = nil
            var ended = PlayingSnapshot()
            ended.epoch = marker.epoch
            shared.playingPosition.publish(ended)
            var record = EventRecord(kind: .queueFinished, epoch: marker.epoch)
            record.index = marker.index  // the length of the queue that ended
            shared.post(record, from: shared.outputEvents)
        case .segmentEnd:
            break
        }
    }

    private func publish(_ marker: Marker) {
        var value = PlayingSnapshot()
        value.epoch = marker.epoch
        value.valid = true
        value.trackID = marker.trackID
        value.index = marker.index
        value.frames = marker.startFrame
        shared.playingPosition.publish(value)
    }

    private func post(_ kind: EventRecord.Kind, _ marker: Marker) {
        var record = EventRecord(kind: kind, epoch: marker.epoch)
        record.trackID = marker.trackID
        record.index = marker.index
        shared.post(record, from: shared.outputEvents)
    }

    private func reportFormat(_ format: PCMFormat) {
        guard let configuration else { return }
        reportedFormat = format
        var record = EventRecord(kind: .formatChanged, epoch: current?.epoch ?? 0)
        record.format = format
        record.encoding = configuration.encoding
        record.deviceRate = configuration.deviceRate
        record.deviceChannels = configuration.channels
        record.exact = configuration.exact
        shared.post(record, from: shared.outputEvents)
    }

    // MARK: - markers

    private func handle(_ marker: Marker) {
        switch marker.kind {
        case .trackStart, .formatChange:
            _ = shared.markers.pop()
            shared.decoderWake.signal()
            var needsSetUp = configuration == nil
            if let ringFormat {
                needsSetUp =
                    needsSetUp || ringFormat.sampleRate != marker.format.sampleRate
                    || ringFormat.channels != marker.format.channels || ringEncoding != marker.encoding
            }
            ringFormat = marker.format
            ringEncoding = marker.encoding
            addBoundary(marker)
            if needsSetUp { setUpDevice(for: marker) }
        case .segmentEnd, .queueEnd:
            writeStageTail()
            if let output, configuration != nil { output.drain() }
            settle(played: written)
            written = 0
            _ = shared.markers.pop()
            if marker.kind == .queueEnd {
                fire(Boundary(deviceFrame: 0, marker: marker))
            } else {
                acknowledge(marker.sequence)
            }
            shared.decoderWake.signal()
        }
    }

    /// At a stream's end: what the output stage still holds (the resampler's tail) goes to the
    /// device before it drains. A failed write drops the rest (the device is lost or reset anyway).
    private func writeStageTail() {
        guard adapter.isActive, configuration != nil else { return }
        while adapter.pendingFrames > 0 || adapter.flush() {
            let before = written
            if !write(adapter.pending, .s32, frames: adapter.pendingFrames) || written == before {
                adapter.reset()
                return
            }
        }
    }

    private func acknowledge(_ sequence: UInt64) {
        acknowledged = max(acknowledged, sequence)
        shared.resetAck.store(acknowledged, ordering: .releasing)
        shared.decoderWake.signal()
    }

    /// Out-of-band reset: drop everything, acknowledge, wait for the new stream.
    private func flush(_ request: UInt64) {
        if let output, configuration != nil { output.drop() }
        adapter.reset()
        devicePaused = false
        ring.discardReadable()
        while shared.markers.pop() != nil {}
        skipping = false
        boundaries.removeAll()
        current = nil
        written = 0
        acknowledge(request)
    }

    /// Not playing: pause the device in place, or drop what it holds when it cannot pause.
    private func hold() {
        guard !devicePaused, let output, configuration != nil else { return }
        devicePaused = true
        if written == 0 { return }
        if !output.pause(true) {
            let played = written - min(max(0, output.delay()), written)
            settle(played: played)
            output.drop()
            // The dropped frames will not play: what was after them now starts at `played`.
            boundaries.move(to: played)
            written = played
        }
    }

    // MARK: - device

    /// Stopped: close the device (not lost: the next frames set it up again). What it held is
    /// dropped, as the reset that comes with every stop drops the ring.
    private func release() {
        guard let output, configuration != nil else { return }
        output.drop()
        output.close()
        adapter.reset()
        configuration = nil
        devicePaused = false
        boundaries.move(to: 0)
        written = 0
    }

    private func setUpDevice(for marker: Marker? = nil) {
        guard let ringFormat else { return }
        let device = output ?? makeOutput(deviceName)
        output = device
        do throws(AudioOutputError) {
            let configured = try device.configure(
                ringFormat, source: ringEncoding, bufferMilliseconds: shared.bufferMs)
            try adapter.configure(
                ringFormat, deviceChannels: configured.channels, deviceRate: configured.deviceRate)
            if adapter.isActive {
                // Taken by the loop with the formatChanged below, logged once per stream.
                shared.conversions.put("converted: " + adapter.conversions.joined(separator: ", "))
            } else {
                _ = shared.conversions.take()
            }
            configuration = configured
            written = 0
            boundaries.move(to: 0)
            if lost {
                lost = false
                retryDelay = 250_000_000
                shared.post(EventRecord(kind: .deviceBack, epoch: current?.epoch ?? 0), from: shared.outputEvents)
            }
            reportFormat(ringFormat)
        } catch {
            configuration = nil
            if error.formatRejected, let marker {
                reject(marker, error)
            } else {
                lose(code: error.code, message: error.message)
            }
        }
    }

    /// The device cannot take the stream at `marker`: report the track and drop its frames.
    private func reject(_ marker: Marker, _ error: AudioOutputError) {
        boundaries.removeAll()
        written = 0
        if marker.kind == .trackStart, let current { post(.trackFinished, current) }
        current = nil
        ringFormat = nil
        shared.rejections.put(error.message)
        var record = EventRecord(kind: .error, epoch: marker.epoch)
        record.trackID = marker.trackID
        record.index = marker.index
        record.format = marker.format
        shared.post(record, from: shared.outputEvents)
        skipping = true
    }

    /// The device failed: report it once, close it, and retry with back-off.
    private func lose(code: Int32, message: String?) {
        let played = written - min(max(0, output?.delay() ?? 0), written)
        settle(played: played)
        boundaries.move(to: 0)
        written = 0
        output?.close()
        adapter.reset()
        configuration = nil
        if !lost {
            lost = true
            shared.deviceErrors.put(message ?? "\(deviceName): \(alsaErrorText(code))")
            var record = EventRecord(kind: .deviceLost, epoch: current?.epoch ?? 0)
            record.code = code
            shared.post(record, from: shared.outputEvents)
        } else {
            retryDelay = min(retryDelay * 2, 5_000_000_000)
        }
        nextRetry = Syscalls.monotonicNanoseconds() &+ retryDelay
    }

    private func retryDevice() {
        let now = Syscalls.monotonicNanoseconds()
        if now < nextRetry {
            // Ended by the timeout (the next try), or a stop, flush, device request or shutdown.
            shared.outputWake.wait(
                until: { self.shouldWake(playing: false) }, timeoutNanoseconds: Int64(nextRetry - now))
            return
        }
        if ringFormat == nil {
            // Nothing to set the device up for yet: the next track's marker will.
            lost = false
            shared.post(EventRecord(kind: .deviceBack, epoch: current?.epoch ?? 0), from: shared.outputEvents)
            return
        }
        setUpDevice()
    }
}
