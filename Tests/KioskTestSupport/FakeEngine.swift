// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskModel
import KioskSystem

/// A `PlaybackEngine` that plays in virtual time: no threads, no device, no sleeps. It keeps the
/// engine's contract (see `PlaybackEngine`) with the real files' formats and lengths: each track is
/// opened with the real decoders (`DecoderSet`: headers only), so a missing or broken file fails with the
/// engine's own message. Time passes only when the test moves its `VirtualClock`; events arrive
/// through the clock too (due at once, delivered on the next `advance`), in the order the real
/// engine sends them. Devices come and go by `disconnect`/`reconnect`; one that does not open
/// (`opens`) is lost as soon as something plays on it.
///
/// Thread: the test's thread only.
public final class FakeEngine: PlaybackEngine {
    private enum State { case stopped, playing, paused }

    /// Called with each event, in order.
    public var onEvent: (AudioEvent) -> Void
    /// Whether a device opens (default: ALSA's own probe; "none" always opens).
    public var opens: (String) -> Bool = OutputPresence.isPresent
    public private(set) var device: String
    public private(set) var volume = 100
    /// The commands received, in order ("setQueue 2@0+0", "play", …), for tests of what was asked.
    public private(set) var commands: [String] = []
    /// How often the engine reports the position while playing.
    public var positionIntervalMilliseconds = 250

    private let clock: VirtualClock
    private let decoders = DecoderSet()
    /// The queue last handed over (with each track's gain).
    public private(set) var tracks: [TrackRequest] = []
    private var state = State.stopped
    private var index = 0
    /// The position in the current track when `anchorNs` was the time (while playing).
    private var anchorFrame: Int64 = 0
    private var anchorNs: UInt64 = 0
    /// The current track as opened: nil until it starts (or when the queue ended).
    private var opened: (format: PCMFormat, totalFrames: Int64)?
    /// The current target has not sounded yet: the next play start sends trackStarted.
    private var needsStart = true
    private var ended = false
    private var lost: Set<String> = []
    private var deviceDown = false
    private var deviceFormat: PCMFormat?
    private var tick: TimerID?
    private var epoch: UInt64 = 0
    private var isShutDown = false

    public init(clock: VirtualClock, device: String = "none", onEvent: @escaping (AudioEvent) -> Void = { _ in }) {
        self.clock = clock
        self.device = device
        self.onEvent = onEvent
    }

    // MARK: - commands

    public func setQueue(_ tracks: [TrackRequest], startAt index: Int, startFrame: Int64) {
        commands.append("setQueue \(tracks.count)@\(index)+\(startFrame)")
        self.tracks = tracks
        state = .stopped
        retarget(index: index, frame: startFrame)
    }

    public func append(_ more: [TrackRequest]) {
        commands.append("append \(more.count)")
        tracks += more
    }

    public func play() {
        commands.append("play")
        if ended { retarget(index: 0, frame: 0) }
        guard state != .playing else { return }
        state = .playing
        startSounding()
    }

    public func pause() {
        commands.append("pause")
        guard state == .playing else { return }
        settle()
        state = .paused
        stopTicking()
    }

    public func stop() {
        commands.append("stop")
        state = .stopped
        stopTicking()
        if !ended { retarget(index: index, frame: 0) }
    }

    public func seek(toFrame frame: Int64) {
        commands.append("seek \(frame)")
        guard !ended else { return }
        retarget(index: index, frame: max(0, frame))
        if state == .playing { startSounding() }
    }

    public func next() {
        commands.append("next")
        guard !ended else { return }
        retarget(index: index + 1, frame: 0)
        if state == .playing { startSounding() }
    }

    public func previous() {
        commands.append("previous")
        guard !ended else { return }
        retarget(index: max(0, index - 1), frame: 0)
        if state == .playing { startSounding() }
    }

    public func setVolume(_ percent: Int) { volume = max(0, min(100, percent)) }

    /// The fade asked for last: its length, and when (virtual time) it was asked for.
    public private(set) var fade: (milliseconds: Int, startNs: UInt64)?

    public func fadeOut(overMilliseconds milliseconds: Int) {
        commands.append("fadeOut \(milliseconds)")
        fade = (max(1, milliseconds), clock.nowNanoseconds)
    }

    public func fadeInNextStart(overMilliseconds milliseconds: Int) {
        commands.append("fadeIn \(milliseconds)")
    }

    public func cancelFade() {
        commands.append("cancelFade")
        fade = nil
    }

    public func releaseDevice() {
        commands.append("releaseDevice")
    }

    /// How far the fade has come now, 0…1 (0 with no fade); the fake fades on the clock.
    public var fadeProgress: Double {
        guard let fade else { return 0 }
        let elapsed = Double(clock.nowNanoseconds - fade.startNs) / 1e6
        return min(1, elapsed / Double(fade.milliseconds))
    }

    public func setDevice(_ name: String) {
        guard name != device else { return }
        commands.append("setDevice \(name)")
        let position = frames
        device = name
        deviceDown = false
        deviceFormat = nil
        if !ended {
            retarget(index: index, frame: position)
            if state == .playing { startSounding() }
        }
    }

    public var playbackPosition: PlaybackPosition {
        PlaybackPosition(trackID: ended || !tracks.indices.contains(index) ? nil : tracks[index].id, frames: frames)
    }

