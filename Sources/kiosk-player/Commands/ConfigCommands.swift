// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCommandLine
import KioskConfig
import KioskCore
import KioskSystem

/// `kiosk-player check-config` and `kiosk-player boards`.
enum ConfigCommands {
    static var checkConfig: Command {
        Command(
            name: "check-config",
            summary: "validate a config file and its board profile; print the resolved config",
            synopsis: ["[FILE] [--board NAME]"],
            description: """
                Reads FILE (default \(Config.defaultPath); built-in defaults when it does not exist),
                loads the board profile it names (or --board), validates both and prints the fully
                resolved configuration as JSON. Exit status 1 with a message naming the file and the
                key path on the first error.

                """,
            options: [
                .text("--board", "NAME", "board profile (overrides the config's \"board\")"),
                .flag(
                    "--library-directories",
                    "print only the config's libraryDirectories, one per line (for the installer's unit drop-in)"),
                .flag(
                    "--framebuffer",
                    "print only the /dev/fbN the player would draw on now, nothing when none (for kiosk-console)"),
            ],
            run: { parsed in
                guard parsed.positionals.count <= 1 else { throw parsed.usageError("expected at most one FILE") }
                let config = try Config.load(path: parsed.positionals.first)
                if parsed.has("--library-directories") {
                    for folder in config.libraryDirectories { printLine(folder) }
                    return 0
                }
                let board = try BoardProfile.load(
                    name: parsed.value("--board") ?? config.board, extraDirectory: config.boardsDirectory,
                    hat: config.hat,
                    configFile: config.file)
                let resolved = ResolvedConfig(config: config, board: board)
                try resolved.validate()
                if parsed.has("--framebuffer") {
                    if let device = resolved.framebufferDevice() { printLine(device) }
                    return 0
                }
                printLine(resolved.json().serialized(pretty: true))
                return 0
            })
    }

    static var boards: Command {
        Command(
            name: "boards",
            summary: "list the board profiles (--check validates every one)",
            synopsis: ["[--check] [--dir DIR]"],
            description: """
                Lists the board profiles found in DIR, $KIOSK_BOARDS_DIR, /etc/kiosk-player/boards,
                /usr/share/kiosk-player/boards and the source checkout's boards/ (earlier wins).
                With --check, validates each (the loader's rules, and those of the profiles we ship: every
                button and key bound, audio devices that name their card) and exits 1 if any is invalid.

                """,
            options: [
                .flag("--check", "validate every profile; exit status 1 if any is invalid"),
                .text("--dir", "DIR", "look here first"),
            ],
            run: { parsed in
                let found = BoardProfile.available(extraDirectory: parsed.value("--dir"))
                if found.isEmpty {
                    printLine("no board profiles found")
                    return parsed.has("--check") ? 1 : 0
                }
                var failures = 0
                let width = (found.map(\.name.count).max() ?? 0) + 2
                for entry in found {
                    do {
                        let profile = try BoardProfile.load(file: entry.file)
                        let test = profile.isTest ? " [test]" : ""
                        let problems = parsed.has("--check") ? BoardLint.problems(profile) : []
                        if problems.isEmpty {
                            printLine("\(entry.name.padding(to: width))\(profile.description)\(test)")
                        } else {
                            failures += 1
                            for problem in problems {
                                printLine("\(entry.name.padding(to: width))INVALID: \(entry.file): \(problem)")
                            }
                        }
                    } catch {
                        failures += 1
                        printLine("\(entry.name.padding(to: width))INVALID: \(error)")
                    }
                }
                if parsed.has("--check") {
                    printLine(
                        failures == 0 ? "all \(found.count) profiles are valid" : "\(failures) invalid profile(s)")
                    return failures == 0 ? 0 : 1
                }
                return 0
            })
    }
}
