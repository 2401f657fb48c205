// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig

/// Check 6: the framebuffer the screen uses, found by name under /sys/class/graphics, and who owns
/// the console: the frame-buffer console (fbcon) bound to a vtcon (/sys/class/vtconsole/*/bind)
/// draws getty's prompt and cursor over the player unless the service takes it off.
///
/// Thread: any (reads files).
public enum ScreenCheck {
    /// fbN → its driver's name.
    public static func framebuffers(_ root: SystemRoot) -> [(fb: String, name: String)] {
        root.entries("/sys/class/graphics").filter { $0.hasPrefix("fb") }.map {
            ($0, root.value("/sys/class/graphics/\($0)/name") ?? "?")
        }
    }

    public static func lines(_ context: DoctorContext) -> [DoctorLine] {
        let resolved = context.resolved
        let root = context.root
        let type = resolved.config.screen.type ?? ScreenType(resolved.board.screen.type)
        let fbName = resolved.config.screen.fbName ?? resolved.board.screen.fbName
        let device = resolved.config.screen.device ?? resolved.board.screen.device
        let found = framebuffers(root)
        let listed = found.isEmpty ? "none" : found.map { "\($0.fb) \"\($0.name)\"" }.joined(separator: ", ")
        var lines: [DoctorLine] = []
        var usesFramebuffer = false
        switch type {
        case .framebuffer, .auto:
            if let fbName {
                if let hit = found.first(where: { $0.name == fbName }) {
                    lines.append(.pass("screen", "framebuffer \"\(fbName)\" is /dev/\(hit.fb)"))
                    usesFramebuffer = true
                } else if type == .framebuffer {
                    lines.append(
                        .fail(
                            "screen", "the screen (\"\(fbName)\") was not found",
                            fix: fbName.contains("vc4")
                                ? "connect the HDMI screen before boot, or force the output with video=HDMI-A-1:1280x720M@60D in /boot/firmware/cmdline.txt"
                                : "load the screen's overlay in config.txt and reboot, or set \"screen\": {\"fbName\": …} to one found",
                            detail: "no framebuffer named \"\(fbName)\" under /sys/class/graphics (found: \(listed))"))
                } else {
                    let panel = resolved.board.screen.spiPanel != nil ? "the SPI panel is used" : "no screen"
                    lines.append(.info("screen", "no framebuffer named \"\(fbName)\" (found: \(listed)): \(panel)"))
                }
            } else if let device, type == .framebuffer {
                if root.exists(device) {
                    lines.append(.pass("screen", "framebuffer \(device) is present (found: \(listed))"))
                    usesFramebuffer = true
                } else {
                    lines.append(
                        .fail(
                            "screen", "framebuffer \(device) is missing (found: \(listed))",
                            fix:
                                "set \"screen\": {\"fbName\": \"NAME\"} in /etc/kiosk-player/config.json to a name of /sys/class/graphics/fb*/name"
                        ))
                }
            } else {
                lines.append(.info("screen", "screen \(type.rawValue); framebuffers: \(listed)"))
                usesFramebuffer = !found.isEmpty
            }
        default:
            lines.append(.info("screen", "screen \(type.rawValue); framebuffers: \(listed)"))
        }
        lines += console(root, usesFramebuffer: usesFramebuffer)
        return lines
    }

    /// Which console driver each vtcon is and whether it is bound.
    static func console(_ root: SystemRoot, usesFramebuffer: Bool) -> [DoctorLine] {
        var bound: [String] = []
        var fbcon: String?
        for vtcon in root.entries("/sys/class/vtconsole") where vtcon.hasPrefix("vtcon") {
            let name = root.value("/sys/class/vtconsole/\(vtcon)/name") ?? "?"
            let isBound = root.value("/sys/class/vtconsole/\(vtcon)/bind") == "1"
            if isBound { bound.append("\(vtcon) \"\(name)\"") }
            if name.contains("frame buffer") && isBound { fbcon = vtcon }
        }
        guard let fbcon else {
            return [
                .info(
                    "screen", "no login text is drawn on the screen",
                    detail:
                        "console: \(bound.isEmpty ? "no vtconsole bound" : bound.joined(separator: ", ")) (fbcon is not drawing on a framebuffer)"
                )
            ]
        }
        return [
            .info(
                "screen",
                "the login text and cursor show on the screen while the player is stopped"
                    + (usesFramebuffer ? "; the player hides them while it runs" : ""),
                fix: usesFramebuffer
                    ? "if text shows over the player: echo 0 | sudo tee /sys/class/vtconsole/\(fbcon)/bind (or fbcon=map:9 in cmdline.txt)"
                    : nil,
                detail: "console: fbcon is bound (\(fbcon))")
        ]
    }
}
