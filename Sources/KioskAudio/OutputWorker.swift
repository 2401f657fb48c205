// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem

/// The output thread's loop: takes frames from the ring and sends them to the device, follows the
/// decoder's markers (track starts, format changes, resets, end of queue) and the loop's requests
/// (play, pause, stop, reset, device, shutdown), and waits when there is nothing to do.
///
/// Its parts each own their state: `DeviceSession` (the device, its set-up, the output stage, loss
/// and retry), `OutputTimeline` (boundaries, the current track, positions and their events),
/// `OutputGain` (volume and fades) and `UnderrunWatch` (the underrun's account). This type holds
/// only what the ring's side needs: the ring's format, the reset acknowledged, and whether it is
/// dropping a refused track.
///
/// Thread: its own (the output thread) only, after `init` on the loop thread.
final class OutputWorker: @unchecked Sendable {
    private let shared: EngineShared
    private let session: DeviceSession
    private let timeline: OutputTimeline
    private let gain: OutputGain
    private var underrunWatch = UnderrunWatch()

    /// The format the ring holds now, and its encoding (from the last trackStart/formatChange).
    private var ringFormat: PCMFormat?
    private var ringEncoding = SampleEncoding.s16
    private var acknowledged: UInt64 = 0
    /// Dropping the frames of a track the device refused, up to the next marker.
    private var skipping = false
    /// When this thread last waited (in the device, for frames, or asleep), and the frames the device
    /// took since, for `yieldToUnpacedDevice`.
    private var lastWait: UInt64 = 0
    private var framesSinceWait = 0
    /// Whether the last frames that went out were a stream's sound (not its end, not silence): a
    /// hold or a skip then ramps it out first (`fadeOut`).
    private var sounding = false
    /// Whether the next frames come after a silence (a start, a hold, a skip, silence fed while
    /// stopped): they ramp in.
    private var rampInDue = true
    /// Whether the device is running on the silence `feedSilence` gives it (kept open, stopped).
    private var feedingSilence = false
    /// What the loop asked for last (`OutputCommand.transport`).
    private var transport = OutputTransport.stopped
    /// The next ramp in from silence lasts this long (ms; 0: the declick's); taken at that ramp.
    private var nextFadeInMilliseconds = 0
    /// `releaseDevice` asked for since the last look (`keepsDeviceOpen`).
    private var releaseRequested = false
    /// Zeros to feed a device kept open while stopped: `silenceFrames` of the widest frame.
    private let silence: UnsafeMutableRawPointer
    private static let silenceFrames = 4096
    /// The spoken prompt playing between the ring's frames (the ring waits meanwhile).
    private let prompt: PromptPlayback

    init(shared: EngineShared) {
        self.shared = shared
        session = DeviceSession(shared: shared)
        timeline = OutputTimeline(shared: shared, session: session)
        gain = OutputGain()
        silence = UnsafeMutableRawPointer.allocate(byteCount: Self.silenceFrames * 32, alignment: 16)
        memset(silence, 0, Self.silenceFrames * 32)
        prompt = PromptPlayback(shared: shared, session: session, timeline: timeline)
    }

    deinit { silence.deallocate() }

    private var ring: RingBuffer { shared.ring }

    func run() {
        session.start()
        while !shared.isShuttingDown {
            step()
        }
        session.finish()
    }

    /// Follows the loop's commands, in the order given.
    private func followCommands() {
        while let command = shared.outputCommands.receive() {
            switch command {
            case .transport(let asked): transport = asked
            case .volume(let level): gain.volume = level
            case .fadeOut(let milliseconds): gain.requestFade(milliseconds: milliseconds)
            case .cancelFade: gain.requestFade(milliseconds: 0)
            case .fadeInNextStart(let milliseconds): nextFadeInMilliseconds = milliseconds
            case .releaseDevice: releaseRequested = true
            case .device(let name): session.switchDevice(to: name)
            case .prompt(let clip): prompt.hand(clip)
            }
        }
    }

