// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
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

    public static func run(_ context: DoctorContext) -> DoctorReport {
        var lines: [DoctorLine] = []
        lines += BoardCheck.lines(context)
        lines += SoundCheck.lines(context)
        lines += OutputCheck.lines(context)
        lines += BootConfigCheck.lines(context)
        lines += GPIOCheck.lines(context)
        lines += PinClaimCheck.lines(context)
        lines += SPICheck.lines(context)
        lines += ScreenCheck.lines(context)
        lines += USBCheck.lines(context)
        lines += PowerCheck.lines(context)
        lines += StateCheck.lines(context)
        lines += ClockCheck.lines(context)
        return DoctorReport(lines: lines)
    }
}
