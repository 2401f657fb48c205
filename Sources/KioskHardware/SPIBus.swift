// SPDX-License-Identifier: GPL-3.0-or-later
/// A full-duplex SPI bus to one chip select: every byte sent clocks one byte back. What a chip
/// that answers (an MFRC522 card reader) is driven through; `SpidevDevice` is the real one, tests
/// put a simulated chip behind it.
///
/// Thread: one thread at a time (the card reader's worker).
public protocol SPIBus: AnyObject {
    /// Where it is, for messages ("/dev/spidev0.1").
    var path: String { get }
    /// Sends `bytes` and returns the bytes received while they were sent (as many).
    func transfer(_ bytes: [UInt8]) throws(HardwareError) -> [UInt8]
}
