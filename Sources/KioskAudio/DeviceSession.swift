// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem

/// The output's device session: which device, the `AudioOutput` open on it, its set-up for the
/// stream (`OutputConfiguration`) and the output stage (`StreamAdapter`) that fits the stream to
/// it, pausing it in place, and losing it and trying it again with back-off.
///
/// It reports the device's own events (lost, back) and leaves the timeline to `OutputTimeline`:
/// where it changes what the device holds, it says so to its caller.
///
/// Thread: the output thread only (`OutputWorker` owns it), after `init` on the loop thread.
final class DeviceSession {
    private let shared: EngineShared
    private(set) var deviceName: String
    private(set) var output: (any AudioOutput)?
    /// The device set-up in use (nil: closed or lost).
    private(set) var configuration: OutputConfiguration?
    /// Channels and rate for a device that will not take the stream's (inactive otherwise).
    let adapter = StreamAdapter()
    /// Whether the device is paused in place (or dropped, when it cannot pause) while not playing.
    private var paused = false
    /// Whether the device failed and is being tried again.
    private(set) var lost = false
    /// Frames the device may still take before its steady state: one buffer's worth after each
    /// set-up, since its first writes run ALSA's start of the stream and touch code pages of the
    /// plugin's write path for the first time (a minor fault when no neighbour mapped them).
    private(set) var framesBeforeSteadyState = 0
    /// What the output stage does to the stream of the last set-up, until reported (`takeConversion`).
    private var unreportedConversion: String?
    private var retryDelay: UInt64 = 250_000_000
    /// When to try a lost device again (monotonic nanoseconds).
    private(set) var nextRetry: UInt64 = 0

    init(shared: EngineShared) {
        self.shared = shared
        deviceName = shared.settings.device
    }

    private func makeOutput(_ name: String) -> any AudioOutput {
        shared.settings.makeOutput?(name) ?? makeAudioOutput(device: name)
    }

    /// Makes the output of the configured device (not set up yet).
    func start() {
        output = makeOutput(deviceName)
    }

    /// At shutdown: drops what the device holds and closes it.
    func finish() {
        if let output {
            output.drop()
            output.close()
        }
    }

    /// Follows a device request from the loop: another device is made (not set up yet).
    func switchDevice(to name: String) {
        guard name != deviceName else { return }
        output?.close()
        deviceName = name
        output = makeOutput(name)
        configuration = nil
        if lost { lost = false }
    }

    /// The frames the device still holds (0 when none is open).
    func delay() -> Int {
        output?.delay() ?? 0
    }

    /// Playing again: a paused device goes on.
    func resume() {
        if paused {
            if let output, configuration != nil { _ = output.pause(false) }
            paused = false
        }
    }

    /// Not playing: pauses the device in place. When it cannot pause, drops what it holds and
    /// returns the frames it had played of `written` (the timeline restarts there); nil otherwise.
    func hold(written: Int) -> Int? {
        guard !paused, let output, configuration != nil else { return nil }
        paused = true
        if written == 0 { return nil }
        if output.pause(true) { return nil }
        let played = written - min(max(0, output.delay()), written)
        output.drop()
        return played
    }

    /// A device paused in place (`hold`) that is to run on: drops what it holds and returns the
    /// frames it had played of `written`; nil when it was not paused.
    func dropPausedFrames(written: Int) -> Int? {
        guard paused, let output, configuration != nil else { return nil }
        let played = written - min(max(0, output.delay()), written)
        output.drop()
        paused = false
        return played
    }

    /// Drops what the device holds (a reset): the stream starts again.
    func drop() {
        if let output, configuration != nil { output.drop() }
        adapter.reset()
        paused = false
    }

    /// Plays out what the device holds (the end of a stream).
    func drain() {
        if let output, configuration != nil { output.drain() }
    }

    /// Stopped: closes the device (not lost: the next frames set it up again), dropping what it held.
    /// True when a device was open (then it restarts empty).
    func release() -> Bool {
        guard let output, configuration != nil else { return false }
        output.drop()
        output.close()
        adapter.reset()
        configuration = nil
        paused = false
        return true
    }

    /// Sets the device up for frames of `format` in `encoding` (making its output again when it was
    /// closed). On success it starts empty; a lost device is back with `cameBack`.
    func setUp(for format: PCMFormat, _ encoding: SampleEncoding) throws(AudioOutputError) {
        let device = output ?? makeOutput(deviceName)
        output = device
        do throws(AudioOutputError) {
            let configured = try device.configure(format, source: encoding, bufferMilliseconds: shared.bufferMs)
            try adapter.configure(format, deviceChannels: configured.channels, deviceRate: configured.deviceRate)
            // Reported with the formatChanged that follows, logged once per stream.
            unreportedConversion =
                adapter.isActive ? "converted: " + adapter.conversions.joined(separator: ", ") : nil
            configuration = configured
            framesBeforeSteadyState = configured.bufferFrames
        } catch {
            configuration = nil
            throw error
        }
    }

    /// What the output stage does to the stream of the last set-up, once (nil: nothing, or said).
    func takeConversion() -> String? {
        defer { unreportedConversion = nil }
        return unreportedConversion
    }

    /// The device took `frames` more since its set-up.
    func took(_ frames: Int) {
        framesBeforeSteadyState = max(0, framesBeforeSteadyState - frames)
    }

    /// After a set-up: a lost device is back (reported).
    func cameBack() {
        guard lost else { return }
        lost = false
        retryDelay = 250_000_000
        shared.post(.deviceBack, to: shared.outputEvents)
    }

    /// A lost device with nothing to set it up for is taken as back: the next track's marker sets
    /// it up (or loses it again).
    func backWithoutStream() {
        lost = false
        shared.post(.deviceBack, to: shared.outputEvents)
    }

    /// The device failed (`code`, or `message` when the output said more): closes it, reports it
    /// once, and sets the next try with back-off.
    func lose(code: Int32, message: String?) {
        output?.close()
        adapter.reset()
        configuration = nil
        if !lost {
            lost = true
            let text = message ?? "\(deviceName): \(alsaErrorText(code))"
            shared.post(.deviceLost(message: text), to: shared.outputEvents)
        } else {
            retryDelay = min(retryDelay * 2, 5_000_000_000)
        }
        nextRetry = Syscalls.monotonicNanoseconds() &+ retryDelay
    }
}
