// SPDX-License-Identifier: GPL-3.0-or-later
import KioskHardware
import KioskSystem
import KioskTestSupport
import Testing

/// Output lines (e.g. the SPI panel's data/command, reset and backlight) on a gpio-sim chip: the
/// simulator's sysfs `value` shows what the line drives. Named `GPIOSimTests` like the input
/// lines' suite, so that the VM system test runs both (Tests/System/scenarios/90-input-kernel-devices.sh).
@Suite(.tags(.integration), .serialized) struct GPIOSimTests {
    @Test(
        .enabled(if: SimulatedChip.unavailableReason == nil, Comment(rawValue: SimulatedChip.unavailableReason ?? "")))
    func outputLinesDriveTheSimulatedChip() throws {
        let sim = try SimulatedChip(lines: 8)
        let chip = try GPIOChip.find([sim.label]).get()
        let dc = try GPIOOutputLine(chip: chip, offset: 2, active: true, use: "screen data/command")
        #expect(try sim.value(2) == "1")
        try dc.set(false)
        #expect(try sim.value(2) == "0")
        #expect(!dc.isActive)

        // Active low (a reset line): active drives the pin low.
        let reset = try GPIOOutputLine(chip: chip, offset: 3, activeLow: true, active: false, use: "screen reset")
        #expect(try sim.value(3) == "1")
        try reset.set(true)
        #expect(try sim.value(3) == "0")

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
