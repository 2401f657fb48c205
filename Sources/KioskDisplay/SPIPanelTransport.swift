import CKioskShims
import Glibc
import KioskInput
import KioskSystem
import Synchronization

/// An SPI panel could not be opened or talked to; the message names the device or line and what
/// to do. Thread: a value.
public struct SPIPanelError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The wires of an SPI panel: the bus (MOSI/SCLK/CS), the data/command line, and the optional
/// reset and backlight lines. `SpidevTransport` is the real one (spidev + libgpiod);
/// `RecordingSPITransport` keeps everything sent, for tests and benchmarks.
///
/// Thread: one thread at a time (the panel surface's worker).
public protocol SPIPanelTransport: AnyObject, Sendable {
    /// The largest `write` accepted (spidev's `bufsiz`).
    var maxTransferBytes: Int { get }
    /// Whether there is a reset line.
    var hasReset: Bool { get }
    /// Drives the data/command line: false = command (low), true = data (high).
    func setDataMode(_ isData: Bool) throws(SPIPanelError)
    /// Sends `bytes` (at most `maxTransferBytes`) as one transfer at `speedHz`.
    func write(_ bytes: UnsafeRawBufferPointer, speedHz: Int) throws(SPIPanelError)
    /// Holds the controller in reset (true: the line low) or lets it run.
    func setReset(_ asserted: Bool) throws(SPIPanelError)
    /// Backlight on or off (no-op without a backlight line).
    func setBacklight(_ on: Bool) throws(SPIPanelError)
    /// Waits (the controller needs time after reset, sleep-out...).
    func pause(milliseconds: Int)
}

/// spidev's transfer limit: /sys/module/spidev/parameters/bufsiz, else the driver's default 4096.
public func spidevBufferSize(parameterFile: String = "/sys/module/spidev/parameters/bufsiz") -> Int {
    guard let bytes = try? Syscalls.readFile(parameterFile, limit: 64),
        let value = Int(String(decoding: bytes, as: UTF8.self).trimmingSpaces), value >= 64
    else { return 4096 }
    return value
}

/// The real wires: /dev/spidevB.C through its ioctls (SPI mode 0, 8 bits, one SPI_IOC_MESSAGE per
/// transfer), the control lines through libgpiod (consumer "kiosk-player").
///
/// Thread: one thread at a time (the panel surface's worker).
public final class SpidevTransport: SPIPanelTransport, @unchecked Sendable {
    public let device: String
    public let maxTransferBytes: Int
    /// The default clock the device accepted (SPI_IOC_RD_MAX_SPEED_HZ after setting it).
    public let speedHz: Int
    private let fd: Int32
    private let dc: GPIOOutputLine
    private let resetLine: GPIOOutputLine?
    private let backlightLine: GPIOOutputLine?

    /// Opens `device` and configures it; takes the already-requested lines.
    public init(
        device: String, speedHz: Int, dc: GPIOOutputLine, reset: GPIOOutputLine? = nil,
        backlight: GPIOOutputLine? = nil, maxTransferBytes: Int = spidevBufferSize()
    ) throws(SPIPanelError) {
        let fd: Int32
        do { fd = try Syscalls.open(device, O_RDWR) } catch {
            throw SPIPanelError(Self.describeOpenError(error, device: device))
        }
        if kiosk_spi_configure(fd, 0, 8, UInt32(speedHz)) != 0 {
            let error = Errno.current
            Syscalls.closeIgnoringErrors(fd)
            throw SPIPanelError(
                "\(device): cannot set SPI mode 0, 8 bits, \(speedHz) Hz: \(error.message) (is it a spidev device?)")
        }
        var mode: UInt8 = 0
        var bits: UInt8 = 0
        var speed: UInt32 = 0
        if kiosk_spi_read_configuration(fd, &mode, &bits, &speed) != 0 {
            speed = UInt32(speedHz)
        }
        self.device = device
        self.fd = fd
        self.speedHz = Int(speed)
        self.maxTransferBytes = maxTransferBytes
        self.dc = dc
        resetLine = reset
        backlightLine = backlight
    }

    deinit {
        Syscalls.closeIgnoringErrors(fd)
    }

    static func describeOpenError(_ error: Errno, device: String) -> String {
        switch error.rawValue {
        case ENOENT:
            return
                "\(device) does not exist: enable SPI (dtparam=spi=on in config.txt) and check the panel's spiBus/spiCS"
        case EACCES, EPERM: return "permission denied opening \(device) (the user needs the spi group, or root)"
        default: return "cannot open \(device): \(error.message)"
        }
    }

