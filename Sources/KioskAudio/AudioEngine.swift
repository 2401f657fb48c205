// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem
import Synchronization

/// The audio engine: plays a queue of FLAC files, gaplessly, bit-perfect when the device allows.
///
/// A decoder thread decodes into a preallocated lock-free ring; an output thread writes the ring to
/// the device (ALSA, or the `none` clock sink). The output thread runs with real-time priority when permitted; the decoder at normal priority.
/// Commands go to them as typed values through preallocated queues (`DecoderCommand`,
/// `OutputCommand`); events come back the same way (`EngineEvent`), with an eventfd that is a source
/// of the loop, so `onEvent` runs on the loop thread. The atomics left (the playing position, the
/// counters, the decoder's and output's reset handshake) are listed with their pairing in
/// EngineShared.swift. In the steady state neither audio thread allocates, locks, logs or opens files
/// (`steadyStateCounts` measures it when the allocation counter is preloaded).
///
/// State: stopped, playing or paused. `setQueue` positions the engine (stopped); `play` starts;
/// `pause` holds the device in place; `stop` rewinds to the start of the current track and closes
/// the device until the next `play` (as MPD does; so does `setQueue`);
/// `seek`, `next`, `previous` keep playing or holding as before. After `queueFinished` the engine is
/// stopped past the end; `play` then starts again from the first track.
///
/// Thread: create, command and shut down on the loop thread. `playbackPosition` (and `currentTrackID`,
/// `positionFrames`)
/// may be read from any thread.
public final class AudioEngine: PlaybackEngine {
    private enum State { case stopped, playing, paused }

    private let loop: any EventLoopProtocol
    private let onEvent: (AudioEvent) -> Void
    private let shared: EngineShared
    private var decoderThread: KioskThread?
    private var outputThread: KioskThread?
    private let decoderWorker: DecoderWorker
    private var source: SourceID?
    private var state = State.stopped
    private var tracks: [TrackRequest] = []
    private var epoch: UInt64 = 0
    /// Queues of recent epochs, to name the file of an error that arrives after a queue change.
    private var recentQueues: [(epoch: UInt64, tracks: [TrackRequest])] = []
    private var ended = false
    private var deviceName: String
    private var mixer: ALSAMixer?
    private var mixerControl: String?
    private var volume = 100
    private var isShutDown = false
    private var prompts: PromptQueue!
    /// The underruns already logged (loop thread).
    private var loggedUnderruns: UInt64 = 0
    /// The index of the track asked for last (`issue`), while the device plays another epoch.
    private var targetIndex = -1
    /// Moves commands that found their queue full on (`flushBacklog`); nil when none wait.
    private var backlogTimer: TimerID?

    /// Starts the audio threads and registers the event source on `loop`. The device is opened when
    /// the first track plays; a failure then arrives as `deviceLost`.
    public init(loop: any EventLoopProtocol, settings: AudioSettings, onEvent: @escaping (AudioEvent) -> Void) throws {
        self.loop = loop
        self.onEvent = onEvent
        deviceName = settings.device
        mixerControl = settings.mixer
        shared = EngineShared(settings: settings, eventFD: FileDescriptor(owning: try Syscalls.eventfdCreate()))
        let eventFD = shared.eventFD
        decoderWorker = DecoderWorker(shared: shared)
        let outputWorker = OutputWorker(shared: shared)
        prompts = PromptQueue(loop: loop) { [unowned self] clip in self.send(.prompt(clip)) }
        do {
            source = try loop.addSource(fd: eventFD, events: .readable) { [unowned self] _ in self.drainEvents() }
            let decoder = decoderWorker
            let priority = settings.realtimePriority
            outputThread = try KioskThread(name: "kiosk-output", realtimePriority: priority) { outputWorker.run() }
            // The decoder runs at normal priority, as MPD's does (only its output threads ask for
            // real time): seconds of audio lie ahead of the device in the ring, and a real-time
            // decoder on an unpaced device (ALSA's file plugin) kept the loop off both cores of a
            // 2-core machine for 300 ms and more.
            decoderThread = try KioskThread(name: "kiosk-decoder", realtimePriority: nil) {
                decoder.run()
                decoder.recordTotals()
            }
        } catch {
            shutdown()
            throw error
        }
        openMixer()
    }

    deinit {
        shutdown()
    }

    // MARK: - commands (loop thread)

