// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskConfig
import KioskSystem

/// Check 2: the sound cards (/proc/asound/cards) against the profile's audio device, its fallbacks
/// and mixer; the device is opened and asked what it takes (ALSACapabilities), and what the output
/// stage will convert is named.
///
/// Thread: any (opens PCMs and closes them).
public enum SoundCheck {
    /// One card of /proc/asound/cards.
    public struct Card: Sendable, Equatable {
        public var index: Int
        public var id: String
        public var name: String

        public init(index: Int, id: String, name: String) {
            self.index = index
            self.id = id
            self.name = name
        }
    }

    /// Parses /proc/asound/cards: ` 0 [PCH            ]: HDA-Intel - HDA Intel PCH`.
    public static func cards(_ root: SystemRoot) -> [Card] {
        guard let text = root.text("/proc/asound/cards") else { return [] }
        var cards: [Card] = []
        for line in text.split(separator: "\n") {
            let trimmed = String(line).trimmingWhitespace()
            guard let open = trimmed.firstIndex(of: "["), let close = trimmed.firstIndex(of: "]"), open < close,
                let index = Int(String(trimmed[..<open]).trimmingWhitespace())
            else { continue }
            let id = String(trimmed[trimmed.index(after: open)..<close]).trimmingWhitespace()
            var name = String(trimmed[trimmed.index(after: close)...])
            if let dash = name.firstRange(of: " - ") { name = String(name[dash.upperBound...]) }
            cards.append(Card(index: index, id: id, name: name.trimmingWhitespace()))
        }
        return cards
    }

    /// The card a PCM name refers to: "hw:CARD=sndrpihifiberry,DEV=0" → "sndrpihifiberry",
    /// "plughw:1,0" → "1", "hdmi:vc4hdmi0" → "vc4hdmi0"; nil for "default", "null", asoundrc PCMs.
    public static func cardName(of device: String) -> String? { DeviceTree.cardName(of: device) }

    public static func lines(_ context: DoctorContext) -> [DoctorLine] {
        let resolved = context.resolved
        let found = cards(context.root)
        let listed = found.map { "\($0.index) \($0.id) (\($0.name))" }.joined(separator: ", ")
        var lines: [DoctorLine] = []
        let device = resolved.audioDevice
        guard case .alsa(let pcm) = device else {
            lines.append(.info("sound", "audio device \"none\": the player plays silently (config audio.device)"))
            return lines
        }
        let overlay = (resolved.board.hat?.configTxt ?? resolved.board.configTxt).first { $0.hasPrefix("dtoverlay=") }
        let noCardFix =
            overlay.map {
                BootConfigCheck.onImage(context.root)
                    ? BootConfigCheck.addLinesFix([$0], root: context.root)
                    : "add \($0) to config.txt (see the config.txt lines below) and reboot; then `aplay -l` lists the card"
            }
            ?? "connect the DAC or HDMI sink and check `aplay -l`; a HAT needs its dtoverlay= line in config.txt"
        let queried: Result<ALSACapabilities, ALSACapabilities.Failure> =
            context.probeDevices
            ? ALSACapabilities.query(device: pcm)
            : .failure(ALSACapabilities.Failure(code: -EBUSY, message: "not opened: the player has it"))
        if found.isEmpty {
            if case .success = queried {
                lines.append(
                    .info(
                        "sound", "no sound card (the device below is not a card)",
                        detail: "/proc/asound/cards lists none"))
            } else {
                lines.append(
                    .fail("sound", "no sound card found", fix: noCardFix, detail: "/proc/asound/cards lists none"))
            }
        } else {
            lines.append(.pass("sound", "cards: \(listed)"))
        }
        if let card = cardName(of: pcm), !found.isEmpty,
            !found.contains(where: { $0.id == card || String($0.index) == card })
        {
            let choices = found.map { "hw:CARD=\($0.id),DEV=0" }.joined(separator: " or ")
            lines.append(
                .fail(
                    "sound", "device \(pcm): card \"\(card)\" is not among the cards (\(listed))",
                    fix: overlay.map {
                        BootConfigCheck.onImage(context.root)
                            ? BootConfigCheck.addLinesFix([$0], root: context.root)
                            : "add \($0) to config.txt and reboot (see config.txt below)"
                    }
                        ?? "set \"audio\": {\"device\": \"\(choices)\"} in /etc/kiosk-player/config.json"))
        } else {
            switch queried {
            case .success(let caps):
                let conversions = caps.conversions
                let what =
                    conversions.isEmpty
                    ? "every stream plays as is (bit-perfect)" : "converted: " + conversions.joined(separator: ", ")
                lines.append(.pass("sound", "device \(pcm) takes \(caps.summary); \(what)"))
            case .failure(let failure) where failure.isBusy:
                lines.append(
                    .info(
                        "sound", "device \(pcm) is busy: the player (or another program) has it open",
                        fix: "to test it: sudo systemctl stop kiosk-player; kiosk-player doctor"))
            case .failure(let failure):
                lines.append(
                    .fail(
                        "sound", "the sound device \(pcm) does not open",
                        fix: found.isEmpty
                            ? "connect the sound card first (the line above)"
                            : "set \"audio\": {\"device\": \"hw:CARD=\(found[0].id),DEV=0\"} in /etc/kiosk-player/config.json (`aplay -L` lists the PCMs)",
                        detail: "ALSA: \(failure.message)"))
            }
        }
        for fallback in resolved.audioDevices.dropFirst() where context.probeDevices {
            guard case .alsa(let name) = fallback else { continue }
            switch ALSACapabilities.query(device: name) {
            case .success(let caps): lines.append(.info("sound", "fallback \(name) opens: \(caps.summary)"))
            case .failure(let failure):
                lines.append(.info("sound", "fallback \(name) does not open", detail: "ALSA: \(failure.message)"))
            }
        }
        if let mixer = resolved.mixer, context.probeDevices {
            let card = cardName(of: pcm).map { "hw:\($0.allSatisfy(\.isNumber) ? $0 : "CARD=" + $0)" } ?? "default"
            switch ALSAMixerControls.names(card: card) {
            case .success(let names) where names.contains(mixer):
                lines.append(.pass("sound", "mixer \"\(mixer)\" on \(card)"))
            case .success(let names):
                lines.append(
                    .fail(
                        "sound",
                        "mixer \"\(mixer)\" is not a control of \(card) (it has: \(names.joined(separator: ", ")))",
                        fix:
                            "set \"audio\": {\"mixer\": \(names.first.map { "\"\($0)\"" } ?? "null")} in /etc/kiosk-player/config.json (null: software volume)"
                    ))
            case .failure(let failure):
                lines.append(
                    .fail(
                        "sound", "the volume control \"\(mixer)\" cannot be used",
                        fix: "set \"audio\": {\"mixer\": null} in /etc/kiosk-player/config.json (software volume)",
                        detail: "ALSA: \(failure.message)"))
            }
        } else {
            lines.append(.info("sound", "no hardware mixer configured: volume is software (exact at 100 %)"))
        }
        return lines
    }
}
