// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskCore
import KioskInput

/// What `kiosk-player boards --check` asks of a profile beyond what the loader refuses: rules for
/// the profiles we ship, which a user's own profile may break and still load (a button only in a
/// chord, the "default" PCM on a box with one card). Each problem is "key.path: message".
///
/// Thread: any (pure).
enum BoardLint {
    static func problems(_ profile: BoardProfile) -> [String] {
        var problems: [String] = []
        for (i, button) in profile.input.buttons.enumerated() where !binds(button.binding) {
            problems.append("buttons[\(i)]: a button needs at least one of press, longPress, hold")
        }
        for (i, device) in profile.input.evdev.enumerated() {
            for key in device.keys where !binds(key.binding) {
                problems.append("evdev[\(i)].keys.\(key.name): needs at least one of press, longPress, hold")
            }
        }
        if let device = profile.audio.device, let problem = unnamedCard(device.name) {
            problems.append("audio.device: \(problem)")
        }
        for (i, device) in profile.audio.fallbackDevices.enumerated() {
            if let problem = unnamedCard(device.name) { problems.append("audio.fallbackDevices[\(i)]: \(problem)") }
        }
        return problems
    }

    private static func binds(_ binding: ButtonBinding) -> Bool {
        binding.press != nil || binding.longPress != nil || binding.hold != nil
    }

    /// A stock profile names its card: "default" is whichever card probed first on Pi OS Lite, and
    /// the user's PipeWire on Pi OS Desktop (unreachable from a system service). The player still
    /// tries "default" after the profile's list (ResolvedConfig).
    private static func unnamedCard(_ pcm: String) -> String? {
        let base = pcm.split(separator: ":", maxSplits: 1).first.map(String.init) ?? pcm
        guard base == "default" || base == "sysdefault" else { return nil }
        return
            "\"\(pcm)\" is whichever card probed first (PipeWire's on Pi OS Desktop): name the card, as hdmi:CARD=vc4hdmi0,DEV=0 or plughw:CARD=Headphones,DEV=0"
    }
}