    /// Replaces the queue and positions the engine at frame `startFrame` of `tracks[index]`, stopped.
    /// A `startFrame` past the end of that track starts at the next one (a resume point in a file
    /// that changed). Track ids are the player's; they come back in events.
    public func setQueue(_ tracks: [TrackRequest], startAt index: Int, startFrame: Int64) {
        self.tracks = tracks
        state = .stopped
        publishState()
        issue(index: index, frame: startFrame)
    }

    /// Adds `more` at the end of the queue without disturbing playback: the current track and
    /// what was decoded ahead go on, and the new tracks follow (gaplessly when the format allows;
    /// after the old queue has played out when the decoder had already reached its end).
    public func append(_ more: [TrackRequest]) {
        guard !more.isEmpty else { return }
        tracks += more
        if let i = recentQueues.lastIndex(where: { $0.epoch == epoch }) { recentQueues[i].tracks = tracks }
        if ended { return }  // the next play() starts the queue again, with these tracks
        send(.extend(epoch: epoch, tracks: tracks))
    }

    /// Starts or resumes playback.
    public func play() {
        if ended {
            ended = false
            issue(index: 0, frame: 0)
        }
        state = .playing
        publishState()
    }

    /// Holds playback in place; the device stays open.
    public func pause() {
        guard state == .playing else { return }
        state = .paused
        publishState()
    }

    /// Continues after `pause` (does nothing otherwise).
    public func resume() {
        guard state == .paused else { return }
        state = .playing
        publishState()
    }

    /// Closes the device while stopped when `AudioSettings.keepOpen` keeps it open (the sleep
    /// timer ended: a sleeping box need not clock its DAC); the next `play` opens it again.
    public func releaseDevice() {
        send(.releaseDevice)
    }

    /// Stops and rewinds to the start of the current track; the device is closed until `play`
    /// (kept open and fed silence with `AudioSettings.keepOpen`).
    public func stop() {
        state = .stopped
        publishState()
        if !ended { issue(index: currentIndex, frame: 0) }
    }

    /// Jumps to frame `frame` of the current track (past its end: the next track).
    public func seek(toFrame frame: Int64) {
        guard !ended else { return }
        issue(index: currentIndex, frame: max(0, frame))
    }

    /// Goes to the next track (past the last: the queue finishes).
    public func next() {
        guard !ended else { return }
        issue(index: currentIndex + 1, frame: 0)
    }

    /// Goes to the previous track (on the first: its start).
    public func previous() {
        guard !ended else { return }
        issue(index: max(0, currentIndex - 1), frame: 0)
    }

    /// Sets the volume, 0…100 %: the hardware mixer control when configured, else software volume
    /// (samples untouched at 100 %).
    public func setVolume(_ percent: Int) {
        volume = max(0, min(100, percent))
        if let mixer {
            mixer.setVolume(volume)
            send(.volume(SampleConverter.unity))
        } else {
            send(.volume(SampleConverter.gain(percent: volume)))
        }
    }

    public func fadeOut(overMilliseconds milliseconds: Int) {
        send(.fadeOut(milliseconds: max(1, milliseconds)))
    }

    public func fadeInNextStart(overMilliseconds milliseconds: Int) {
        send(.fadeInNextStart(milliseconds: max(0, milliseconds)))
    }

    public func cancelFade() {
        send(.cancelFade)
    }

    /// Speaks `pcm` at `volume` % through the device: a playing track pauses for it (keeping its
    /// position; it goes on with its next frame after) or, with `duckDb`, goes on under it lowered by
    /// that much; an idle device is opened for it. Prompts play one after another; `onFinished` runs
    /// on the loop thread when this one has gone to the device, or could not (with why: the device
    /// would not open, and such; also logged).
    public func speak(
        _ pcm: SpokenPCM, volume: Int, duckDb: Double? = nil, onFinished: @escaping (String?) -> Void = { _ in }
    ) {
        let duckGain = duckDb.map { SampleConverter.gain(scale: Float(pow(10, min(0, $0) / 20))) }
        prompts.add(pcm, volume: volume, duckGain: duckGain) { failure in
            if let failure { Log.warning("speech: \"\(pcm.text)\" not spoken: \(failure)") }
            onFinished(failure)
        }
    }

    /// Whether no spoken prompt waits or plays.
    public var isSpeechIdle: Bool { prompts.isIdle }

    /// Switches to another output device, keeping the queue, the position and the play state.
    public func setDevice(_ name: String) {
        guard name != deviceName else { return }
        deviceName = name
        let position = positionFrames
        openMixer()
        if ended {
            send(.device(name))
        } else {
            // Through the decoder: it asks the output to drop the ring, then hands over the device,
            // so frames decoded ahead for the old device never reach the new one.
            issue(index: currentIndex, frame: position)
        }
    }

