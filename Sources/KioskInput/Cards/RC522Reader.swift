// SPDX-License-Identifier: GPL-3.0-or-later
import KioskHardware
import KioskModel
import KioskSystem

/// An RC522 module polled on a worker thread of its own: every `pollMs` (every `idlePollMs` while
/// the box idles with its screen asleep, so a card still wakes it), one
/// `MFRC522.readCard()` (a few SPI transfers, up to the chip's 25 ms timeout when no card
/// answers), so the loop thread never waits on the bus. Cards presented and removed reach the loop
/// through a mailbox, as do problems: a missing spidev device or a chip that does not answer is
/// reported once by name and tried again every `retryMs`; the other inputs keep working.
///
/// Thread: create, `setAwake`, `stop` on the loop thread; the worker owns the bus and the chip.
public final class RC522Reader {
    /// What the worker tells the loop.
    enum Message: Sendable {
        case card(CardEvent)
        case problem(String)
        case raw(String)
    }

    /// Opens the bus (and resets the chip through its reset line): on the worker thread, at start
    /// and at each retry. The real one opens spidev and libgpiod; tests give a simulated chip.
    public typealias OpenBus = @Sendable () throws(HardwareError) -> any SPIBus

    public let config: RC522Config
    public let retryMs: Int
    /// Between polls while idle: a card put on a sleeping box is seen within a second.
    public static let idlePollMs = 1_000
    private let shared = Locked<(idle: Bool, stopped: Bool)>((false, false))
    private let wake = EventCount()
    private var thread: KioskThread?
    private var mailbox: Mailbox<Message>?

    /// Starts polling. `onCard`, `onProblem` and `onRaw` run on the loop thread.
    public init(
        config: RC522Config, loop: EventLoop, retryMs: Int = 5_000, openBus: OpenBus? = nil,
        gpioChips: [String] = [], onCard: @escaping (CardEvent) -> Void, onProblem: @escaping (String) -> Void,
        onRaw: @escaping (String) -> Void
    ) throws(Errno) {
        self.config = config
        self.retryMs = retryMs
        let mailbox = Mailbox<Message>(loop: loop) { message in
            switch message {
            case .card(let event): onCard(event)
            case .problem(let text): onProblem(text)
            case .raw(let text): onRaw(text)
            }
        }
        self.mailbox = mailbox
        let open = openBus ?? Self.spidev(config, gpioChips: config.gpioChips ?? gpioChips)
        let worker = Worker(
            config: config, retryMs: retryMs, shared: shared, wake: wake, mailbox: mailbox, openBus: open)
        thread = try KioskThread(name: "rc522") { worker.run() }
    }

    deinit { stop() }

    /// Polls every `idlePollMs` while true (the screen asleep), every `pollMs` again when false.
    public func setIdle(_ idle: Bool) {
        shared.withLock { $0.idle = idle }
        wake.signal()
    }

    /// Ends the worker and waits for it (at most one poll).
    public func stop() {
        shared.withLock { $0.stopped = true }
        wake.signal()
        thread?.join()
        thread = nil
    }

    /// The real bus: spidev at the configured clock, after a pulse on the reset line when there is one.
    static func spidev(_ config: RC522Config, gpioChips: [String]) -> OpenBus {
        { () throws(HardwareError) -> any SPIBus in
            let path = config.devicePath
            if !Syscalls.exists(path) {
                throw HardwareError(
                    message:
                        "\(path) does not exist: enable SPI (dtparam=spi=on in config.txt) and check the reader's spiBus/spiCS"
                )
            }
            if let offset = config.reset {
                let chip: GPIOChip
                switch GPIOChip.find(gpioChips) {
                case .success(let found): chip = found
                case .failure(let error): throw HardwareError(message: "rc522 reset line: \(error.message)")
                }
                // Low for a millisecond powers the chip down; high again starts it (NRSTPD).
                let line = try GPIOOutputLine(chip: chip, offset: offset, active: false, use: "rc522 reset")
                Syscalls.sleep(nanoseconds: 1_000_000)
                try line.set(true)
                Syscalls.sleep(nanoseconds: 50_000_000)
                return ResetHeldBus(bus: try SpidevDevice(path: path, speedHz: config.speedHz), reset: line)
            }
            return try SpidevDevice(path: path, speedHz: config.speedHz)
        }
    }

