// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// The card-reader backend of the input router: USB readers (an evdev keyboard that types the
/// card's number, grabbed) and RC522 modules (polled on their own threads). Cards presented and
/// removed reach the router's `onCard`.
///
/// Thread: the event-loop thread only (owned by `InputManager`).
final class CardReaderBackend {
    private unowned let router: InputManager
    /// Its own reference: `stop` runs from the router's deinit, when `router` can no longer be read.
    private let loop: EventLoop
    private var usbReaders: [Int: USBCardReader] = [:]
    private var rc522Readers: [RC522Reader] = []
    /// The card presented last, for a script's "card removed" without a number.
    private(set) var lastCard: CardUID?

    init(router: InputManager) {
        self.router = router
        loop = router.loop
    }

    /// Starts every card reader of the profile: USB readers are opened and grabbed (missing ones
    /// are looked for again every `evdevRetryMs`), RC522 modules are polled on their own threads.
    func start() {
        for (i, reader) in router.profile.cardReaders.enumerated() {
            switch reader {
            case .usb(let device):
                guard usbReaders[i] == nil else { continue }
                let usb = USBCardReader(
                    spec: device, loop: loop, directory: router.evdevDirectory, retryMs: router.evdevRetryMs,
                    onCard: { [unowned self] in self.card($0) },
                    onProblem: { [unowned self] in self.router.problem($0) },
                    onRaw: { [unowned self] in self.router.raw($0) })
                usbReaders[i] = usb
                usb.start()
            case .rc522(let config):
                do throws(Errno) {
                    rc522Readers.append(
                        try RC522Reader(
                            config: config, loop: loop, openBus: router.openRC522Bus,
                            gpioChips: router.profile.gpioChips, onCard: { [unowned self] in self.card($0) },
                            onProblem: { [unowned self] in self.router.problem($0) },
                            onRaw: { [unowned self] in self.router.raw($0) }))
                } catch {
                    router.problem("card reader: cannot start the thread for \(config.devicePath): \(error)")
                }
            }
        }
    }

    /// The RC522 readers poll less often while the box idles (its screen asleep).
    func setIdle(_ idle: Bool) {
        for reader in rc522Readers { reader.setIdle(idle) }
    }

    /// A card event from a reader or a script.
    func card(_ event: CardEvent) {
        if event.kind == .presented { lastCard = event.uid }
        router.raw(event.description)
        router.onCard?(event)
    }

    /// A key of USB reader `reader` of the profile (from a script), as the device would send it.
    func key(reader: Int, code: UInt16, value: Int32, at t: UInt64) {
        if let usb = usbReaders[reader] {
            usb.key(code: code, value: value, at: t)
        } else {
            router.raw("card reader \(reader) is not started: key ignored")
        }
    }

    /// Stops every reader (the RC522 threads are joined). Safe to call twice.
    func stop() {
        for reader in usbReaders.values { reader.stop() }
        usbReaders.removeAll()
        for reader in rc522Readers { reader.stop() }
        rc522Readers.removeAll()
    }
}
