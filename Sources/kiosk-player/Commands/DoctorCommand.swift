import KioskAudio
import KioskCore
import KioskDoctor
import KioskSystem

/// `kiosk-player doctor`: the checklist of the box as it is (Sources/KioskDoctor).
enum DoctorCommand {
    static var command: Command {
        Command(
            name: "doctor",
            summary: "check the box: board, sound, config.txt, GPIO, SPI, screen, USB, power, state, groups",
            synopsis: ["[--config FILE] [--board NAME] [--device PCM] [--json]"],
            description: """
                Checks the box as it is, in order: the board profile chosen and why (device-tree model,
                HAT EEPROM), the sound cards against the profile's audio device, fallbacks and mixer
                (the device is opened: the formats, channels and rates it takes and what the player
                will convert), the config.txt lines the board needs, the GPIO chip and each line the
                profile uses, the SPI devices (and an RC522's version register), the framebuffer and
                who owns the console, the USB sticks mounted and what a scan finds, under-voltage and
                throttling, the state directory and the service's groups.

                Each line is ✓ (right), ✗ (wrong, with the exact fix under it) or – (information,
                or an optional part). Exit status 0 only when no line is ✗.

                """,
            options: [
                .text("--config", "FILE", "config file (default \(Config.defaultPath))"),
                .text("--board", "NAME", "board profile (overrides the config's \"board\")"),
                .text("--device", "PCM", "check this ALSA device instead of the configured one"),
                .flag("--json", "print the lines as JSON: {\"ok\": …, \"lines\": [{check, status, text, fix}]}"),
                .text("--root", "DIR", "read /proc, /sys, /boot, /dev and /etc under DIR (tests)"),
            ],
            run: { parsed in
                guard parsed.positionals.isEmpty else { throw parsed.usageError("expected no arguments") }
                let root = SystemRoot(prefix: parsed.value("--root") ?? "")
                let report: DoctorReport
                do throws(ConfigError) {
                    var config = try Config.load(path: parsed.value("--config"))
                    if let device = parsed.value("--device") { config.audio.device = AudioDevice(name: device) }
                    let requested = parsed.value("--board") ?? config.board
                    let board = try BoardProfile.load(
                        name: Doctor.boardName(requested: requested, root: root), extraDirectory: config.boardsDirectory
                    )
                    let resolved = ResolvedConfig(config: config, board: board)
                    try resolved.validate()
                    report = Doctor.run(DoctorContext(root: root, resolved: resolved, requestedBoard: requested))
                } catch {
                    report = DoctorReport(lines: [
                        .fail(
                            "config", "\(error)",
                            fix:
                                "correct the file named above; `kiosk-player check-config` and `kiosk-player boards --check` say more"
                        )
                    ])
                }
                if parsed.has("--json") {
                    printLine(report.json.serialized(pretty: true))
                } else {
                    CommandLineTool.writeOut(report.text)
                }
                return report.passed ? 0 : 1
            })
    }
}
