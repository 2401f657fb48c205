// SPDX-License-Identifier: GPL-3.0-or-later
/// Every subcommand, in the order `kiosk-player --help` lists them. One file per command; each
/// declares its options as data (`CommandOption`), from which its arguments are parsed and its
/// `--help` is made. The benchmarks (`bench`) live in ../Benchmarks, apart from the run path.
enum CommandRegistry {
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
            BenchCommand.command,
        ]
    }
}
