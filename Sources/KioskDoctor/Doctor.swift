// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem

/// What every check is given: where the system is, the resolved config and how the board was chosen.
///
/// Thread: a value; any thread.
public struct DoctorContext: Sendable {
    public var root: SystemRoot
    public var resolved: ResolvedConfig
    /// What `config.board` (or `--board`) said: "auto" or a profile name.
    public var requestedBoard: String
    /// Whether the USB check scans each stick (false: it only lists them, for a quick summary).
    public var scanSticks: Bool
    /// Whether devices are opened and spoken to (the audio device, an RC522); false inside the
    /// running player, whose engine and reader own them.
    public var probeDevices: Bool

    public init(
        root: SystemRoot, resolved: ResolvedConfig, requestedBoard: String, scanSticks: Bool = true,
        probeDevices: Bool = true
    ) {
        self.root = root
        self.resolved = resolved
        self.requestedBoard = requestedBoard
        self.scanSticks = scanSticks
        self.probeDevices = probeDevices
    }
}

/// `kiosk-player doctor`: every check in priority order (board, sound, config.txt, GPIO, SPI,
/// screen, USB, power, state directory and groups; the clock for an exhibit's opening hours).
///
/// Thread: runs on the calling thread (the command's main thread); it opens devices and reads files
/// synchronously, so never on the player's loop.
public enum Doctor {
    /// The profile name "auto" means on this root: from its device-tree model.
    public static func boardName(requested: String, root: SystemRoot) -> String {
        guard requested == "auto" else { return requested }
        return BoardProfile.autoDetectName(model: BoardCheck.model(root) ?? "")
    }

    /// Where systemd finds the player's unit: it is installed as a service when one exists.
    static let unitPaths = [
        "/usr/lib/systemd/system/kiosk-player.service", "/lib/systemd/system/kiosk-player.service",
        "/etc/systemd/system/kiosk-player.service",
    ]

    /// The checks that apply to this machine, in order. On a machine that is not a Raspberry Pi
    /// and whose board nobody named (`"board": "auto"` fell back to a profile), the Pi's own parts
    /// (its sound devices, config.txt, GPIO, SPI, screen and power supply) are "not checked here"
    /// rather than ✗, and so are the service's folder and groups when it is not installed; a board
    /// named by the config or --board (a test rig) is checked in full, Pi or not.
    public static func run(_ context: DoctorContext) -> DoctorReport {
        var lines: [DoctorLine] = []
        let model = BoardCheck.model(context.root)
        let isPi = model?.contains("Raspberry Pi") == true
        let guessed = !isPi && context.requestedBoard == "auto"
        var preface: [String] = []
        if !isPi {
            let why = model.map { "its model is \"\($0)\"" } ?? "it names no Raspberry Pi model"
            preface.append(
                guessed
                    ? "This is not a Raspberry Pi: \(why). Only what applies to any machine is checked; the parts of "
                        + "a Raspberry Pi (sound card, config.txt, buttons, screen, power) say \"not checked here\"."
                    : "This is not a Raspberry Pi: \(why). The board \(context.resolved.board.name) was named, so its "
                        + "parts are checked as that board.")
        }
        lines += BoardCheck.lines(context)
        if guessed {
            lines.append(soundHere(context.root))
            lines.append(.notChecked("config.txt", "a Raspberry Pi's boot settings"))
            lines.append(.notChecked("gpio", "the buttons and lights on a Raspberry Pi's pins"))
            lines.append(.notChecked("spi", "a small screen or card reader on a Raspberry Pi's pins"))
            lines.append(.notChecked("screen", "the screen of the board profile \(context.resolved.board.name)"))
        } else {
            lines += HatDriverCheck.lines(context)
            lines += SoundCheck.lines(context)
            lines += OutputCheck.lines(context)
            lines += BootConfigCheck.lines(context)
            lines += GPIOCheck.lines(context)
            lines += PinClaimCheck.lines(context)
            lines += SPICheck.lines(context)
            lines += ScreenCheck.lines(context)
        }
        lines += USBCheck.lines(context)
        if guessed {
            lines.append(.notChecked("power", "a Raspberry Pi's power supply"))
        } else {
            lines += PowerCheck.lines(context)
        }
        // A battery is configured by hand: checked on any machine.
        lines += BatteryCheck.lines(context)
        lines += BluetoothCheck.lines(context)
        if guessed && !unitPaths.contains(where: context.root.exists) {
            lines.append(
                .notChecked(
                    "state", "the player is not installed as a service on this machine (its package installs it)"))
        } else {
            lines += StateCheck.lines(context)
        }
        lines += ClockCheck.lines(context)
        return DoctorReport(preface: preface, lines: lines)
    }

    /// On a machine that is not a Pi: whether it has a sound card at all (for `kiosk-player demo`).
    static func soundHere(_ root: SystemRoot) -> DoctorLine {
        let cards = SoundCheck.cards(root)
        guard !cards.isEmpty else {
            return .notChecked("sound", "this machine has no sound card (the demo plays into a silent sink)")
        }
        let names = cards.map(\.name).joined(separator: ", ")
        return .notChecked("sound", "the board's sound devices are a Raspberry Pi's; this machine has \(names)")
    }
}
