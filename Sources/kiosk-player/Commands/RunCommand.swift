// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskApp
import KioskAudio
import KioskCommandLine
import KioskConfig
import KioskCore
import KioskDoctor
import KioskMPD
import KioskSystem

/// `kiosk-player run` (the appliance, as systemd starts it) and `kiosk-player demo`.
enum RunCommand {
    static let screenTypes = ScreenType.allCases.map(\.rawValue)

    /// The --screen choice (the parser has checked it is one of `screenTypes`).
    static func screenType(_ parsed: ParsedArguments) -> ScreenType? {
        parsed.value("--screen").flatMap(ScreenType.init(rawValue:))
    }

    static var run: Command {
        Command(
            name: "run",
            summary: "the appliance: play from USB sticks, buttons in, screen out (systemd runs this)",
            synopsis: ["[--config FILE] [--board NAME] [OPTIONS]"],
            description: """
                Runs the player until SIGTERM/SIGINT: watches the media roots for USB sticks, reads the
                board's buttons and encoders, draws on its screen, plays through ALSA, and saves its state
                so that a power cut loses at most 5 s; after a restart the saved track plays again as soon
                as its stick is mounted. Config errors (file, key path, what was expected) exit with 1.

                """,
            options: [
                .text("--config", "FILE", "config file (default \(Config.defaultPath); defaults when missing)"),
                .text("--board", "NAME", "board profile (overrides the config's \"board\")"),
                .choice("--screen", "TYPE", screenTypes, screenTypes.joined(separator: " | ")),
                .text(
                    "--png", "FILE",
                    """
                    with --screen png: the file each frame is written to (without it:
                    one file per frame in screen.pngDirectory, else STATE/screen.png)
                    """),
                .text("--library", "DIR", "also play the music files under DIR (a folder, not a mount); repeatable"),
                .text("--script", "FILE", "replay a JSON-lines event script as input"),
                .integer("--exit-after-script", "MS", 0...3_600_000, "stop MS milliseconds after the script ends"),
                .flag("--keyboard", "use the terminal as buttons (default: when it is one)"),
                .flag("--no-keyboard", "do not use the terminal as buttons"),
                .text("--mpd-socket", "PATH", "serve the MPD protocol on this Unix socket (overrides mpd.socket)"),
                .text("--mpd-listen", "HOST:PORT", "serve the MPD protocol over TCP (overrides mpd.listen)"),
            ],
            run: { parsed in
                guard parsed.positionals.isEmpty else {
                    throw parsed.usageError("unexpected argument '\(parsed.positionals[0])'")
                }
                var config = try Config.load(path: parsed.value("--config"))
                config.imported.log()
                if let socket = parsed.value("--mpd-socket") { config.mpd.socket = socket }
                if let listen = parsed.value("--mpd-listen") { config.mpd.listen = listen }
                _ = try MPDSettings.from(config.mpd, file: config.file.isEmpty ? "--mpd-socket" : config.file)
                let board = try BoardProfile.load(
                    name: parsed.value("--board") ?? config.board, extraDirectory: config.boardsDirectory,
                    hat: config.hat, configFile: config.file)
                var options = ApplianceOptions()
                options.screenType = screenType(parsed)
                options.pngPath = parsed.value("--png")
                options.extraVolumes = parsed.all("--library")
                options.script = parsed.value("--script")
                options.exitAfterScriptMs = parsed.int("--exit-after-script")
                if parsed.has("--keyboard") { options.keyboard = true }
                if parsed.has("--no-keyboard") { options.keyboard = false }
                options.services = [
                    MPDService.make, SetupCheck.make, SettingsErrorNotice.make, UpdateNoticeWatch.make,
                ]
                let resolved = ResolvedConfig(config: config, board: board)
                try resolved.validate()
                let appliance = try Appliance(resolved: resolved, options: options)
                return try appliance.run()
            })
    }

