// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskInput
import KioskSystem

/// Check 3: the config.txt lines the board needs (the profile's `configTxt`, plus `dtparam=spi=on`
/// when an SPI panel or an RC522 reader is configured) present in /boot/firmware/config.txt (Pi OS
/// bookworm and later) or /boot/config.txt (older), or named with the exact line to add.
///
/// Thread: any (reads files).
public enum BootConfigCheck {
    /// The config.txt the firmware reads on this root, nil when there is none.
    public static func configFile(_ root: SystemRoot) -> String? {
        ["/boot/firmware/config.txt", "/boot/config.txt"].first { root.exists($0) }
    }

    /// The project's SD-card image (deploy/image) is known by its settings script: there config.txt
    /// includes `kiosk-board.txt`, which that script writes from the settings file's board at every
    /// start, so an edit of config.txt is the wrong advice.
    public static let imageSettingsScript = "/usr/lib/kiosk-image/kiosk-settings"

    public static func onImage(_ root: SystemRoot) -> Bool { root.exists(imageSettingsScript) }

    /// How to get `lines` into the firmware's settings on this root: on the image through the settings
    /// file; elsewhere (Raspberry Pi OS) by adding them to config.txt (`file`, or where the firmware
    /// looks for it).
    public static func addLinesFix(_ lines: [String], root: SystemRoot, file: String? = nil) -> String {
        let joined = lines.joined(separator: "; ")
        guard onImage(root) else {
            let target = file ?? configFile(root) ?? "/boot/firmware/config.txt"
            return lines.count == 1
                ? "echo '\(joined)' | sudo tee -a \(target) && sudo reboot"
                : "add to \(target) and reboot: \(joined)"
        }
        // What kiosk-settings left out as a comment: an overlay this image does not have.
        let board = root.text("/boot/firmware/kiosk-board.txt") ?? ""
        let lacking = lines.filter { board.contains("# \($0): no such overlay on this image") }
        if !lacking.isEmpty {
            return "this image has no overlay for \(lacking.joined(separator: "; ")) (the boot partition's overlays/): "
                + "install Raspberry Pi OS and the .deb instead (docs/install.md)"
        }
        return "on the KioskPlayer image the board's config.txt lines (\(joined)) come from the settings file: "
            + "set \"board\" in kiosk-settings.json (the card's boot partition, on any PC) to the profile of this "
            + "hardware, one whose \"configTxt\" has them, and restart: the box writes kiosk-board.txt and restarts once"
    }

    /// The lines the board needs, in order, without duplicates.
    public static func requiredLines(_ resolved: ResolvedConfig) -> [String] {
        var lines = resolved.board.configTxt
        let readers = (try? resolved.inputProfile().cardReaders) ?? resolved.board.input.cardReaders
        let usesSPI =
            resolved.board.screen.panel != nil
            || readers.contains { if case .rc522 = $0 { true } else { false } }
        if usesSPI && !lines.contains(where: { isSame($0, "dtparam=spi=on") }) { lines.insert("dtparam=spi=on", at: 0) }
        return lines
    }

    /// The text of a config.txt with each `include NAME` line replaced by NAME's text, NAME read from
    /// the same directory as the firmware does (raspberrypi/documentation
    /// `documentation/asciidoc/computers/config_txt/what_is_config_txt.adoc`, "include"): the
    /// project's SD-card image keeps the board's lines in `kiosk-board.txt` that way. A missing file
    /// adds nothing; includes nest at most 4 deep.
    static func expandedText(_ root: SystemRoot, _ file: String, depth: Int = 0) -> String? {
        guard let text = root.text(file) else { return nil }
        guard depth < 4 else { return text }
        let directory = String(file[..<(file.lastIndex(of: "/") ?? file.startIndex)])
        var out: [String] = []
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = String(raw)
            if let hash = line.firstIndex(of: "#") { line = String(line[..<hash]) }
            let words = line.trimmingWhitespace().split(separator: " ", maxSplits: 1)
            if words.count == 2, words[0] == "include" {
                let name = String(words[1]).trimmingWhitespace()
                if let inner = expandedText(root, directory + "/" + name, depth: depth + 1) { out.append(inner) }
                continue
            }
            out.append(String(raw))
        }
        return out.joined(separator: "\n")
    }

    /// The active settings of a config.txt: comments and blank lines dropped; `dtparam=a=on,b=off`
    /// split into one setting per parameter. Each with the conditional section it is in
    /// (`[pi4]`, nil for `[all]` or none).
    static func settings(_ text: String) -> [(line: String, section: String?)] {
        var section: String?
        var out: [(String, String?)] = []
        for raw in text.split(separator: "\n") {
            var line = String(raw)
            if let hash = line.firstIndex(of: "#") { line = String(line[..<hash]) }
            line = line.trimmingWhitespace()
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                section = line == "[all]" ? nil : line
                continue
            }
            if line.hasPrefix("dtparam=") {
                for parameter in line.dropFirst(8).split(separator: ",") {
                    out.append(("dtparam=\(parameter)", section))
                }
            } else {
                out.append((line, section))
            }
        }
        return out
    }

    /// Whether a config.txt setting gives what `wanted` asks: the same line; `dtparam=spi` for
    /// `dtparam=spi=on`; an overlay with parameters (`dtoverlay=hifiberry-dac,x`) for the overlay.
    static func isSame(_ present: String, _ wanted: String) -> Bool {
        if present == wanted { return true }
        if wanted.hasPrefix("dtparam="), wanted.hasSuffix("=on"), present == String(wanted.dropLast(3)) { return true }
        if wanted.hasPrefix("dtoverlay="), present.hasPrefix(wanted + ",") { return true }
        return false
    }

    public static func lines(_ context: DoctorContext) -> [DoctorLine] {
        let wanted = requiredLines(context.resolved)
        guard !wanted.isEmpty else {
            return [.info("config.txt", "the profile \(context.resolved.board.name) needs no config.txt lines")]
        }
        guard let file = configFile(context.root), let text = expandedText(context.root, file) else {
            return [
                .fail(
                    "config.txt",
                    "no /boot/firmware/config.txt or /boot/config.txt: cannot see \(wanted.joined(separator: ", "))",
                    fix: onImage(context.root)
                        ? addLinesFix(wanted, root: context.root)
                        : "on Raspberry Pi OS, add to /boot/firmware/config.txt and reboot: \(wanted.joined(separator: "; "))"
                )
            ]
        }
        let present = settings(text)
        var lines: [DoctorLine] = []
        for line in wanted {
            if let hit = present.first(where: { isSame($0.line, line) }) {
                let note = hit.section.map { " (only under \($0))" } ?? ""
                lines.append(.pass("config.txt", "\(line) in \(file)\(note)"))
            } else {
                lines.append(
                    .fail(
                        "config.txt", "\(line) is missing from \(file)",
                        fix: addLinesFix([line], root: context.root, file: file)))
            }
        }
        return lines
    }
}
