import Glibc
import KioskCore
import KioskHardware

/// Check 4: the board's GPIO chip found by label and each line the profile uses (buttons, encoders,
/// panel lines, card-reader resets) free, or who holds it (the kernel's line info consumer).
///
/// Thread: any (opens the chip and closes it).
public enum GPIOCheck {
    public static func lines(_ context: DoctorContext) -> [DoctorLine] {
        let board = context.resolved.board
        let profile = (try? context.resolved.inputProfile()) ?? board.input
        var used = profile.usedLines
        if let panel = board.screen.panel {
            for key in ["dc", "reset", "backlight"] {
                if let line = panel[key]?.int { used.append((line, "screen panel \(key)")) }
            }
        }
        guard !board.gpioChips.isEmpty, !used.isEmpty else {
            return [.info("gpio", "the profile \(board.name) uses no GPIO lines")]
        }
        let chip: GPIOChip
        switch GPIOChip.find(board.gpioChips, in: context.root.path("/dev")) {
        case .success(let found): chip = found
        case .failure(let error):
            let permission = error.message.contains("permission denied")
            return [
                .fail(
                    "gpio", error.message,
                    fix: permission
                        ? "run as a member of the gpio group (the service has it: SupplementaryGroups=gpio)"
                        : "check the profile's \"gpioChip\" labels against `gpiodetect` (a Pi's header is pinctrl-bcm2835, pinctrl-bcm2711 or pinctrl-rp1)"
                )
            ]
        }
        var lines: [DoctorLine] = [
            .pass(
                "gpio",
                "chip \(chip.path) \(chip.description), \(chip.lineCount) lines (\(GPIOChip.libraryDescription))")
        ]
        var free: [Int] = []
        for (line, use) in used.sorted(by: { $0.line < $1.line }) {
            guard line < chip.lineCount else {
                lines.append(
                    .fail(
                        "gpio", "line \(line) (\(use)) does not exist: the chip has \(chip.lineCount) lines",
                        fix: "correct the line number in \(board.file)"))
                continue
            }
            switch chip.lineUser(line) {
            case .success(nil): free.append(line)
            case .success(let consumer?) where consumer == "kiosk-player":
                lines.append(.info("gpio", "line \(line) (\(use)) is held by kiosk-player: the player is running"))
            case .success(let consumer?):
                let who = consumer.isEmpty ? "the kernel (a device-tree overlay or driver)" : "\"\(consumer)\""
                lines.append(
                    .fail(
                        "gpio", "line \(line) (\(use)) is held by \(who)",
                        fix:
                            "`gpioinfo \(chip.name)` shows the holder: remove the dtoverlay= or stop the program that claims line \(line), or move \(use) to a free line in the profile"
                    ))
            case .failure(let error):
                lines.append(
                    .fail("gpio", "line \(line) (\(use)): \(error.message)", fix: "run as a member of the gpio group"))
            }
        }
        if !free.isEmpty {
            lines.append(.pass("gpio", "lines \(free.map(String.init).joined(separator: ", ")) free"))
        }
        return lines
    }
}
