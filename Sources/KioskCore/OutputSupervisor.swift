// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// What the output supervisor tells the player about the device, to show it.
public enum OutputChange: Equatable, Sendable {
    /// The device in use stopped working (unplugged, or it fails to open).
    case lost(device: String, message: String)
    /// Another device of the list took over while the chosen one is away.
    case fellBack(to: String, chosen: String)
    /// The device in use works again (the engine reopened it by itself).
    case back(device: String)
    /// The chosen device opened again and is in use again.
    case returned(to: String)
}

/// Keeps an output playing when its device goes away: after `fallbackDelayMilliseconds` without
/// the device the next one of the list takes over (the engine keeps queue and position); the
/// chosen device is probed every `returnProbeMilliseconds` (a non-blocking open and close) and
/// taken back as soon as it opens. A device that opens but fails again within a minute of a
/// return makes the probe back off (×2 each time, at most ×16), so that it does not flap.
///
/// It hears the engine's `deviceLost`/`deviceBack` through `handle(_:)` and reports what the user
/// should see through `onChange`. Thread: the loop thread (the scheduler's) only.
public final class OutputSupervisor {
    /// The devices to choose from, the configured one first, without repeats.
    public let devices: [String]
    /// The device in use.
    public private(set) var inUse: String
    /// The device chosen (by the config, the menu or a remote client): the one to go back to.
    public private(set) var chosen: String
    public var fallbackDelayMilliseconds = 3000
    public var returnProbeMilliseconds = 5000
    /// Called with each change the user should see.
    public var onChange: ((OutputChange) -> Void)?
    /// Bluetooth headphones' PCM that has the sound instead of the list's devices (`useHeadphones`);
    /// nil: none. Their going away is BlueZ's to report (the Bluetooth part pauses and comes back
    /// to the speaker): no device of the list takes over by itself meanwhile.
    public private(set) var headphones: String?

    private let engine: any PlaybackEngine
    private let scheduler: any Scheduler
    /// Whether a device opens now.
    private let opens: (String) -> Bool
    private var lost = false
    /// Every device of the list failed in turn (or the one there is): nothing can sound until one
    /// comes back or is plugged in. Reset when a device comes back or is chosen.
    public private(set) var noDeviceWorks = false
    private var fallbackTimer: TimerID?
    private var probeTimer: TimerID?
    /// Fallbacks since the chosen device last stayed for a minute.
    private var recentFallbacks = 0
    private var lastReturnNs: UInt64 = 0

    /// - Parameters:
    ///   - devices: the list, the configured device first (repeats dropped; empty means "default").
    ///   - chosen: the device to start on (a saved choice), when it is in the list.
    ///   - opens: whether a device opens now (the app gives KioskAudio's `OutputPresence.isPresent`,
    ///     tests their own).
    public init(
        engine: any PlaybackEngine, scheduler: any Scheduler, devices: [String], chosen: String? = nil,
        opens: @escaping (String) -> Bool
    ) {
        var list: [String] = []
        for d in devices where !list.contains(d) { list.append(d) }
        if list.isEmpty { list = ["default"] }
        self.devices = list
        self.engine = engine
        self.scheduler = scheduler
        self.opens = opens
        let start = chosen.flatMap { list.contains($0) ? $0 : nil } ?? list[0]
        inUse = start
        self.chosen = start
        if engine.device != start { engine.setDevice(start) }
    }

    /// Makes `device` the chosen one and uses it now. `chooser` completes the log line ("in the menu").
    public func choose(_ device: String, by chooser: String) {
        Log.notice("audio output: \(device) (chosen \(chooser))")
        chosen = device
        inUse = device
        recentFallbacks = 0
        lost = false
        noDeviceWorks = false
        cancelTimers()
        // With headphones on, the choice waits for the speaker's turn.
        if headphones == nil { engine.setDevice(device) }
    }

    /// Plays to the headphones' `pcm`, or (nil) to the chosen device of the list again.
    public func useHeadphones(_ pcm: String?) {
        guard pcm != headphones else { return }
        headphones = pcm
        lost = false
        noDeviceWorks = false
        cancelTimers()
        if let pcm {
            Log.notice("audio output: \(pcm) (headphones)")
            engine.setDevice(pcm)
        } else {
            inUse = chosen
            Log.notice("audio output: \(chosen) (the headphones are off)")
            engine.setDevice(chosen)
        }
    }

    /// The device after the one in use, in list order (for the menu's "next output").
    public var following: String { devices[((devices.firstIndex(of: inUse) ?? 0) + 1) % devices.count] }

    /// Takes the engine's device events; other events are ignored.
    public func handle(_ event: AudioEvent) {
        switch event {
        case .deviceLost(let device, let message):
            lost = true
            if devices.count <= 1 { noDeviceWorks = true }
            onChange?(.lost(device: device, message: message))
            if headphones == nil { scheduleFallback() }
        case .deviceBack(let device):
            lost = false
            noDeviceWorks = false
            if let timer = fallbackTimer { scheduler.cancel(timer) }
            fallbackTimer = nil
            onChange?(.back(device: device))
        default:
            break
        }
    }

    private func scheduleFallback() {
        guard fallbackTimer == nil, devices.count > 1 else { return }
        fallbackTimer = scheduler.schedule(afterMilliseconds: fallbackDelayMilliseconds) { [weak self] in
            guard let self else { return }
            self.fallbackTimer = nil
            guard self.lost, self.headphones == nil else { return }
            self.lost = false
            self.inUse = self.following
            if self.inUse == self.chosen {
                self.noDeviceWorks = true
                Log.notice("audio output: trying \(self.chosen) again (the other devices are away too)")
            } else {
                Log.notice("switching audio output to \(self.inUse) while \(self.chosen) is away")
            }
            let now = self.scheduler.nowNanoseconds
            self.recentFallbacks = now - self.lastReturnNs > 60_000_000_000 ? 1 : self.recentFallbacks + 1
            self.engine.setDevice(self.inUse)
            self.onChange?(.fellBack(to: self.inUse, chosen: self.chosen))
            self.startReturnProbe()
        }
    }

    /// The probe period now: `returnProbeMilliseconds`, doubled for each recent fallback after the first.
    public var probePeriodMilliseconds: Int {
        max(100, returnProbeMilliseconds) << min(4, max(0, recentFallbacks - 1))
    }

    private func startReturnProbe() {
        guard probeTimer == nil, inUse != chosen else { return }
        let period = probePeriodMilliseconds
        probeTimer = scheduler.schedule(afterMilliseconds: period, repeatingMilliseconds: period) { [weak self] in
            guard let self else { return }
            guard self.inUse != self.chosen, self.headphones == nil else {
                self.cancelTimers()
                return
            }
            guard self.opens(self.chosen) else { return }
            Log.notice("audio output: \(self.chosen) is back; switching to it")
            self.cancelTimers()
            self.lastReturnNs = self.scheduler.nowNanoseconds
            self.inUse = self.chosen
            self.lost = false
            self.noDeviceWorks = false
            self.engine.setDevice(self.chosen)
            self.onChange?(.returned(to: self.chosen))
        }
    }

    private func cancelTimers() {
        if let timer = fallbackTimer { scheduler.cancel(timer) }
        fallbackTimer = nil
        if let timer = probeTimer { scheduler.cancel(timer) }
        probeTimer = nil
    }
}
