// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// The audio output: the devices the menu offers, the one in use, the one chosen, and what the
/// `OutputSupervisor` reports (a fallback, a device back) on the status line.
/// Thread: the loop thread, like `Player`.
extension Player {
    /// Output devices the menu offers, the configured one first.
    public var outputDevices: [String] { output.devices }
    /// The device in use (Bluetooth headphones' PCM while they play).
    public var outputDevice: String { output.headphones ?? output.inUse }
    /// The device chosen (by the config or in the menu), the one to go back to after a fallback.
    public var preferredDevice: String { output.chosen }
    public var fallbackDelayMilliseconds: Int {
        get { output.fallbackDelayMilliseconds }
        set { output.fallbackDelayMilliseconds = newValue }
    }
    public var returnProbeMilliseconds: Int {
        get { output.returnProbeMilliseconds }
        set { output.returnProbeMilliseconds = newValue }
    }

    /// Makes `device` the chosen output (in the menu, or by a remote client). `chooser` completes
    /// the log line ("in the menu").
    func chooseOutput(_ device: String, by chooser: String) {
        output.choose(device, by: chooser)
        outbox.remoteChanges.note(.output)
        apply(overlays.handle(.outputLine(nil)))
        apply([.save(.soon)])
    }

    /// The menu's output entry: the next device of the list, when there is more than one.
    func chooseNextOutput() {
        if outputDevices.count > 1 { chooseOutput(output.following, by: "in the menu") }
    }

    /// What a box says when none of its outputs can sound (screen, light and `doctor` alike).
    public static let noSoundAdvice = Advice.noSound

    /// The status line while no output works (a Zero 2 W without an HDMI sink, a DAC not found).
    public static let noSoundLine = "No sound: \(noSoundAdvice)"

    /// Whether every output device failed in turn: the light shows an error meanwhile.
    var noOutputWorks: Bool { output.noDeviceWorks }

    /// What the output supervisor reports, on the status line of the now-playing screen.
    func outputChanged(_ change: OutputChange) {
        outbox.remoteChanges.note(.output)
        switch change {
        case .lost: apply(overlays.handle(.outputLine(noOutputWorks ? Self.noSoundLine : "Audio device unplugged")))
        case .fellBack(let device, _):
            apply(overlays.handle(.outputLine(noOutputWorks ? Self.noSoundLine : "Output: \(device)")))
        case .back:
            apply(overlays.handle(.outputLine(outputDevice == preferredDevice ? nil : "Output: \(outputDevice)")))
        case .returned: apply(overlays.handle(.outputLine(nil)))
        }
        refreshScreen()
    }
}