    static var demo: Command {
        Command(
            name: "demo",
            summary: "the player on a generated demo library, the keyboard as buttons, the terminal as screen",
            synopsis: ["[--dir DIR] [--device PCM] [--screen TYPE] [--png FILE] [--script FILE]"],
            description: """
                Generates a small demo library (FLAC files written with libFLAC's encoder: albums,
                artists, genres, a playlist, cover art embedded and as cover.jpg, a Japanese album) under
                DIR (default /tmp/kiosk-player-demo-UID), then runs the player on it with the keyboard as
                buttons and the terminal as the screen (a PNG file when stdout is not a terminal): the
                picture scaled to the terminal, what plays in words under it and the keys beside it
                (COLUMNS and LINES, when both are set, choose the terminal's size).
                Audio goes to the default ALSA device when it opens, otherwise to a silent real-time sink.
                MPD clients connect to DIR/mpd.socket (e.g. mpc -h DIR/mpd.socket status).

                """,
            options: [
                .text("--dir", "DIR", "where the demo library and state live"),
                .text("--device", "PCM", "ALSA device (or \"none\")"),
                .choice(
                    "--screen", "TYPE", screenTypes, "terminal | png | none (default: terminal when stdout is one)"),
                .text("--png", "FILE", "with --screen png: the file frames go to (default DIR/screen.png)"),
                .text("--script", "FILE", "replay a JSON-lines event script instead of typing"),
                .integer("--exit-after-script", "MS", 0...3_600_000, "stop MS milliseconds after the script ends"),
            ],
            run: { parsed in
                guard parsed.positionals.isEmpty else {
                    throw parsed.usageError("unexpected argument '\(parsed.positionals[0])'")
                }
                let root = parsed.value("--dir") ?? "/tmp/kiosk-player-demo-\(getuid())"
                printLine("Preparing the demo library in \(root) …")
                let music = try DemoLibrary.prepare(root: root)
                var config = Config()
                config.stateDirectory = root + "/state"
                config.mediaRoots = []
                let device: AudioDevice
                var notes: [String] = []
                if let chosen = parsed.value("--device") {
                    device = AudioDevice(name: chosen)
                } else if let problem = ALSAOutput.probe(device: "default") {
                    let note = "No sound card: you will hear nothing; the player plays into a silent sink."
                    printLine("Note: \(note) (The default ALSA device: \(problem).)")
                    notes.append(note)
                    device = .silent
                } else {
                    device = ResolvedConfig.defaultDevice
                }
                config.audio.device = device
                config.audio.realtimePriority = 0
                // MPD clients can drive the demo too: mpc -h DIR/mpd.socket status
                config.mpd.socket = root + "/mpd.socket"
                let board = try BoardProfile.parse(
                    Array(#"{"name": "demo", "description": "keyboard as buttons", "screen": {"type": "none"}}"#.utf8),
                    file: "(demo)")
                var options = ApplianceOptions()
                let interactive = isatty(0) != 0 && isatty(1) != 0
                options.screenType = screenType(parsed) ?? (interactive ? .terminal : .png)
                options.pngPath = parsed.value("--png") ?? root + "/screen.png"
                options.extraVolumes = [music]
                options.script = parsed.value("--script")
                options.exitAfterScriptMs = parsed.int("--exit-after-script")
                options.keyboard = isatty(0) != 0
                options.printKeymap = true
                options.terminalNotes = notes
                options.shutdownQuits = true
                options.services = [MPDService.make]
                if options.screenType == .png { printLine("Screen frames go to \(options.pngPath!)") }
                if options.screenType == .terminal {
                    // The terminal is the picture: log lines there would be drawn over it.
                    let logPath = root + "/demo.log"
                    printLine("Log: \(logPath)")
                    options.terminalNotes.append("Log: \(logPath)")
                    do throws(Errno) {
                        try Log.redirect(toFile: logPath)
                    } catch {
                        printLine("cannot write the log to \(logPath): \(error); it goes to the terminal")
                    }
                }
                printLine("MPD clients: mpc -h \(root)/mpd.socket status")
                let appliance = try Appliance(resolved: ResolvedConfig(config: config, board: board), options: options)
                return try appliance.run()
            })
    }
}