    /// The device in use.
    public var device: String { deviceName }

    /// Stops the threads and closes the device. Called by deinit; calling it twice does nothing.
    public func shutdown() {
        if isShutDown { return }
        isShutDown = true
        shared.shutdown.store(true, ordering: .releasing)
        shared.decoderWake.signal()
        shared.outputWake.signal()
        shared.eventRoom.signal()
        decoderThread?.join()
        outputThread?.join()
        prompts?.stop()
        if let backlogTimer { loop.cancel(backlogTimer) }
        backlogTimer = nil
        if let source { loop.removeSource(source) }
        source = nil
        mixer = nil
    }

    // MARK: - state readable from any thread

    /// Where the device is, read as one value: a gapless change never pairs the new track with
    /// the old track's frames. While a new target (queue, seek, skip) is not playing yet: the
    /// target.
    public var playbackPosition: PlaybackPosition {
        let playing = shared.playingPosition.read()
        let requested = shared.requestedPosition.read()
        let shown = playing.epoch == requested.epoch ? playing : requested
        return PlaybackPosition(trackID: shown.valid ? shown.trackID : nil, frames: shown.valid ? shown.frames : 0)
    }

    /// Times the device ran dry while playing (an underrun: it played silence until more came),
    /// since the engine started. Each is logged on the loop thread with the next event after it.
    public var underruns: UInt64 { shared.underruns.load(ordering: .relaxed) }

    /// The longest the output thread was away from the device between two writes of one stretch of
    /// sound (its lateness: with the device full, the next write could have begun at once), in
    /// nanoseconds, since the engine started. Any thread.
    public var longestOutputAwayNanoseconds: UInt64 { shared.longestAway.load(ordering: .relaxed) }

    /// What the audio threads did in their steady state (see `SteadyStateCounts`). Final after `shutdown`.
    public var steadyStateCounts: SteadyStateCounts {
        SteadyStateCounts(
            counting: shared.allocationProbe.counting,
            decoderIterations: shared.decoderIterations.load(ordering: .relaxed),
            decoderAllocations: shared.decoderAllocations.load(ordering: .relaxed),
            decoderLocks: shared.decoderLocks.load(ordering: .relaxed),
            decoderFaults: shared.decoderFaults.load(ordering: .relaxed),
            outputIterations: shared.outputIterations.load(ordering: .relaxed),
            outputAllocations: shared.outputAllocations.load(ordering: .relaxed),
            outputLocks: shared.outputLocks.load(ordering: .relaxed),
            outputFaults: shared.outputFaults.load(ordering: .relaxed),
            decoderAllocationsTotal: shared.decoderAllocationsTotal.load(ordering: .relaxed),
            decoderWakeups: shared.decoderWake.wakeups, outputWakeups: shared.outputWake.wakeups)
    }

    /// The ring between the decoder and the output thread (tests look at its size).
    var ring: RingBuffer { shared.ring }

    // MARK: - internals

    /// Index in the queue of the current track.
    private var currentIndex: Int {
        let playing = shared.playingPosition.read()
        if playing.epoch == epoch, playing.valid { return playing.index }
        return targetIndex
    }

    /// Tells the output thread what `state` asks of it: play, hold (paused), or hold with the
    /// device closed (stopped).
    private func publishState() {
        switch state {
        case .playing: send(.transport(.playing))
        case .paused: send(.transport(.paused))
        case .stopped: send(.transport(.stopped))
        }
    }

    private func send(_ command: OutputCommand) {
        if !shared.outputCommands.send(command) { scheduleBacklogFlush() }
    }

    private func send(_ command: DecoderCommand) {
        if !shared.decoderCommands.send(command) { scheduleBacklogFlush() }
    }

    /// A queue was full (its thread busy in a device or a file for a while): the commands wait in
    /// order on the loop side and move on every 5 ms until they fit; the loop never waits.
    private func scheduleBacklogFlush() {
        guard backlogTimer == nil, !isShutDown else { return }
        backlogTimer = loop.schedule(afterMilliseconds: 5) { [unowned self] in
            self.backlogTimer = nil
            let decoderDone = self.shared.decoderCommands.flush()
            let outputDone = self.shared.outputCommands.flush()
            if !decoderDone || !outputDone { self.scheduleBacklogFlush() }
        }
    }

