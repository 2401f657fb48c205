// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel

/// Whether anything on the box can sound: a card the device tree gives no pins (the Pi 400's and
/// Zero 2 W's `Headphones`) is named and skipped, and an HDMI card counts only with a connected
/// sink (/sys/class/drm/*-HDMI-A-*/status). A Pi with nothing left plays into nothing.
///
/// Thread: any (reads files).
public enum OutputCheck {
    /// The words every "no sound" message ends with (the screen says the same).
    public static let advice = Advice.noSound

    /// Whether a connected HDMI sink exists.
    static func hdmiConnected(_ root: SystemRoot) -> Bool {
        root.entries("/sys/class/drm").contains { connector in
            connector.contains("-HDMI-") && root.value("/sys/class/drm/\(connector)/status") == "connected"
        }
    }

    public static func lines(_ context: DoctorContext) -> [DoctorLine] {
        let tree = DeviceTree(prefix: context.root.prefix)
        guard tree.model != nil else { return [] }
        let cards = SoundCheck.cards(context.root)
        let silent = tree.silentCards
        var lines: [DoctorLine] = []
        for card in cards where silent.contains(card.id) {
            lines.append(
                .info(
                    "sound",
                    "card \(card.id) has no pins on this board (its device tree empties audio_pins): it plays into nothing, so the player skips it"
                ))
        }
        let hdmi = hdmiConnected(context.root)
        let sounding = cards.filter { !silent.contains($0.id) && (hdmi || !$0.id.hasPrefix("vc4hdmi")) }
        if sounding.isEmpty {
            lines.append(
                .fail(
                    "sound",
                    "no output that can sound: \(cards.isEmpty ? "no sound card" : "no jack with pins, no DAC and no HDMI sink connected")",
                    fix: advice))
        }
        return lines
    }
}