    private func step() {
        followCommands()
        // (6) then (5): the device handed over with a flush is taken before the flush is seen.
        if let name = shared.flushDevice.take() { session.switchDevice(to: name) }
        let request = shared.flushRequest.load(ordering: .acquiring)
        if request > acknowledged {
            flush(request)
            return
        }
        if (prompt.isActive || prompt.isHandedOver) && !mixesPrompt() {
            // The track ramps out before the prompt and back in after it (`fadeOut` asks for that;
            // a prompt mixed under it so far is mixed into the ramp).
            if sounding { fadeOut() }
            if prompt.isMixing || gain.isDucked { gain.endDuck() }
            if let code = prompt.step() {
                lose(code: code, message: nil)
            } else {
                // The track's frames before the prompt play out meanwhile: their boundaries fire.
                updatePosition()
            }
            return
        }
        if transport != .playing {
            let onSilence = holdsOnSilence()
            if sounding { fadeOut(drain: !onSilence) }
            if !onSilence { hold() }
            if transport == .stopped {
                if keepsDeviceOpen() {
                    feedSilence()
                    return
                }
                if session.release() {
                    timeline.restart(at: 0)
                    feedingSilence = false
                    rampInDue = true
                }
            } else if onSilence {
                feedSilence(pausing: true)
                return
            }
            // Ended by the loop's commands (play among them), the decoder's flush request, `shutdown`.
            shared.outputWake.wait(until: { self.shouldWake() })
            return
        }
        session.resume()
        if session.lost {
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
                // Ended as the wait for frames below.
                shared.outputWake.wait(until: {
                    self.ring.readable >= self.ring.consumerWakeFrames || !self.shared.markers.isEmpty
                        || self.shouldWake()
                })
            }
            return
        }
        let configuration = session.configuration
        let limit = shared.markers.peek().map { $0.position - ring.readPosition } ?? (published &- ring.readPosition)
        let chunk = min(limit, configuration.map { max($0.periodFrames, 256) } ?? 4096)
        let regions = ring.readableRegions(limit: chunk)
        if regions.frames == 0 {
            underrunWatch.waitingForDecoder()
            // Ended by the decoder's commit that makes `consumerWakeFrames` readable, its marker
            // `push` or the end of its track (all signal after publishing), the loop's commands (a
            // pause, a prompt), a flush request, `shutdown`: commands wake it at once, frames once
            // there is a batch of them.
            shared.outputWake.wait(until: {
                self.ring.readable >= self.ring.consumerWakeFrames || !self.shared.markers.isEmpty
                    || self.shouldWake()
            })
            waited(at: Syscalls.monotonicNanoseconds())
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
        let before = shared.allocationProbe.sample()
        // libsoxr sizes its buffers on its first blocks after a (re)start, and the device's first
        // buffer starts it: set-up, not steady state.
        let settingUp = session.adapter.isWarmingUp || session.framesBeforeSteadyState > 0
        if write(regions.first, frames: regions.firstFrames), !settingUp {
            let after = shared.allocationProbe.sample()
            shared.outputIterations.add(1, ordering: .relaxed)
            shared.outputAllocations.add(after.allocations &- before.allocations, ordering: .relaxed)
            shared.outputLocks.add(after.locks &- before.locks, ordering: .relaxed)
            shared.outputFaults.add(after.faults &- before.faults, ordering: .relaxed)
        }
    }

    /// Whether the prompt waiting or playing goes under the track's frames (it ducks, a track plays
    /// on a working device set up for it): then the ring is read on and `write` mixes it in. The
    /// duck starts down when the prompt does.
    private func mixesPrompt() -> Bool {
        guard transport == .playing, !skipping, !session.lost,
            let configuration = session.configuration
        else { return false }
        let wasMixing = prompt.isMixing
        guard prompt.mixUnder(configuration) else { return false }
        if !wasMixing, let level = prompt.duckGain { gain.duck(to: level, frames: duckFrames(configuration)) }
        return true
    }

    /// The duck moves down or up over 30 ms.
    private func duckFrames(_ configuration: OutputConfiguration) -> Int {
        max(1, 30 * configuration.deviceRate / 1000)
    }

    /// Whether a wait should end: shutdown, a reset, or a command from the loop (the next `step`
    /// follows it; one that changes nothing there leads back to the same wait).
    private func shouldWake() -> Bool {
        shared.isShuttingDown || shared.flushRequest.load(ordering: .acquiring) > acknowledged
            || !shared.outputCommands.isEmpty
    }

    // MARK: - writing

    /// Writes up to `frames` frames at `source` (ring memory), through the output stage when the
    /// device needs the stream changed; true when frames went out (or into the stage).
    private func write(_ source: UnsafeMutableRawPointer, frames: Int) -> Bool {
        guard session.configuration != nil else { return false }
        let adapter = session.adapter
        guard adapter.isActive else { return write(UnsafeRawPointer(source), ringEncoding, frames: frames) }
        if adapter.pendingFrames == 0 {
            let consumed = adapter.convert(source, ringEncoding, frames: frames)
            if ring.commitReadCrossing(consumed) { shared.decoderWake.signal() }
            // The resampler may keep a first block to itself while its filter fills.
            if adapter.pendingFrames == 0 { return consumed > 0 }
        }
        return write(adapter.pending, .s32, frames: adapter.pendingFrames)
    }

