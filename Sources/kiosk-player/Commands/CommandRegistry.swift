/// Every subcommand, in the order `kiosk-player --help` lists them. One file per command.
enum CommandRegistry {
    static var all: [Command] {
        [
            RunCommand.run,
            RunCommand.demo,
            ConfigCommands.checkConfig,
            ConfigCommands.boards,
            PlayCommand.command,
            ScanCommand.command,
            RenderCommand.command,
            InputsCommand.command,
            BenchCommand.command,
        ]
    }
}
