// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskConfig
import KioskHardware

/// Check 4: the board's GPIO chip found by label and each line the profile uses (buttons, encoders,
/// panel lines, card-reader resets, the outputs) free, or who holds it (the kernel's line info
/// consumer); the outputs are listed in one line.
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
        used += board.outputs.usedLines
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
        if let outputs = describe(board.outputs) { lines.append(.info("gpio", outputs)) }
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

    /// "outputs: status light line 12 (playing steady, paused slow, …), power latch line 4"; nil
    /// when the profile has none.
    static func describe(_ outputs: BoardOutputs) -> String? {
        func name(_ line: BoardOutputs.Line) -> String { "line \(line.line)\(line.activeLow ? " active low" : "")" }
        var parts: [String] = []
        if let light = outputs.statusLight {
            let patterns = LightState.allCases.map { "\($0.rawValue) \((outputs.patterns[$0] ?? .off).rawValue)" }
            parts.append("status light \(name(light)) (\(patterns.joined(separator: ", ")))")
        }
        if let light = outputs.errorLight { parts.append("error light \(name(light)) (the error pattern)") }
        if let latch = outputs.powerLatch { parts.append("power latch \(name(latch))") }
        return parts.isEmpty ? nil : "outputs: " + parts.joined(separator: ", ")
    }
}
