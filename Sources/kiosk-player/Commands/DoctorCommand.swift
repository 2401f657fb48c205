// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskCommandLine
import KioskConfig
import KioskCore
import KioskDoctor
import KioskSystem

/// `kiosk-player doctor`: the checklist of the box as it is (Sources/KioskDoctor).
enum DoctorCommand {
    static var command: Command {
        Command(
            name: "doctor",
            summary: "check the box: board, sound, config.txt, GPIO, SPI, screen, USB, power, state, groups",
            synopsis: [
                "[--config FILE] [--board NAME] [--device PCM] [--failed] [--quick] [--tone] [--verbose] [--json]"
            ],
            description: """
                Checks the box as it is, in order: the board profile chosen and why (device-tree model,
                HAT EEPROM), the sound cards against the profile's audio device, fallbacks and mixer
                (the device is opened: the formats, channels and rates it takes and what the player
                will convert), the config.txt lines the board needs, the GPIO chip and each line the
                profile uses, the SPI devices (and an RC522's version register), the framebuffer and
                who owns the console, the USB sticks mounted and what a scan finds, under-voltage and
                throttling, the state directory and the service's groups.

                --tone then plays 0.6 s of 440 Hz on the left, a pause, 0.6 s of 660 Hz on the right,
                through the audio engine (`kiosk-player play`) on the configured device (or --device):
                if the right one comes first, the speaker wires are swapped.

                Each line is ✓ (right), ✗ (wrong, with the exact fix under it) or – (information,
                or an optional part). Exit status 0 only when no line is ✗. On a machine that is not a
                Raspberry Pi, with "board" left at "auto", the first line says so and the Pi's own parts
                are "not checked here" (never ✗); name a board (--board) to check them anyway.
                --verbose adds each line's technical detail (files, kernel names, ALSA's errors).

                """,
            options: [
                .text("--config", "FILE", "config file (default \(Config.defaultPath))"),
                .text("--board", "NAME", "board profile (overrides the config's \"board\")"),
                .text("--device", "PCM", "check this ALSA device instead of the configured one"),
                .flag("--failed", "print only the ✗ lines (with their fixes) and the summary"),
                .flag("--quick", "list the USB sticks without scanning them"),
                .flag("--tone", "then play a short tone on the audio device: left first, then right"),
                .flag("--verbose", "add each line's technical detail (files, kernel names, ALSA's own errors)"),
                .flag(
                    "--json",
                    "print the lines as JSON: {\"ok\": …, \"preface\": […], \"lines\": [{check, status, text, fix, detail}]}"
                ),
                .text("--root", "DIR", "read /proc, /sys, /boot, /dev and /etc under DIR (tests)"),
            ],
            run: { parsed in
                guard parsed.positionals.isEmpty else { throw parsed.usageError("expected no arguments") }
                let root = SystemRoot(prefix: parsed.value("--root") ?? "")
                var report: DoctorReport
                var device: AudioDevice?
                do throws(ConfigError) {
                    var config = try Config.load(path: parsed.value("--config"))
                    if let device = parsed.value("--device") { config.audio.device = AudioDevice(name: device) }
                    let requested = parsed.value("--board") ?? config.board
                    let board = try BoardProfile.load(
                        name: Doctor.boardName(requested: requested, root: root),
                        extraDirectory: config.boardsDirectory,
                        hat: config.hat, configFile: config.file
                    )
                    let resolved = ResolvedConfig(config: config, board: board)
                    try resolved.validate()
                    report = Doctor.run(
                        DoctorContext(
                            root: root, resolved: resolved, requestedBoard: requested,
                            scanSticks: !parsed.has("--quick")))
                    device = resolved.audioDevice
                } catch {
                    report = DoctorReport(lines: [
                        .fail(
                            "config", "\(error)",
                            fix:
                                "correct the file named above; `kiosk-player check-config` and `kiosk-player boards --check` say more"
                        )
                    ])
                }
                if parsed.has("--tone"), let device {
                    report.lines.append(playTone(on: device, quiet: parsed.has("--json")))
                }
                if parsed.has("--json") {
                    printLine(report.json.serialized(pretty: true))
                } else {
                    CommandLineTool.writeOut(
                        report.text(onlyFailures: parsed.has("--failed"), verbose: parsed.has("--verbose")))
                }
                return report.passed ? 0 : 1
            })
    }

    /// Plays TestTone through `kiosk-player play` (this binary) and reports how it went.
    static func playTone(on device: AudioDevice, quiet: Bool) -> DoctorLine {
        var template = Array("/tmp/kiosk-tone-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else {
            return .fail("tone", "cannot write the tone: \(Errno.current.message)", fix: "check /tmp")
        }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer { unlink(path) }
        do throws(Errno) {
            try Syscalls.writeAll(fd, TestTone.wav())
            Syscalls.closeIgnoringErrors(fd)
        } catch {
            Syscalls.closeIgnoringErrors(fd)
            return .fail("tone", "cannot write the tone: \(error.message)", fix: "check /tmp")
        }
        if !quiet { CommandLineTool.writeOut("playing the test tone on \(device.name): left, then right …\n") }
        let status = Syscalls.runAndWait("/proc/self/exe", arguments: ["play", "--device", device.name, path])
        guard status == 0 else {
            return .fail(
                "tone", "the tone did not play on \(device.name) (kiosk-player play ended with status \(status >> 8))",
                fix: "fix the sound lines above; `kiosk-player play --device \(device.name) FILE.flac` shows the error")
        }
        return .pass(
            "tone", "played on \(device.name): 440 Hz left, then 660 Hz right (the other way round: swap the wires)")
    }
}
