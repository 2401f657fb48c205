// SPDX-License-Identifier: GPL-3.0-or-later
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
