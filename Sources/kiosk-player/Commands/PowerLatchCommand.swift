// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskApp
import KioskCommandLine
import KioskConfig
import KioskCore
import KioskSystem

/// `kiosk-player power-latch release`: lets the board's power latch go at power-off
/// (deploy/systemd/kiosk-power-latch, a systemd-shutdown hook).
enum PowerLatchCommand {
    static var command: Command {
        Command(
            name: "power-latch",
            summary: "release the board's power latch line (run at power-off by systemd-shutdown)",
            synopsis: ["release [--config FILE] [--board NAME]"],
            description: """
                The player holds the line of the board profile's outputs.powerLatch active while it
                runs (an OnOff SHIM-style circuit keeps the power on while it is held). `release`
                drives it inactive, which cuts the power: systemd-shutdown runs it at power-off and
                halt (not at reboot), after every service stopped and the file systems were
                unmounted or made read-only. A board without a power latch: nothing to do (exit 0).

                """,
            options: [
                .text("--config", "FILE", "config file (default \(Config.defaultPath))"),
                .text("--board", "NAME", "board profile (overrides the config's \"board\")"),
                .integer(
                    "--hold-ms", "MS", 0...10_000,
                    "keep the line driven inactive this long before exiting (default 100)"),
            ],
            run: { parsed in
                guard parsed.positionals == ["release"] else { throw parsed.usageError("expected: release") }
                let config = try Config.load(path: parsed.value("--config"))
                let board = try BoardProfile.load(
                    name: parsed.value("--board") ?? config.board, extraDirectory: config.boardsDirectory)
                guard board.outputs.powerLatch != nil else {
                    printLine("power-latch: the board \(board.name) has no power latch; nothing to release")
                    return 0
                }
                let line = try PowerLatch.drive(board, active: false)
                printLine("power-latch: released line \(line.offset) on \(line.chip.path) (board \(board.name))")
                // The circuit sees the level while the line is held; after release the Pi keeps it.
                usleep(UInt32(parsed.int("--hold-ms") ?? 100) * 1000)
                return 0
            })
    }
}
