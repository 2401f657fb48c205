// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskModel
import KioskSystem

/// A USB card reader that types each card's number and Enter as a keyboard, read through evdev
/// and grabbed (EVIOCGRAB): its keystrokes reach no console, no other program and none of the
/// player's button maps, only `HIDCardDecoder`. Found by its evdev name (or a path); missing or
/// unplugged, it is reported once by name and looked for again every `retryMs`.
///
/// Thread: the event-loop thread only.
final class USBCardReader {
    let spec: String
    private let loop: EventLoop
    private let directory: String
    private let retryMs: Int
    private let onCard: (CardEvent) -> Void
    private let onProblem: (String) -> Void
    private let onRaw: (String) -> Void
    private var device: EvdevDevice?
    private var source: SourceID?
    private var retry: TimerID?
    private var reportedMissing = false
    private var decoder = HIDCardDecoder()

    init(
        spec: String, loop: EventLoop, directory: String, retryMs: Int, onCard: @escaping (CardEvent) -> Void,
        onProblem: @escaping (String) -> Void, onRaw: @escaping (String) -> Void
    ) {
        self.spec = spec
        self.loop = loop
        self.directory = directory
        self.retryMs = retryMs
        self.onCard = onCard
        self.onProblem = onProblem
        self.onRaw = onRaw
    }

    var isConnected: Bool { device != nil }
    var label: String { "usb reader \"\(device?.name ?? spec)\"" }

    func start() {
        loop.assertInLoop()
        if device == nil && !open() { scheduleRetry() }
    }

    func stop() {
        loop.assertInLoop()
        if let source { loop.removeSource(source) }
        if let retry { loop.cancel(retry) }
        source = nil
        retry = nil
        device = nil
    }

    @discardableResult
    private func open() -> Bool {
        let found: EvdevDevice
        switch EvdevDevice.find(spec, in: directory) {
        case .failure(let error):
            if !reportedMissing {
                reportedMissing = true
                onProblem(
                    "card reader: \(error.message); looking again every \(retryMs) ms, the other inputs work")
            }
            return false
        case .success(let device):
            found = device
        }
        if kiosk_evdev_grab(found.fd) != 0 {
            // Another program holds it (or the kernel refuses): reading on would let its digits
            // reach the console too, and give half the cards.
            if !reportedMissing {
                reportedMissing = true
                onProblem(
                    "card reader: cannot take \"\(found.name)\" at \(found.path) for the player alone (EVIOCGRAB: \(Errno.current.message)); looking again every \(retryMs) ms"
                )
            }
            return false
        }
        do throws(Errno) {
            source = try loop.addSource(fd: found.fd, events: .readable) { [unowned self] events in
                self.readable(events)
            }
        } catch {
            onProblem("card reader: cannot watch \(found.path): \(error)")
            return false
        }
        device = found
        decoder = HIDCardDecoder()
        reportedMissing = false
        if let retry { loop.cancel(retry) }
        retry = nil
        Log.info("card reader: \"\(found.name)\" at \(found.path), grabbed")
        onRaw("card reader \"\(found.name)\" connected at \(found.path)")
        return true
    }

    private func scheduleRetry() {
        guard retry == nil else { return }
        retry = loop.schedule(afterMilliseconds: retryMs, repeatingMilliseconds: retryMs) { [unowned self] in
            if self.device == nil { self.open() }
        }
    }

    private func readable(_ readiness: IOEvents) {
        guard let device else { return }
        let events: [kiosk_input_event]
        do throws(Errno) {
            events = try device.read()
        } catch {
            vanished(error.message)
            return
        }
        let now = Syscalls.monotonicNanoseconds()
        for event in events where event.type == UInt16(EV_KEY) {
            key(code: event.code, value: event.value, at: device.monotonic ? event.timestamp_ns : now)
        }
        if events.isEmpty && (readiness.contains(.hangup) || readiness.contains(.error)) { vanished("hang-up") }
    }

    /// One key of the reader (from the device, or a test's recorded stream).
    func key(code: UInt16, value: Int32, at t: UInt64) {
        switch decoder.key(code: code, value: value, at: t) {
        case .card(let uid)?: onCard(CardEvent(.presented, uid: uid, source: label, timestampNs: t))
        case .refused(let why)?: onRaw("\(label): ignored \(why)")
        case nil: break
        }
    }

    private func vanished(_ reason: String) {
        guard let device else { return }
        if let source { loop.removeSource(source) }
        source = nil
        self.device = nil
        onProblem(
            "card reader: \"\(device.name)\" at \(device.path) is gone (\(reason)); looking again every \(retryMs) ms")
        reportedMissing = true
        onRaw("card reader \"\(device.name)\" disconnected")
        scheduleRetry()
    }
}