    private func issue(index: Int, frame: Int64) {
        epoch += 1
        ended = false
        let valid = index >= 0 && index < tracks.count
        targetIndex = index
        var requested = PlayingSnapshot()
        requested.epoch = epoch
        requested.valid = valid
        requested.trackID = valid ? tracks[index].id : 0
        requested.index = index
        // A ranged track starts at its range's start at the earliest (as the decoder opens it).
        requested.frames = valid ? max(frame, tracks[index].startFrame) : 0
        shared.requestedPosition.publish(requested)
        recentQueues.append((epoch, tracks))
        if recentQueues.count > 8 { recentQueues.removeFirst() }
        send(.target(DecoderTarget(epoch: epoch, tracks: tracks, index: index, startFrame: frame, device: deviceName)))
    }

    private func openMixer() {
        mixer = nil
        guard let control = mixerControl else { return }
        do throws(AudioOutputError) {
            mixer = try ALSAMixer(device: deviceName, control: control)
        } catch {
            Log.warning("\(error); using software volume")
        }
    }

    private func path(epoch: UInt64, index: Int) -> String {
        guard let queue = recentQueues.last(where: { $0.epoch == epoch })?.tracks, index >= 0, index < queue.count
        else { return "?" }
        return queue[index].path
    }

    private func drainEvents() {
        _ = Syscalls.readCounter(shared.eventFD)
        while let event = shared.decoderEvents.pop() { deliver(event) }
        while let event = shared.outputEvents.pop() {
            // (7) Releasing: the output's next look at the flag (acquiring) sees this one taken.
            if case .position = event { shared.positionQueued.store(false, ordering: .releasing) }
            deliver(event)
        }
        // An audio thread waiting in `post` for room in a full queue looks again.
        shared.eventRoom.signal()
    }

    private func deliver(_ event: EngineEvent) {
        switch event {
        case .decodeFailed(let track, let failure):
            onEvent(
                .error(
                    id: track.trackID, path: path(epoch: track.epoch, index: track.index), message: failure.description)
            )
        case .refused(let track, _, let reason):
            onEvent(.error(id: track.trackID, path: path(epoch: track.epoch, index: track.index), message: reason))
        case .trackStarted(let track, let format, let totalFrames, let startFrame):
            guard track.epoch == epoch else { return }
            onEvent(.trackStarted(id: track.trackID, format: format, totalFrames: totalFrames, startFrame: startFrame))
        case .trackFinished(let track):
            guard track.epoch == epoch else { return }
            onEvent(.trackFinished(id: track.trackID))
        case .queueFinished(let finished, let queueLength):
            guard finished == epoch else { return }
            if queueLength >= 0 && queueLength < tracks.count {
                // Appended after the decoder had reached the end of the queue it knew: go on.
                issue(index: queueLength, frame: 0)
                return
            }
            ended = true
            state = .stopped
            publishState()
            onEvent(.queueFinished)
        case .position(let track, let frames, let sampleRate):
            guard track.epoch == epoch else { return }
            onEvent(.position(id: track.trackID, frames: frames, sampleRate: sampleRate))
        case .deviceLost(let message):
            Log.warning("audio device lost: \(message)")
            onEvent(.deviceLost(device: deviceName, message: message))
        case .deviceBack:
            Log.notice("audio device back: \(deviceName)")
            onEvent(.deviceBack(device: deviceName))
        case .promptFinished(let failure):
            prompts.finished(failure: failure)
        case .promptRefused(let device):
            prompts.refused(rate: device.rate, channels: device.channels, encoding: device.encoding)
        case .underrun(let account):
            // Logged here, not on the output thread, which neither allocates nor waits on a log.
            let underruns = self.underruns
            Log.warning(
                "audio: \(deviceName) ran out of audio (underrun): \(underruns - loggedUnderruns) more, \(underruns) since the start; the last: \(account)"
            )
            loggedUnderruns = underruns
        case .formatChanged(let configuration, let conversion):
            prompts.deviceChanged(
                rate: configuration.deviceRate, channels: configuration.channels, encoding: configuration.encoding)
            var deviceFormat = configuration.description
            if let conversion {
                // "S16_LE 48000 Hz 2 ch (converted: 1 → 2 ch (copied), 22050 → 48000 Hz (libsoxr HQ))"
                deviceFormat =
                    "\(configuration.encoding.alsaName) \(configuration.deviceRate) Hz \(configuration.channels) ch (\(conversion))"
                Log.notice("\(deviceName): \(configuration.format) \(conversion), as \(deviceFormat)")
            } else if !configuration.exact {
                Log.warning("\(deviceName): no bit-exact format for \(configuration.format); playing \(configuration)")
            }
            onEvent(.formatChanged(configuration.format, deviceFormat: deviceFormat))
        }
    }
}