    /// Writes up to `frames` frames in `encoding` at `source` to the device: the ring's frames, or
    /// the output stage's (when it is active); true when frames went out.
    private func write(_ source: UnsafeRawPointer, _ encoding: SampleEncoding, frames: Int) -> Bool {
        guard let output = session.output, let configuration = session.configuration else { return false }
        let fromStage = session.adapter.isActive
        if rampInDue {
            rampInDue = false
            let fadeIn = nextFadeInMilliseconds
            nextFadeInMilliseconds = 0
            if fadeIn > 0 {
                gain.rampIn(frames: max(1, fadeIn * configuration.deviceRate / 1000))
            } else if shared.declickMs > 0 {
                gain.rampIn(frames: declickFrames(configuration))
            }
        }
        // A mixed prompt's chunk ends with the prompt, so the track comes back up right after it.
        let mixing = prompt.isMixing
        let frames = mixing ? max(1, min(frames, prompt.framesLeft)) : frames
        let (pointer, count) = gain.prepare(source, encoding, frames: frames, device: configuration)
        if mixing {
            // While ducked, `prepare` gives its scratch buffer.
            precondition(pointer == UnsafeRawPointer(gain.scratchBuffer))
            prompt.mix(into: gain.scratchBuffer, frames: count)
        }
        let writeStart = Syscalls.monotonicNanoseconds()
        // Only within a stretch of sound: a pause, a hold or a flush ends one (`sounding` false).
        if sounding, let away = underrunWatch.away(at: writeStart),
            away > shared.longestAway.load(ordering: .relaxed)
        {
            shared.longestAway.store(away, ordering: .relaxed)
        }
        let result = output.write(pointer, count: count)
        let writeEnd = Syscalls.monotonicNanoseconds()
        yieldToUnpacedDevice(
            writeStart: writeStart, writeEnd: writeEnd, frames: result, configuration: configuration)
        if result < 0 {
            if result == -Int(EPIPE) {
                shared.underruns.add(1, ordering: .relaxed)
                shared.postIfRoom(.underrun(underrunWatch.underrun(at: writeEnd, device: configuration)))
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
            session.adapter.took(result)
        } else {
            // A decoder waiting for room is woken once per refill (`producerWakeFrames`), and an
            // idle one (the queue decoded to its end) not at all.
            if ring.commitReadCrossing(result) { shared.decoderWake.signal() }
        }
        timeline.wrote(result)
        session.took(result)
        gain.sent(result)
        if mixing, prompt.mixed(result) { gain.duck(to: SampleConverter.unity, frames: duckFrames(configuration)) }
        sounding = true
        feedingSilence = false
        underrunWatch.wrote(start: writeStart, end: writeEnd, queued: updatePosition())
        return true
    }

    // MARK: - declick and silence

    private func declickFrames(_ configuration: OutputConfiguration) -> Int {
        max(1, shared.declickMs * configuration.deviceRate / 1000)
    }

    /// Before a hold or a skip (with `AudioSettings.declickMilliseconds`): the stream's next frames
    /// go out on a falling ramp and the device plays out what it holds, so the sound ends in
    /// silence, not on a cut sample. Those frames count as played: a resume goes on after them
    /// (ramping in). The ramp stops short at a marker or when the ring is empty. Without `drain`
    /// the device is not played out (which stops a DesignWare I2S clock): silence follows the ramp.
    private func fadeOut(drain: Bool = true) {
        sounding = false
        guard shared.declickMs > 0, let configuration = session.configuration, !session.lost else {
            // No ramp out; and a fade-in still rising (the attract loop's) ends with this sound,
            // not on the next stream's first frames.
            gain.endRamp()
            return
        }
        gain.rampOut(frames: declickFrames(configuration))
        var attempts = 0
        while gain.isRamping && attempts < 64 {
            attempts += 1
            let limit =
                shared.markers.peek().map { $0.position - ring.readPosition }
                ?? (ring.writePosition &- ring.readPosition)
            let regions = ring.readableRegions(limit: min(limit, 4096))
            if regions.frames == 0 && session.adapter.pendingFrames == 0 { break }
            if !write(regions.first, frames: regions.firstFrames) { break }
        }
        gain.endRamp()
        sounding = false
        rampInDue = true
        if drain { session.drain() }
        updatePosition()
    }

    /// Whether a stopped output keeps its device open (`AudioSettings.keepOpen`, a device set up
    /// and not lost, no `releaseDevice` since the last look).
    private func keepsDeviceOpen() -> Bool {
        if releaseRequested {
            releaseRequested = false
            return false
        }
        return shared.settings.keepOpen && session.configuration != nil && !session.lost
    }

    /// Whether a pause (and a stop) holds the device on silence rather than pausing or draining it:
    /// with `keepOpen`, on a device that stops its clock then (`AudioSettings.pauseStopsClock`, the
    /// Pi 5's DesignWare I2S) or cannot pause at all (its hw_params say so; pausing drops it).
    private func holdsOnSilence() -> Bool {
        guard shared.settings.keepOpen, let configuration = session.configuration, !session.lost else { return false }
        return shared.settings.pauseStopsClock || !configuration.canPause
    }

    /// Stopped with the device kept open, or paused on silence (`pausing`: the silence counts for
    /// no track, so the position stays where the pause began): keeps about two periods of silence
    /// queued in it, waking once a period (or for play, a reset, a device request, a release, shutdown).
    private func feedSilence(pausing: Bool = false) {
        guard let output = session.output, let configuration = session.configuration else { return }
        if let played = session.dropPausedFrames(written: timeline.written) {
            // A pause in place became a stop: its frames will not play.
            timeline.settle(played: played, device: configuration)
            timeline.restart(at: played)
        }
        rampInDue = true
        let period = min(max(configuration.periodFrames, 64), Self.silenceFrames)
        if session.delay() < 2 * period {
            let result = output.write(silence, count: period)
            if result > 0 {
                feedingSilence = true
                if pausing { timeline.wroteGap(result) } else { timeline.wrote(result) }
                updatePosition()
            } else if result < 0, output.recover(result) < 0 {
                lose(code: Int32(clamping: result), message: nil)
                return
            }
        }
        let periodNs = Int64(period) * 1_000_000_000 / Int64(max(1, configuration.deviceRate))
        // Ended by the timeout (the next period), or as `shouldWake()` (play, `releaseDevice`).
        _ = shared.outputWake.wait(until: { self.shouldWake() }, timeoutNanoseconds: periodNs)
        waited(at: Syscalls.monotonicNanoseconds())
    }

    /// A device that never makes this thread wait (ALSA's file and null plugins take any amount at
    /// once) would keep a real-time thread on its core for a whole file, with the loop queued behind it
    /// (`play --loop-stall` saw 237 ms on a 2-core machine): after 20 ms without a wait in which it took
    /// more than twice that much audio beyond its buffer, it sleeps 1 ms. A sound card plays in real
    /// time, so this never sleeps there: not when a full buffer makes every write wait, and not while
    /// it fills after a start, a seek or a pause (the storm bench found that sleep, 1.05 ms, at every
    /// resume, when the last wait was before the pause).
    private func yieldToUnpacedDevice(
        writeStart: UInt64, writeEnd: UInt64, frames: Int, configuration: OutputConfiguration
    ) {
        if writeEnd &- writeStart > 1_000_000 || lastWait == 0 {
            waited(at: writeEnd)
            return
        }
        framesSinceWait += max(0, frames)
        let elapsed = writeEnd &- lastWait
        guard elapsed > 20_000_000 else { return }
        let rate = UInt64(max(1, configuration.deviceRate))
        let taken = UInt64(framesSinceWait) * 1_000_000_000 / rate
        let buffer = UInt64(max(0, configuration.bufferFrames)) * 1_000_000_000 / rate
        if taken > 2 * elapsed + buffer {
            Syscalls.sleep(nanoseconds: 1_000_000)
            waited(at: Syscalls.monotonicNanoseconds())
        }
    }

    /// The thread waited until `now`: a new stretch for `yieldToUnpacedDevice`.
    private func waited(at now: UInt64) {
        lastWait = now
        framesSinceWait = 0
    }

    /// Fires the boundaries the device has played and publishes the position; returns the
    /// frames the device still holds.
    @discardableResult
    private func updatePosition() -> Int {
        let delay = session.delay()
        timeline.settle(played: timeline.played(delay: delay), device: session.configuration)
        return min(max(0, delay), timeline.written)
    }

    // MARK: - markers

    private func handle(_ marker: Marker) {
        switch marker.kind {
        case .trackStart, .formatChange:
            _ = shared.markers.pop()
            shared.decoderWake.signal()
            var needsSetUp = session.configuration == nil
            if let ringFormat {
                needsSetUp =
                    needsSetUp || ringFormat.sampleRate != marker.format.sampleRate
                    || ringFormat.channels != marker.format.channels || ringEncoding != marker.encoding
            }
            ringFormat = marker.format
            ringEncoding = marker.encoding
            // What came before the marker and is still in the output stage plays first.
            let held = session.adapter.isActive ? session.adapter.heldFrames : 0
            timeline.add(marker, held: held, device: session.configuration)
            gain.trackStarts(gain: marker.gain, after: held)
            if needsSetUp { setUpDevice(for: marker) }
        case .segmentEnd, .queueEnd:
            writeStageTail()
            session.drain()
            // A stream's own end: nothing to ramp out; what follows ramps in.
            sounding = false
            rampInDue = true
            timeline.streamPlayedOut(device: session.configuration)
            _ = shared.markers.pop()
            if marker.kind == .queueEnd {
                timeline.queueEnded(marker, device: session.configuration)
            } else {
                acknowledge(marker.sequence)
            }
            shared.decoderWake.signal()
        }
    }

    /// At a stream's end: what the output stage still holds (the resampler's tail) goes to the
    /// device before it drains. A failed write drops the rest (the device is lost or reset anyway).
    private func writeStageTail() {
        let adapter = session.adapter
        guard adapter.isActive, session.configuration != nil else { return }
        while adapter.pendingFrames > 0 || adapter.flush() {
            let before = timeline.written
            if !write(adapter.pending, .s32, frames: adapter.pendingFrames) || timeline.written == before {
                adapter.reset()
                return
            }
        }
    }

    private func acknowledge(_ sequence: UInt64) {
        acknowledged = max(acknowledged, sequence)
        // (5) Releasing: the decoder that sees this sees the ring and the markers emptied.
        shared.resetAck.store(acknowledged, ordering: .releasing)
        shared.decoderWake.signal()
    }

    /// Out-of-band reset: drop everything, acknowledge, wait for the new stream.
    private func flush(_ request: UInt64) {
        if sounding { fadeOut() }
        if feedingSilence {
            // The silence it holds plays before the new stream: no drop, no restart of its clock.
            session.adapter.reset()
        } else {
            session.drop()
        }
        rampInDue = true
        ring.discardReadable()
        while shared.markers.pop() != nil {}
        skipping = false
        timeline.clear()
        gain.reset()
        acknowledge(request)
    }

    /// Not playing: pause the device in place, or drop what it holds when it cannot pause.
    private func hold() {
        guard let played = session.hold(written: timeline.written) else { return }
        timeline.settle(played: played, device: session.configuration)
        // The dropped frames will not play: what was after them now starts at `played`.
        timeline.restart(at: played)
    }

    // MARK: - device

    private func setUpDevice(for marker: Marker? = nil) {
        guard let ringFormat else { return }
        do throws(AudioOutputError) {
            try session.setUp(for: ringFormat, ringEncoding)
            timeline.restart(at: 0)
            feedingSilence = false
            rampInDue = true
            session.cameBack()
            timeline.reportFormat(ringFormat, device: session.configuration)
        } catch {
            if error.formatRejected, let marker {
                reject(marker, error)
            } else {
                lose(code: error.code, message: error.message)
            }
        }
    }

    /// The device cannot take the stream at `marker`: report the track and drop its frames.
    private func reject(_ marker: Marker, _ error: AudioOutputError) {
        ringFormat = nil
        timeline.reject(marker, reason: error.message)
        skipping = true
    }

    /// The device failed: what it played counts, then it is reported once, closed, and retried
    /// with back-off.
    private func lose(code: Int32, message: String?) {
        sounding = false
        feedingSilence = false
        rampInDue = true
        gain.endRamp()
        gain.endDuck()
        prompt.abandonMix()
        timeline.settle(played: timeline.played(delay: session.delay()), device: session.configuration)
        timeline.restart(at: 0)
        session.lose(code: code, message: message)
    }

    private func retryDevice() {
        let now = Syscalls.monotonicNanoseconds()
        if now < session.nextRetry {
            // Ended by the timeout (the next try), or a stop, flush, device request or shutdown.
            shared.outputWake.wait(until: { self.shouldWake() }, timeoutNanoseconds: Int64(session.nextRetry - now))
            return
        }
        if ringFormat == nil {
            // Nothing to set the device up for yet: the next track's marker will.
            session.backWithoutStream()
            return
        }
        setUpDevice()
    }
}
