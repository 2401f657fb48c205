// SPDX-License-Identifier: GPL-3.0-or-later
import KioskHardware
import KioskInput

/// Check 5: the spidev devices of the SPI panel and the card readers present; a configured RC522
/// answers with a known version (its VersionReg, 0x37).
///
/// Thread: any (opens spidev and closes it).
public enum SPICheck {
    public static func lines(_ context: DoctorContext) -> [DoctorLine] {
        let resolved = context.resolved
        let root = context.root
        var lines: [DoctorLine] = []
        let spiFix =
            BootConfigCheck.onImage(root)
            ? BootConfigCheck.addLinesFix(["dtparam=spi=on"], root: root)
            : "add dtparam=spi=on to config.txt and reboot (CE0 is /dev/spidev0.0, CE1 /dev/spidev0.1)"
        if let panel = resolved.board.screen.spiPanel {
            let device = panel.device ?? "/dev/spidev\(panel.spiBus).\(panel.spiCS)"
            if root.exists(device) {
                lines.append(.pass("spi", "\(device) for the \(panel.controller.name) panel is present"))
            } else {
                lines.append(.fail("spi", "\(device) for the \(panel.controller.name) panel is missing", fix: spiFix))
            }
        }
        let readers = (try? resolved.inputProfile().cardReaders) ?? resolved.board.input.cardReaders
        for reader in readers {
            guard case .rc522(let rc522) = reader else { continue }
            let device = rc522.devicePath
            guard root.exists(device) else {
                lines.append(
                    rc522.optional
                        ? .info("spi", "\(device) for the optional RC522 reader is missing", fix: spiFix)
                        : .fail("spi", "\(device) for the RC522 reader is missing", fix: spiFix))
                continue
            }
            guard context.probeDevices else {
                lines.append(.pass("spi", "\(device) for the RC522 reader is present"))
                continue
            }
            switch readVersion(path: root.path(device), speedHz: rc522.speedHz) {
            case .success(let version) where MFRC522.knownVersions.contains(version):
                lines.append(.pass("spi", "RC522 on \(device) answers: version 0x\(hexByte(version))"))
            case .success(let version):
                let line = "no RC522 answers on \(device) (its version register reads 0x\(hexByte(version)))"
                let fix = "check the reader's wiring (MISO, MOSI, SCK, SDA to CE\(rc522.spiCS), 3.3 V, GND) and spiCS"
                lines.append(rc522.optional ? .info("spi", line, fix: fix) : .fail("spi", line, fix: fix))
            case .failure(let error):
                lines.append(
                    .fail("spi", "RC522 on \(device): \(error.message)", fix: "run as a member of the spi group"))
            }
        }
        if lines.isEmpty {
            lines.append(.info("spi", "no SPI panel or RC522 reader is configured"))
        }
        return lines
    }

    /// Reads the MFRC522 VersionReg (0x37): one two-byte transfer, the address byte `0x80 | reg << 1`.
    public static func readVersion(path: String, speedHz: Int) -> Result<UInt8, HardwareError> {
        do throws(HardwareError) {
            let device = try SpidevDevice(path: path, speedHz: speedHz)
            let reply = try device.transfer([0x80 | (0x37 << 1), 0x00])
            return .success(reply.count == 2 ? reply[1] : 0)
        } catch {
            return .failure(error)
        }
    }

    static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