    /// Opens the panel's spidev device and requests its lines on the first chip of `gpioChips`
    /// that exists (the panel's own `gpioChip` list wins): DC low, reset released, backlight off.
    public static func open(_ panel: SPIPanelDescription, gpioChips: [String]) throws(SPIPanelError) -> SpidevTransport
    {
        // The bus first: without it the lines are not worth taking.
        let device = panel.devicePath
        if !Syscalls.exists(device) {
            throw SPIPanelError(describeOpenError(Errno(rawValue: ENOENT), device: device))
        }
        let chip: GPIOChip
        switch GPIOChip.find(panel.gpioChips ?? gpioChips) {
        case .success(let found): chip = found
        case .failure(let error): throw SPIPanelError("screen panel lines: \(error.message)")
        }
        do {
            let dc = try GPIOOutputLine(chip: chip, offset: panel.dc, active: false, use: "screen data/command")
            let reset = try panel.reset.map {
                try GPIOOutputLine(chip: chip, offset: $0, activeLow: true, active: false, use: "screen reset")
            }
            let backlight = try panel.backlight.map {
                try GPIOOutputLine(
                    chip: chip, offset: $0, activeLow: panel.backlightActiveLow, active: false, use: "screen backlight")
            }
            return try SpidevTransport(
                device: device, speedHz: panel.speedHz, dc: dc, reset: reset, backlight: backlight)
        } catch let error as InputError {
            throw SPIPanelError(error.message)
        } catch let error as SPIPanelError {
            throw error
        } catch {
            throw SPIPanelError("\(error)")
        }
    }

    public var hasReset: Bool { resetLine != nil }

    public func setDataMode(_ isData: Bool) throws(SPIPanelError) {
        try drive(dc, isData)
    }

    public func write(_ bytes: UnsafeRawBufferPointer, speedHz: Int) throws(SPIPanelError) {
        precondition(bytes.count <= maxTransferBytes, "transfer larger than spidev's bufsiz")
        if bytes.isEmpty { return }
        let rc = kiosk_spi_write(fd, bytes.baseAddress, UInt32(bytes.count), UInt32(speedHz))
        if rc < 0 {
            let error = Errno.current
            throw SPIPanelError("\(device): SPI transfer of \(bytes.count) bytes failed: \(error.message)")
        }
    }

    public func setReset(_ asserted: Bool) throws(SPIPanelError) {
        if let resetLine { try drive(resetLine, asserted) }
    }

    public func setBacklight(_ on: Bool) throws(SPIPanelError) {
        if let backlightLine { try drive(backlightLine, on) }
    }

    public func pause(milliseconds: Int) {
        if milliseconds > 0 { Syscalls.sleep(nanoseconds: UInt64(milliseconds) * 1_000_000) }
    }

    private func drive(_ line: GPIOOutputLine, _ active: Bool) throws(SPIPanelError) {
        if line.isActive == active { return }
        do { try line.set(active) } catch { throw SPIPanelError("screen: \(error)") }
    }
}

/// A transport that keeps everything sent, in order, and never sleeps: what a logic analyser on
/// the panel's pins would show. Tests decode it into panel memory; the benchmark counts it.
///
/// Thread: any (a lock inside); the surface's worker writes, the test reads after `flush`.
public final class RecordingSPITransport: SPIPanelTransport, Sendable {
    /// One thing that happened on the wires.
    public enum Event: Sendable, Equatable {
        case dataMode(Bool)
        case write([UInt8], speedHz: Int)
        case reset(Bool)
        case backlight(Bool)
        case pause(milliseconds: Int)
    }

    public let maxTransferBytes: Int
    public let hasReset: Bool
    /// Without a backlight line nothing is recorded for it (as the real transport drives nothing).
    public let hasBacklight: Bool
    private let state = Mutex<(events: [Event], failure: SPIPanelError?, keep: Bool)>(([], nil, true))

    /// - Parameter keepEvents: false keeps only counts of what was written (long benchmarks).
    public init(
        maxTransferBytes: Int = 4096, hasReset: Bool = false, hasBacklight: Bool = true, keepEvents: Bool = true
    ) {
        self.maxTransferBytes = maxTransferBytes
        self.hasReset = hasReset
        self.hasBacklight = hasBacklight
        state.withLock { $0.keep = keepEvents }
    }

    /// Everything recorded so far.
    public var events: [Event] { state.withLock { $0.events } }

    /// Forgets what was recorded.
    public func clear() { state.withLock { $0.events.removeAll() } }

    /// Makes every following call fail with `failure` (nil: work again), as a vanished device would.
    public func fail(with failure: SPIPanelError?) { state.withLock { $0.failure = failure } }

    private func record(_ event: Event) throws(SPIPanelError) {
        let failure: SPIPanelError? = state.withLock { s in
            if let f = s.failure { return f }
            if s.keep { s.events.append(event) }
            return nil
        }
        if let failure { throw failure }
    }

    public func setDataMode(_ isData: Bool) throws(SPIPanelError) { try record(.dataMode(isData)) }

    public func write(_ bytes: UnsafeRawBufferPointer, speedHz: Int) throws(SPIPanelError) {
        guard bytes.count <= maxTransferBytes else {
            throw SPIPanelError("transfer of \(bytes.count) bytes exceeds the \(maxTransferBytes)-byte limit")
        }
        try record(.write([UInt8](bytes), speedHz: speedHz))
    }

    public func setReset(_ asserted: Bool) throws(SPIPanelError) {
        if hasReset { try record(.reset(asserted)) }
    }

    public func setBacklight(_ on: Bool) throws(SPIPanelError) {
        if hasBacklight { try record(.backlight(on)) }
    }
    public func pause(milliseconds: Int) { try? record(.pause(milliseconds: milliseconds)) }
}
