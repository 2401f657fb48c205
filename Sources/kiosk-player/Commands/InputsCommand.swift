// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskCommandLine
import KioskHardware
import KioskInput
import KioskSystem

/// `kiosk-player inputs`: lists the inputs a board profile would use, then opens them and prints
/// every gesture and action as it happens. A tool for wiring a new box.
enum InputsCommand {
    static var command: Command {
        Command(
            name: "inputs",
            summary: "list a board's inputs and print gestures and actions live",
            synopsis: ["[--profile FILE | --board NAME] [OPTIONS]"],
            description: """
                Lists the inputs of a board profile (GPIO buttons, encoders, chords, evdev devices, card
                readers, the keyboard map), then opens them and prints each press, release, long press,
                repeat, chord, encoder detent and the action it maps to, and each card's number as it is
                read, until Ctrl-C. Problems (no GPIO chip, a busy
                line, a missing device) are printed and the other inputs keep working.

                """,
            options: [
                .text("--profile", "FILE", "board profile JSON (boards/README.md describes it)"),
                .text("--board", "NAME", "boards/NAME.json here or in /usr/share/kiosk-player/boards"),
                .flag("--keyboard", "also read keys from this terminal (default when stdin is a terminal)"),
                .flag("--no-keyboard", "do not read the terminal"),
                .flag("--no-gpio", "do not open GPIO lines"),
                .flag("--no-evdev", "do not open evdev devices and card readers"),
                .text("--script", "FILE", "replay an event script (JSON lines) and exit when it is done"),
                .flag("--edges", "also print every raw GPIO edge with its kernel timestamp"),
                .integer("--seconds", "N", 1...86_400, "stop after N seconds"),
                .flag("--list", "only list the inputs"),
            ],
            run: run)
    }

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        if let extra = parsed.positionals.first {
            throw parsed.usageError("unexpected argument '\(extra)'")
        }
        let seconds = parsed.int("--seconds")
        let settings = InputSettings()
        let (profile, origin) = try loadProfile(parsed, settings: settings)

        printLine("Inputs of \(origin):")
        for line in profile.describe(settings: settings) { printLine("  " + line) }
        printLine(
            "  timing: debounce \(settings.debounceMs) ms, long press \(settings.longPressMs) ms, repeat after \(settings.repeatDelayMs) ms every \(settings.repeatMs) ms, chord window \(settings.chordMs) ms"
        )
        if profile.usesGPIO { printLine("  \(GPIOChip.libraryDescription)") }
        if parsed.has("--list") { return 0 }

        let loop = try EventLoop()
        let start = Syscalls.monotonicNanoseconds()
        let manager = InputManager(loop: loop, profile: profile, settings: settings) { _ in }
        manager.reportEdges = parsed.has("--edges")
        manager.onRawEvent = { text in
            let ms = (Syscalls.monotonicNanoseconds() - start) / 1_000_000
            let time = "\(ms / 1000).\(String(repeating: "0", count: 3 - String(ms % 1000).count))\(ms % 1000)"
            printLine(String(repeating: " ", count: max(0, 8 - time.count)) + time + "  " + text)
        }
        // [unowned loop]: the loop keeps these closures, which must not keep it (a cycle at exit).
        for signal in [SIGINT, SIGTERM, SIGHUP] { loop.onSignal(signal) { [unowned loop] _ in loop.stop() } }
        if let seconds { loop.schedule(afterMilliseconds: seconds * 1000) { [unowned loop] in loop.stop() } }

        let script = parsed.value("--script")
        let keyboard =
            parsed.has("--keyboard") || (!parsed.has("--no-keyboard") && script == nil && isatty(0) == 1)
        printLine(keyboard ? "Listening; press keys or Ctrl-C to stop." : "Listening; Ctrl-C to stop.")
        if !parsed.has("--no-gpio") { manager.startGPIO() }
        if !parsed.has("--no-evdev") {
            manager.startEvdev()
            manager.startCardReaders()
        }
        if keyboard { manager.startKeyboard() }
        if let script {
            do {
                try manager.startScript(path: script) { [unowned loop] in
                    // Let the last gestures finish (a long press still held, a chord) before leaving.
                    loop.schedule(afterMilliseconds: max(settings.longPressMs, settings.repeatDelayMs) + 100) {
                        [unowned loop] in
                        loop.stop()
                    }
                }
            } catch {
                manager.stop()
                throw ToolError("\(error)")
            }
        }
        defer { manager.stop() }
        try loop.run()
        return 0
    }

    /// The profile from --profile or --board, or an empty one (keyboard only).
    static func loadProfile(_ parsed: ParsedArguments, settings: InputSettings) throws -> (InputProfile, String) {
        var path = parsed.value("--profile")
        if let board = parsed.value("--board") {
            if path != nil { throw UsageError(command: "inputs", message: "give --profile or --board, not both") }
            guard !board.contains("/"), !board.isEmpty else {
                throw UsageError(command: "inputs", message: "a board name has no '/': '\(board)'")
            }
            let candidates = ["boards/\(board).json", "/usr/share/kiosk-player/boards/\(board).json"]
            guard let found = candidates.first(where: { Syscalls.exists($0) }) else {
                throw ToolError("no board profile '\(board)' (looked for \(candidates.joined(separator: ", ")))")
            }
            path = found
        }
        guard let path else {
            return (InputProfile(), "no board profile (keyboard only)")
        }
        let bytes: [UInt8]
        do {
            bytes = try Syscalls.readFile(path, limit: 1 << 20)
        } catch {
            throw ToolError("cannot read \(path): \(error.message)")
        }
        let reader = try JSONReader.parse(bytes, file: path)
        return (try InputProfile.parse(reader, settings: settings), path)
    }
}
