// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCommandLine

/// Every subcommand, in the order `kiosk-player --help` lists them. One file per command; each
/// declares its options as data (`CommandOption`), from which its arguments are parsed and its
/// `--help` is made. The benchmarks are a program of their own, `kiosk-bench` (Sources/kiosk-bench),
/// so none of their code ships in this one.
enum CommandRegistry {
    static var tool: CommandLineTool {
        CommandLineTool(
            program: "kiosk-player", headline: "a music player appliance for single-board computers.", commands: all,
            moved: [
                "bench":
                    "the benchmarks are the program kiosk-bench now (built beside kiosk-player: kiosk-bench --help)"
            ])
    }

    static var all: [Command] {
        [
            RunCommand.run,
            RunCommand.demo,
            ConfigCommands.checkConfig,
            ConfigCommands.boards,
            PlayCommand.command,
            SayCommand.command,
            SpeakCommand.command,
            ScanCommand.command,
            RenderCommand.command,
            InputsCommand.command,
            CardsCommand.command,
            DoctorCommand.command,
            PowerLatchCommand.command,
        ]
    }
}
