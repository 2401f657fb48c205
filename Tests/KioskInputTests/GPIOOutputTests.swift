import Glibc
import KioskInput
import KioskSystem
import Testing

/// Output lines (the SPI panel's data/command, reset and backlight) on a gpio-sim chip: the
/// simulator's sysfs `value` shows what the line drives. Part of `GPIOSimTests`, which the VM
/// system test runs (Tests/System/scenarios/90-input-kernel-devices.sh).
extension GPIOSimTests {
    func simulatedValue(_ chip: SimulatedChip, _ line: Int) throws -> String {
        let path = "\(chip.lineDirectory)/sim_gpio\(line)/value"
        return String(decoding: try Syscalls.readFile(path, limit: 64), as: UTF8.self).trimmingCharacters()
    }

    @Test(
        .enabled(if: SimulatedChip.unavailableReason == nil, Comment(rawValue: SimulatedChip.unavailableReason ?? "")))
    func outputLinesDriveTheSimulatedChip() throws {
        let sim = try SimulatedChip(lines: 8)
        let chip = try GPIOChip.find([sim.label]).get()
        let dc = try GPIOOutputLine(chip: chip, offset: 2, active: true, use: "screen data/command")
        #expect(try simulatedValue(sim, 2) == "1")
        try dc.set(false)
        #expect(try simulatedValue(sim, 2) == "0")
        #expect(!dc.isActive)

        // Active low (a reset line): active drives the pin low.
        let reset = try GPIOOutputLine(chip: chip, offset: 3, activeLow: true, active: false, use: "screen reset")
        #expect(try simulatedValue(sim, 3) == "1")
        try reset.set(true)
        #expect(try simulatedValue(sim, 3) == "0")

        // A second request of a held line names the holder.
        #expect {
            _ = try GPIOOutputLine(chip: chip, offset: 2, active: false, use: "screen backlight")
        } throws: { error in
            "\(error)".contains("line 2 (screen backlight)") && "\(error)".contains("busy")
                && "\(error)".contains("kiosk-player")
        }
        #expect {
            _ = try GPIOOutputLine(chip: chip, offset: 8, active: false, use: "screen backlight")
        } throws: { error in
            "\(error)".contains("does not exist: the chip has 8 lines")
        }
    }
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        String(self.filter { !$0.isWhitespace })
    }
}
