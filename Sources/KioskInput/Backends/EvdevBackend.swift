// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskModel
import KioskSystem

/// The evdev backend of the input router: keys and relative axes of `/dev/input` devices (a
/// remote, a keypad, a knob). Keys go to the router's `Gestures`, axes to actions. A device that
/// is missing or vanishes is a problem and is looked for again every `evdevRetryMs`.
///
/// Thread: the event-loop thread only (owned by `InputManager`).
final class EvdevBackend {
    private struct Device {
        let config: EvdevConfig
        var device: EvdevDevice?
        var source: SourceID?
        var retry: TimerID?
        var keys: [UInt16: Gestures.ButtonID] = [:]
        var axes: [UInt16: (axis: EvdevConfig.Axis, acceleration: EncoderAcceleration)] = [:]
        var dropping = false
        var reportedMissing = false
        /// The exact name that replaces the entry's pattern (`retargetComingAndGoing`).
        var name: String?
        var spec: String { name ?? config.device }
    }

    private unowned let router: InputManager
    /// Its own reference: `stop` runs from the router's deinit, when `router` can no longer be read.
    private let loop: EventLoop
    private var devices: [Device] = []
    private var retryMs: Int { router.evdevRetryMs }

    init(router: InputManager) {
        self.router = router
        loop = router.loop
        for config in router.profile.evdev {
            var device = Device(config: config)
            for key in config.keys {
                device.keys[key.code] = router.gestures.addButton(
                    source: "key \(key.name)", binding: key.binding, debounceMs: 0)
            }
            for axis in config.relative {
                device.axes[axis.code] = (axis, EncoderAcceleration())
            }
            devices.append(device)
        }
    }

    /// Opens every evdev device of the profile; missing ones are looked for again every `evdevRetryMs`.
    func start() {
        for i in devices.indices where devices[i].device == nil && devices[i].retry == nil {
            if !open(i) { scheduleRetry(i) }
        }
    }

    @discardableResult
    private func open(_ i: Int) -> Bool {
        let spec = devices[i].spec
        let device: EvdevDevice
        // "*": any keypad or remote with the entry's keys, but not a device another entry or a USB
        // card reader names, nor one an entry here already has open.
        var taken = Set(devices.map(\.config.device).filter { $0 != "*" })
        taken.formUnion(devices.compactMap { $0.device?.name })
        for case .usb(let reader) in router.profile.cardReaders { taken.insert(reader) }
        switch EvdevDevice.find(
            spec, in: router.evdevDirectory, keys: devices[i].config.keys.map(\.code), excluding: taken)
        {
        case .failure(let error):
            if !devices[i].reportedMissing {
                devices[i].reportedMissing = true
                if devices[i].config.comesAndGoes {
                    Log.info("evdev: \(error.message); looking again every \(retryMs) ms")
                } else {
                    router.problem("evdev: \(error.message); looking again every \(retryMs) ms, the other inputs work")
                }
            }
            return false
        case .success(let found):
            device = found
        }
        let source: SourceID
        do throws(Errno) {
            source = try loop.addSource(fd: device.fd, events: .readable) { [unowned self] events in
                self.readable(i, events)
            }
        } catch {
            router.problem("evdev: cannot watch \(device.path): \(error)")
            return false
        }
        devices[i].device = device
        devices[i].source = source
        devices[i].dropping = false
        devices[i].reportedMissing = false
        if let retry = devices[i].retry {
            loop.cancel(retry)
            devices[i].retry = nil
        }
        Log.info("evdev: \"\(device.name)\" at \(device.path)\(device.monotonic ? "" : " (no monotonic timestamps)")")
        router.raw("evdev \"\(device.name)\" connected at \(device.path)")
        for key in devices[i].config.keys where device.has(type: UInt16(EV_KEY), code: key.code) == false {
            Log.warning("evdev: \"\(device.name)\" has no key \(key.name)")
        }
        for axis in devices[i].config.relative where device.has(type: UInt16(EV_REL), code: axis.code) == false {
            Log.warning("evdev: \"\(device.name)\" has no axis \(axis.name)")
        }
        syncKeys(i)
        return true
    }

    /// See `InputManager.retargetComingAndGoing`.
    func retargetComingAndGoing(to name: String?) {
        for i in devices.indices where devices[i].config.comesAndGoes && devices[i].name != name {
            devices[i].name = name
            devices[i].reportedMissing = false
            if let open = devices[i].device, let name, open.name != name {
                vanished(i, reason: "not \"\(name)\"")
            } else if devices[i].device == nil, devices[i].retry != nil {
                open(i)
            }
        }
    }