    /// Frames of the current track played, now.
    private var frames: Int64 {
        guard !ended else { return 0 }
        guard state == .playing, !deviceDown, let opened else { return anchorFrame }
        let elapsed = Int64((clock.nowNanoseconds - anchorNs) / 1000) * Int64(opened.format.sampleRate) / 1_000_000
        return min(anchorFrame + elapsed, opened.totalFrames)
    }

    public func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        stopTicking()
        state = .stopped
    }

    // MARK: - devices

    /// The device `name` goes away (unplugged): playback on it stalls and `deviceLost` follows.
    public func disconnect(_ name: String, message: String = "No such device") {
        lost.insert(name)
        if name == device, state == .playing, !deviceDown { loseDevice(message) }
    }

    /// The device `name` is back: playback on it goes on (`deviceBack`).
    public func reconnect(_ name: String) {
        lost.remove(name)
        guard name == device, deviceDown else { return }
        deviceDown = false
        post(.deviceBack(device: name))
        if state == .playing { startSounding() }
    }

    /// Whether `name` would open now (not disconnected, and `opens`).
    public func isAvailable(_ name: String) -> Bool { !lost.contains(name) && opens(name) }

    private func loseDevice(_ message: String) {
        settle()
        deviceDown = true
        stopTicking()
        post(.deviceLost(device: device, message: "\(device): \(message)"))
    }

    // MARK: - playing

    /// A new target (queue change, seek, skip, device change): events of the old one are dropped.
    private func retarget(index newIndex: Int, frame: Int64) {
        epoch += 1
        stopTicking()
        ended = false
        index = newIndex
        anchorFrame = frame
        opened = nil
        needsStart = true
    }

    /// Starts (or goes on) sounding the current target, playing.
    private func startSounding() {
        guard state == .playing else { return }
        if deviceDown { return }
        if !isAvailable(device) {
            loseDevice("cannot open")
            return
        }
        if needsStart {
            guard openCurrent() else { return }
            needsStart = false
            post(
                .trackStarted(
                    id: tracks[index].id, format: opened!.format, totalFrames: opened!.totalFrames,
                    startFrame: anchorFrame))
            post(.position(id: tracks[index].id, frames: anchorFrame, sampleRate: opened!.format.sampleRate))
        }
        anchorNs = clock.nowNanoseconds
        scheduleTick()
    }

    /// Opens the current track (skipping those that fail, as the decoder does); false when the
    /// queue ended instead.
    private func openCurrent() -> Bool {
        while tracks.indices.contains(index) {
            let track = tracks[index]
            defer { decoders.closeAll() }
            do throws(DecodeError) {
                let decoder = try decoders.open(path: track.path)
                let format = decoder.format!
                let total = decoder.totalFrames ?? 0
                if anchorFrame >= total && anchorFrame > 0 {
                    // Resuming past the end (the file changed): the next track.
                    index += 1
                    anchorFrame = 0
                    continue
                }
                opened = (format, total)
                if deviceFormat != format {
                    deviceFormat = format
                    post(.formatChanged(format, deviceFormat: "\(format) (fake)"))
                }
                return true
            } catch {
                post(.error(id: track.id, path: track.path, message: error.description))
                index += 1
                anchorFrame = 0
            }
        }
        finishQueue()
        return false
    }

    private func finishQueue() {
        ended = true
        state = .stopped
        stopTicking()
        post(.queueFinished)
    }

    /// Moves the anchor to now (before a pause or a loss).
    private func settle() {
        guard state == .playing, !deviceDown, opened != nil else { return }
        anchorFrame = frames
        anchorNs = clock.nowNanoseconds
    }

    private func stopTicking() {
        if let tick { clock.cancel(tick) }
        tick = nil
    }

    private func scheduleTick() {
        stopTicking()
        guard let opened else { return }
        let rate = Int64(opened.format.sampleRate)
        let toEnd = max(0, opened.totalFrames - frames)
        let msToEnd = Int((toEnd * 1000 + rate - 1) / rate)
        let delay = min(positionIntervalMilliseconds, msToEnd)
        let myEpoch = epoch
        tick = clock.schedule(afterMilliseconds: delay) { [weak self] in
            guard let self, self.epoch == myEpoch else { return }
            self.tick = nil
            self.ticked()
        }
    }

    private func ticked() {
        guard state == .playing, let opened else { return }
        let now = frames
        if now < opened.totalFrames {
            post(.position(id: tracks[index].id, frames: now, sampleRate: opened.format.sampleRate))
            scheduleTick()
            return
        }
        // The track's last frame played: gaplessly on to the next (a new target of the same epoch).
        post(.trackFinished(id: tracks[index].id))
        index += 1
        anchorFrame = 0
        self.opened = nil
        guard openCurrent() else { return }
        post(
            .trackStarted(
                id: tracks[index].id, format: self.opened!.format, totalFrames: self.opened!.totalFrames, startFrame: 0)
        )
        post(.position(id: tracks[index].id, frames: 0, sampleRate: self.opened!.format.sampleRate))
        anchorNs = clock.nowNanoseconds
        scheduleTick()
    }

    /// Delivers `event` through the clock (as the real engine does through the loop), unless a
    /// new target came first (errors and device events always arrive).
    private func post(_ event: AudioEvent) {
        let myEpoch = epoch
        let always: Bool
        switch event {
        case .error, .deviceLost, .deviceBack, .formatChanged: always = true
        default: always = false
        }
        clock.schedule(afterMilliseconds: 0) { [weak self] in
            guard let self, always || self.epoch == myEpoch else { return }
            self.onEvent(event)
        }
    }
}
