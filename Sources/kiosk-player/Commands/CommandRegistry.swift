/// Every subcommand, in the order `kiosk-player --help` lists them. One file per command.
enum CommandRegistry {
    static var all: [Command] {
        [
            ConfigCommands.checkConfig,
            ConfigCommands.boards,
            BenchCommand.command,
        ]
    }
}
