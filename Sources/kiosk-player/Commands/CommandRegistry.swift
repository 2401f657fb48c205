/// Every subcommand, in the order `kiosk-player --help` lists them. One file per command.
enum CommandRegistry {
    static var all: [Command] {
        [
            ConfigCommands.checkConfig,
            ConfigCommands.boards,
            PlayCommand.command,
            BenchCommand.command,
            BenchCommand.command,
            ScanCommand.command,
            BenchCommand.command,
            InputsCommand.command,
            BenchCommand.command,
            RenderCommand.command,
        ]
    }
}