    /// The worker's side. Thread: the worker only (its fields); `shared` and `wake` are the crossing.
    private final class Worker: @unchecked Sendable {
        let config: RC522Config
        let retryMs: Int
        let shared: Locked<(idle: Bool, stopped: Bool)>
        let wake: EventCount
        let mailbox: Mailbox<Message>
        let openBus: OpenBus
        var chip: MFRC522?
        var presence = CardPresence()
        var reportedProblem = false
        var badReplies = 0

        init(
            config: RC522Config, retryMs: Int, shared: Locked<(idle: Bool, stopped: Bool)>, wake: EventCount,
            mailbox: Mailbox<Message>, openBus: @escaping OpenBus
        ) {
            self.config = config
            self.retryMs = retryMs
            self.shared = shared
            self.wake = wake
            self.mailbox = mailbox
            self.openBus = openBus
        }

        var source: String { "rc522 \(config.devicePath)" }

        func run() {
            while true {
                let key = wake.prepare()
                let (idle, stopped) = shared.withLock { ($0.idle, $0.stopped) }
                if stopped { break }
                var pause = idle ? max(config.pollMs, RC522Reader.idlePollMs) : config.pollMs
                if chip == nil {
                    if !connect() { pause = retryMs }
                } else {
                    poll()
                }
                wake.wait(key, timeoutNanoseconds: Int64(pause) * 1_000_000)
            }
            if let chip { try? chip.antennaOff() }
            chip = nil
        }

        func connect() -> Bool {
            do throws(HardwareError) {
                let chip = MFRC522(bus: try openBus())
                do throws(CardReadError) {
                    try chip.initialize()
                } catch {
                    report(error.description)
                    return false
                }
                self.chip = chip
                if reportedProblem { mailbox.send(.raw("\(source): the reader answers again")) }
                reportedProblem = false
                Log.info("card reader: MFRC522 version 0x\(CardUID.hex(chip.version)) on \(config.devicePath)")
                mailbox.send(.raw("card reader \(source) connected (version 0x\(CardUID.hex(chip.version)))"))
                return true
            } catch {
                report(error.message)
                return false
            }
        }

        func report(_ text: String) {
            guard !reportedProblem else { return }
            reportedProblem = true
            if config.optional {
                // The board may have no reader: a note, looked for again all the same.
                Log.info("card reader (optional): \(text); looking again every \(retryMs) ms")
                mailbox.send(.raw("card reader (optional): \(text)"))
            } else {
                mailbox.send(.problem("card reader: \(text); trying again every \(retryMs) ms, the other inputs work"))
            }
        }

        func poll() {
            guard let chip else { return }
            var seen: CardUID?
            do throws(CardReadError) {
                seen = try chip.readCard().map(CardUID.init(bytes:))
                badReplies = 0
            } catch {
                switch error {
                case .bus, .noChip:
                    self.chip = nil
                    report("\(source) stopped: \(error.description)")
                    send(presence.forget())
                    return
                case .badReply, .collision, .cardLeft:
                    // One bad read counts as not seeing the card; the field keeps going.
                    badReplies += 1
                    if badReplies == 1 { mailbox.send(.raw("\(source): \(error.description)")) }
                }
            }
            send(presence.observe(seen))
        }

        func send(_ changes: [(CardEvent.Kind, CardUID)]) {
            let now = Syscalls.monotonicNanoseconds()
            for (kind, uid) in changes {
                mailbox.send(.card(CardEvent(kind, uid: uid, source: source, timestampNs: now)))
            }
        }
    }
}

/// A spidev bus whose chip's reset line is held high for as long as the bus is in use.
///
/// Thread: the card reader's worker.
final class ResetHeldBus: SPIBus {
    let bus: SpidevDevice
    let reset: GPIOOutputLine

    init(bus: SpidevDevice, reset: GPIOOutputLine) {
        self.bus = bus
        self.reset = reset
    }

    var path: String { bus.path }

    func transfer(_ bytes: [UInt8]) throws(HardwareError) -> [UInt8] { try bus.transfer(bytes) }
}
