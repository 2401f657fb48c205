// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig

/// The board's buttons and encoders against the pins a HAT's overlay already claims. Pins claimed
/// through pinctrl (an overlay's pin group, as `iqaudio-dacplus` takes GPIO 22 for its amplifier
/// mute) show as free in gpiolib's line info, so `GPIOCheck` cannot see them. Read from pinctrl's
/// `pinmux-pins` in debugfs (root only; the owner it names wins) and from the enabled device-tree
/// nodes' `pinctrl-0` groups; a match is named with the HAT (boards/hats/hats.json) and the fix.
///
/// Thread: any (reads files).
public enum PinClaimCheck {
    /// Mux owners per pin from `/sys/kernel/debug/pinctrl/<dev>-<label>/pinmux-pins` of the
    /// controllers whose names end in one of `labels`; nil when none can be read.
    /// Line format (drivers/pinctrl/pinmux.c): `pin 22 (gpio22): soc:sound (GPIO UNCLAIMED) function gpio_out group gpio22`.
    public static func debugfsClaims(_ root: SystemRoot, labels: [String]) -> [Int: String]? {
        let base = "/sys/kernel/debug/pinctrl"
        var claims: [Int: String]?
        for dir in root.entries(base) where labels.contains(where: { dir.hasSuffix($0) }) {
            guard let text = root.text("\(base)/\(dir)/pinmux-pins") else { continue }
            var found = claims ?? [:]
            for line in text.split(separator: "\n") where line.hasPrefix("pin ") {
                let fields = line.split(separator: " ")
                guard fields.count >= 4, let pin = Int(fields[1]) else { continue }
                let owner = String(fields[3])
                if owner != "(MUX" { found[pin] = owner }
            }
            claims = found
        }
        return claims
    }

    public static func lines(_ context: DoctorContext) -> [DoctorLine] {
        let board = context.resolved.board
        let profile = (try? context.resolved.inputProfile()) ?? board.input
        var inputs: [(line: Int, use: String)] = profile.buttons.map { ($0.line, "button \($0.name)") }
        for encoder in profile.encoders {
            inputs += [(encoder.a, "encoder \(encoder.name) A"), (encoder.b, "encoder \(encoder.name) B")]
        }
        // Only a Pi's header chip has these claims (a gpio-sim or expander chip has its own numbers).
        guard !inputs.isEmpty, board.gpioChips.contains(where: { $0.hasPrefix("pinctrl-") }) else { return [] }
        // pinmux-pins names what bound drivers hold now; an enabled node's pinctrl-0 what its driver
        // takes when it probes (the driver core binds the pins just before probe: drivers/base/pinctrl.c
        // pinctrl_bind_pins). A node whose driver the kernel lacks never takes them: on Debian's kernel
        // iqaudio-dacplus's GPIO 22 is free in pinmux-pins and held by the player's button
        // (Tests/Fixtures/hardware/qemu-pi4-iqaudio-dacplus), so both sources count.
        let tree = DeviceTree(prefix: context.root.prefix)
        let live = debugfsClaims(context.root, labels: board.gpioChips)
        guard live != nil || tree.model != nil else { return [] }
        let claims = (tree.model == nil ? [:] : tree.pinctrlClaims).merging(live ?? [:]) { _, held in held }
        let source =
            live == nil ? "the device tree's pin groups" : "pinctrl's pinmux-pins and the device tree's pin groups"
        let hats = (try? BoardHat.table(near: board.file)) ?? []
        var lines: [DoctorLine] = []
        for (line, use) in inputs.sorted(by: { $0.line < $1.line }) {
            guard let owner = claims[line] else { continue }
            if line == 20 && owner.contains("i2s") {
                // The I2S group takes DIN too; a playback-only DAC leaves it unused, and a
                // gpiolib request moves the pin back to an input (the pre-2020 Pirate Audio's Y).
                lines.append(
                    .info(
                        "pins", "\(use) is on GPIO 20, the I2S input (DIN) \(owner) claims: fine unless the HAT records"
                    ))
                continue
            }
            let takers = BoardHat.claiming(line, in: hats)
            let what = takers.first?.pins.first { $0.line == line }?.use
            let which =
                takers.isEmpty
                ? "" : " (\(what ?? "a HAT's line"); HATs that take it: \(takers.map(\.name).joined(separator: ", ")))"
            lines.append(
                .fail(
                    "pins", "\(use) is wired to GPIO \(line), which \(owner) claims\(which)",
                    fix: BootConfigCheck.onImage(context.root)
                        ? "move \(use) to a free line: copy \(board.file) to a boards/ folder on the boot partition (any PC), set \"boardsDirectory\": \"/boot/firmware/boards\" in kiosk-settings.json, change its line there and rewire it; or set \"board\" in kiosk-settings.json to a profile whose configTxt leaves GPIO \(line) free (on this image config.txt takes the board's lines from kiosk-board.txt, written from the settings file)"
                        : "move \(use) to a free line: copy \(board.file) to /etc/kiosk-player/boards/, change its line there and rewire it; or remove the overlay that claims GPIO \(line) from config.txt"
                ))
        }
        if !lines.contains(where: { $0.status == .fail }) {
            lines.append(.pass("pins", "no button or encoder on a pin a HAT or overlay claims (\(source))"))
        }
        return lines
    }
}
