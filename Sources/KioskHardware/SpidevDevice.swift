// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskSystem

/// An open spidev bus device (/dev/spidevB.C) through its ioctls: SPI mode 0, 8 bits per word, one
/// SPI_IOC_MESSAGE per write. Closes the device when it ends. What is wired to the bus (a panel's
/// controller, a card reader) is the caller's business.
///
/// Thread: one thread at a time (e.g. the SPI panel's worker once it is handed over).
public final class SpidevDevice: SPIBus, @unchecked Sendable {
    public let path: String
    /// The largest `write` accepted (spidev's `bufsiz`).
    public let maxTransferBytes: Int
    /// The default clock the device accepted (SPI_IOC_RD_MAX_SPEED_HZ after setting it).
    public let speedHz: Int
    private let fd: FileDescriptor

    /// spidev's transfer limit: /sys/module/spidev/parameters/bufsiz, else the driver's default 4096.
    public static func bufferSize(parameterFile: String = "/sys/module/spidev/parameters/bufsiz") -> Int {
        guard let bytes = try? Syscalls.readFile(parameterFile, limit: 64),
            let value = Int(String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }), value >= 64
        else { return 4096 }
        return value
    }

    /// Opens `path` and sets mode 0, 8 bits and `speedHz` as the default clock.
    public init(path: String, speedHz: Int, maxTransferBytes: Int = SpidevDevice.bufferSize()) throws(HardwareError) {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, O_RDWR) } catch {
            throw HardwareError(message: Self.describeOpenError(error, path: path))
        }
        if kiosk_spi_configure(fd.rawValue, 0, 8, UInt32(speedHz)) != 0 {
            let error = Errno.current
            throw HardwareError(
                message:
                    "\(path): cannot set SPI mode 0, 8 bits, \(speedHz) Hz: \(error.message) (is it a spidev device?)")
        }
        var mode: UInt8 = 0
        var bits: UInt8 = 0
        var speed: UInt32 = 0
        if kiosk_spi_read_configuration(fd.rawValue, &mode, &bits, &speed) != 0 {
            speed = UInt32(speedHz)
        }
        self.path = path
        self.fd = fd
        self.speedHz = Int(speed)
        self.maxTransferBytes = maxTransferBytes
    }

    /// Why `path` could not be opened, with what to check (SPI enabled, the spi group).
    public static func describeOpenError(_ error: Errno, path: String) -> String {
        switch error.rawValue {
        case ENOENT:
            return
                "\(path) does not exist: enable SPI (dtparam=spi=on in config.txt) and check the panel's spiBus/spiCS"
        case EACCES, EPERM: return "permission denied opening \(path) (the user needs the spi group, or root)"
        default: return "cannot open \(path): \(error.message)"
        }
    }

    /// Sends `bytes` (at most `maxTransferBytes`) as one transfer at `speedHz`.
    public func write(_ bytes: UnsafeRawBufferPointer, speedHz: Int) throws(HardwareError) {
        precondition(bytes.count <= maxTransferBytes, "transfer larger than spidev's bufsiz")
        if bytes.isEmpty { return }
        do throws(Errno) {
            _ = try Syscalls.retrying("SPI transfer") {
                kiosk_spi_write(fd.rawValue, bytes.baseAddress, UInt32(bytes.count), UInt32(speedHz))
            }
        } catch {
            throw HardwareError(message: "\(path): SPI transfer of \(bytes.count) bytes failed: \(error.message)")
        }
    }

    /// Sends `bytes` (at most `maxTransferBytes`) and returns what the chip clocked back, in one
    /// full-duplex transfer at the default clock.
    public func transfer(_ bytes: [UInt8]) throws(HardwareError) -> [UInt8] {
        precondition(bytes.count <= maxTransferBytes, "transfer larger than spidev's bufsiz")
        var received = [UInt8](repeating: 0, count: bytes.count)
        if bytes.isEmpty { return received }
        do throws(Errno) {
            _ = try Syscalls.retrying("SPI transfer") {
                bytes.withUnsafeBytes { tx in
                    received.withUnsafeMutableBytes { rx in
                        kiosk_spi_transfer(
                            fd.rawValue, tx.baseAddress, rx.baseAddress, UInt32(bytes.count), UInt32(speedHz))
                    }
                }
            }
        } catch {
            throw HardwareError(message: "\(path): SPI transfer of \(bytes.count) bytes failed: \(error.message)")
        }
        return received
    }
}
