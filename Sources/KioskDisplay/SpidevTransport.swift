// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskHardware
import KioskSystem

/// The real wires of an SPI panel: the bus through `SpidevDevice` (KioskHardware), the
/// data/command, reset and backlight lines through `GPIOOutputLine` (consumer "kiosk-player").
///
/// Thread: one thread at a time (the panel surface's worker).
public final class SpidevTransport: SPIPanelTransport, @unchecked Sendable {
    public let bus: SpidevDevice
    private let dc: GPIOOutputLine
    private let resetLine: GPIOOutputLine?
    private let backlightLine: GPIOOutputLine?

    /// Takes the opened bus and the already-requested lines.
    public init(bus: SpidevDevice, dc: GPIOOutputLine, reset: GPIOOutputLine? = nil, backlight: GPIOOutputLine? = nil) {
        self.bus = bus
        self.dc = dc
        resetLine = reset
        backlightLine = backlight
    }

    /// The spidev device path ("/dev/spidev0.0").
    public var device: String { bus.path }
    public var maxTransferBytes: Int { bus.maxTransferBytes }
    /// The default clock the device accepted.
    public var speedHz: Int { bus.speedHz }

    /// Opens the panel's spidev device and requests its lines on the first chip of `gpioChips`
    /// that exists (the panel's own `gpioChip` list wins): DC low, reset released, backlight off.
    public static func open(_ panel: SPIPanelDescription, gpioChips: [String]) throws(SPIPanelError) -> SpidevTransport
    {
        // The bus first: without it the lines are not worth taking.
        let device = panel.devicePath
        if !Syscalls.exists(device) {
            throw SPIPanelError(SpidevDevice.describeOpenError(Errno(rawValue: ENOENT), path: device))
        }
        let chip: GPIOChip
        switch GPIOChip.find(panel.gpioChips ?? gpioChips) {
        case .success(let found): chip = found
        case .failure(let error): throw SPIPanelError("screen panel lines: \(error.message)")
        }
        do throws(HardwareError) {
            let dc = try GPIOOutputLine(chip: chip, offset: panel.dc, active: false, use: "screen data/command")
            let reset = try panel.reset.map { (offset) throws(HardwareError) in
                try GPIOOutputLine(chip: chip, offset: offset, activeLow: true, active: false, use: "screen reset")
            }
            let backlight = try panel.backlight.map { (offset) throws(HardwareError) in
                try GPIOOutputLine(
                    chip: chip, offset: offset, activeLow: panel.backlightActiveLow, active: false,
                    use: "screen backlight")
            }
            let bus = try SpidevDevice(path: device, speedHz: panel.speedHz)
            return SpidevTransport(bus: bus, dc: dc, reset: reset, backlight: backlight)
        } catch {
            throw SPIPanelError(error.message)
        }
    }

    public var hasReset: Bool { resetLine != nil }

    public func setDataMode(_ isData: Bool) throws(SPIPanelError) {
        try drive(dc, isData)
    }

    public func write(_ bytes: UnsafeRawBufferPointer, speedHz: Int) throws(SPIPanelError) {
        do throws(HardwareError) { try bus.write(bytes, speedHz: speedHz) } catch { throw SPIPanelError(error.message) }
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
        do throws(HardwareError) { try line.set(active) } catch { throw SPIPanelError("screen: \(error.message)") }
    }
}