    private func scheduleRetry(_ i: Int) {
        guard devices[i].retry == nil else { return }
        devices[i].retry = loop.schedule(afterMilliseconds: retryMs, repeatingMilliseconds: retryMs) {
            [unowned self] in
            if self.devices[i].device == nil { self.open(i) }
        }
    }

    /// Sets every mapped key to the device's current state, without gestures.
    private func syncKeys(_ i: Int) {
        guard let device = devices[i].device else { return }
        let now = Syscalls.monotonicNanoseconds()
        for (code, id) in devices[i].keys {
            router.gestures.sync(id, active: device.keyIsDown(code), at: now)
        }
    }

    private func readable(_ i: Int, _ readiness: IOEvents) {
        guard let device = devices[i].device else { return }
        let events: [kiosk_input_event]
        do throws(Errno) {
            events = try device.read()
        } catch {
            vanished(i, reason: error.message)
            return
        }
        let now = Syscalls.monotonicNanoseconds()
        for event in events {
            let t = device.monotonic ? router.checked(event.timestamp_ns, now: now) : now
            self.event(i, type: event.type, code: event.code, value: event.value, at: t)
        }
        if events.isEmpty && (readiness.contains(.hangup) || readiness.contains(.error)) {
            vanished(i, reason: "hang-up")
        }
        router.eventsHandled()
    }

    private func vanished(_ i: Int, reason: String) {
        guard let device = devices[i].device else { return }
        if let source = devices[i].source { loop.removeSource(source) }
        devices[i].source = nil
        devices[i].device = nil
        let now = Syscalls.monotonicNanoseconds()
        for id in devices[i].keys.values { router.gestures.sync(id, active: false, at: now) }
        let gone = "evdev: \"\(device.name)\" at \(device.path) is gone (\(reason)); looking again every \(retryMs) ms"
        if devices[i].config.comesAndGoes { Log.notice(gone) } else { router.problem(gone) }
        devices[i].reportedMissing = true
        router.raw("evdev \"\(device.name)\" disconnected")
        scheduleRetry(i)
        router.eventsHandled()
    }

    /// One event of device `i` of the profile (from the device or a script).
    func event(_ i: Int, type: UInt16, code: UInt16, value: Int32, at t: UInt64) {
        if devices[i].dropping {
            // The kernel dropped events: ignore until the next report, then read the key states.
            if type == UInt16(EV_SYN) && code == UInt16(SYN_REPORT) {
                devices[i].dropping = false
                syncKeys(i)
            }
            return
        }
        switch type {
        case UInt16(EV_SYN) where code == UInt16(SYN_DROPPED):
            devices[i].dropping = true
        case UInt16(EV_KEY):
            guard value == 0 || value == 1 else { return }  // 2 is the kernel's autorepeat: we repeat ourselves
            if let id = devices[i].keys[code] {
                router.gestures.edge(id, active: value == 1, at: t)
            } else if value == 1 {
                router.raw("key \(Keymap.evdevName(type: type, code: code)) (not mapped)")
            }
        case UInt16(EV_REL):
            guard value != 0 else { return }
            guard let (axis, _) = devices[i].axes[code] else {
                router.raw("axis \(Keymap.evdevName(type: type, code: code)) \(value) (not mapped)")
                return
            }
            let steps = devices[i].axes[code]!.acceleration.steps(detents: Int(value), at: t)
            let action = value > 0 ? axis.positive : axis.negative
            let text = "axis \(axis.name) \(value > 0 ? "+" : "")\(value)"
            guard let action else {
                router.raw("\(text) (not mapped)")
                return
            }
            router.raw("\(text) → \(action.rawValue) ×\(steps)")
            router.emit(ActionEvent(action: action, steps: steps, source: "axis \(axis.name)", timestampNs: t))
        default:
            break
        }
    }

    /// Closes the devices and cancels the retries. Safe to call twice.
    func stop() {
        for i in devices.indices {
            if let source = devices[i].source { loop.removeSource(source) }
            if let retry = devices[i].retry { loop.cancel(retry) }
            devices[i].source = nil
            devices[i].retry = nil
            devices[i].device = nil
        }
    }
}
