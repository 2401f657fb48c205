// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskHardware
import KioskSystem
import KioskTestSupport
import Testing

/// The spidev bus: the ioctl ABI of the C shim, the buffer limit, errors (a real kernel spidev:
/// KioskDisplayTests' `SpidevKernelTests`, in the VM system test).
@Suite struct SpidevTests {
    /// struct spi_ioc_transfer and the request numbers, written out from linux/spi/spidev.h by
    /// hand (asm-generic ioctl: dir << 30 | size << 16 | 'k' << 8 | nr), against what the C shim
    /// compiled from the header.
    @Test func ioctlLayoutMatchesSpidevH() {
        var abi = kiosk_spi_abi()
        kiosk_spi_abi(&abi)
        #expect(abi.transfer_size == 32)
        #expect(abi.offset_tx_buf == 0 && abi.offset_rx_buf == 8 && abi.offset_len == 16)
        #expect(abi.offset_speed_hz == 20 && abi.offset_delay_usecs == 24 && abi.offset_bits_per_word == 26)
        #expect(abi.offset_cs_change == 27 && abi.offset_tx_nbits == 28 && abi.offset_rx_nbits == 29)
        #expect(abi.offset_word_delay_usecs == 30)
        func ioc(_ dir: UInt, _ nr: UInt, _ size: UInt) -> UInt {
            dir << 30 | size << 16 | UInt(UInt8(ascii: "k")) << 8 | nr
        }
        #expect(abi.message_1 == ioc(1, 0, 32))
        #expect(abi.message_1 == 0x4020_6B00)
        #expect(abi.wr_mode == ioc(1, 1, 1))
        #expect(abi.wr_bits_per_word == ioc(1, 3, 1))
        #expect(abi.wr_max_speed_hz == ioc(1, 4, 4))
        #expect(abi.rd_max_speed_hz == ioc(2, 4, 4))
    }

    @Test func aMissingDeviceOrANonSPIDeviceIsAClearError() {
        #expect(
            throws: HardwareError(
                message: SpidevDevice.describeOpenError(Errno(rawValue: ENOENT), path: "/dev/spidev-not-here"))
        ) {
            _ = try SpidevDevice(path: "/dev/spidev-not-here", speedHz: 1_000_000)
        }
        #expect {
            _ = try SpidevDevice(path: "/dev/null", speedHz: 1_000_000)
        } throws: { error in
            "\(error)".hasPrefix("/dev/null: cannot set SPI mode 0, 8 bits, 1000000 Hz: ")
                && "\(error)".hasSuffix("(is it a spidev device?)")
        }
    }

    @Test func bufferSizeComesFromTheModuleParameter() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("bufsiz", "65536\n")
        #expect(SpidevDevice.bufferSize(parameterFile: dir.file("bufsiz")) == 65536)
        try dir.write("bufsiz", "junk\n")
        #expect(SpidevDevice.bufferSize(parameterFile: dir.file("bufsiz")) == 4096)
        #expect(SpidevDevice.bufferSize(parameterFile: dir.file("missing")) == 4096)
    }

    /// The real ioctl path on a descriptor that is not spidev: refused by the kernel (ENOTTY).
    @Test func spiIoctlsOnANonSPIDescriptorFail() throws {
        let fd = try Syscalls.open("/dev/null", O_RDWR)
        defer { Syscalls.closeIgnoringErrors(fd) }
        errno = 0
        #expect(kiosk_spi_configure(fd, 0, 8, 1_000_000) == -1)
        if errno == ENOSYS {
            // No kernel answers an ioctl with ENOSYS; qemu-user does for requests it does not emulate.
            try skipTest("qemu-user does not emulate the SPI ioctls (ENOSYS); the aarch64 system test runs this")
            return
        }
        #expect(errno == ENOTTY)
        var byte: UInt8 = 0x2C
        #expect(kiosk_spi_write(fd, &byte, 1, 1_000_000) == -1)
    }
}
