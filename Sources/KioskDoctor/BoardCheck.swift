// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// Check 1: the board profile chosen and why: the config's "board" (or --board), the device-tree
/// model (/proc/device-tree/model) "auto" decides from, and a HAT's EEPROM (/proc/device-tree/hat/).
///
/// Thread: any (reads files).
public enum BoardCheck {
    /// The device-tree model ("Raspberry Pi 4 Model B Rev 1.4"), nil when there is none.
    public static func model(_ root: SystemRoot) -> String? {
        root.text("/proc/device-tree/model", limit: 256).map { $0.trimmingWhitespace() }.flatMap {
            $0.isEmpty ? nil : $0
        }
    }

    /// A HAT's EEPROM as the firmware passes it on: "Pirate Audio Line-out by Pimoroni", nil without one.
    public static func hat(_ root: SystemRoot) -> String? {
        guard let product = root.value("/proc/device-tree/hat/product"), !product.isEmpty else { return nil }
        let vendor = root.value("/proc/device-tree/hat/vendor").flatMap { $0.isEmpty ? nil : $0 }
        return vendor.map { "\(product) by \($0)" } ?? product
    }

    public static func lines(_ context: DoctorContext) -> [DoctorLine] {
        let board = context.resolved.board
        let model = model(context.root)
        let modelText = model.map { "device-tree model \"\($0)\"" } ?? "no device-tree model"
        var lines: [DoctorLine] = []
        // The profile's file is where it was found (a build machine's checkout, /usr/share): detail.
        if context.requestedBoard == "auto" {
            let why =
                model.map { "the device-tree model \"\($0)\" chose it" }
                ?? "no Raspberry Pi model chose another, so it is the default"
            lines.append(
                .pass("board", "\(board.name): \"board\" is \"auto\" and \(why)", detail: "profile \(board.file)"))
        } else {
            lines.append(
                .pass(
                    "board", "\(board.name): named by the config or --board; \(modelText)",
                    detail: "profile \(board.file)"))
        }
        if let hat = hat(context.root) {
            let bare = ["rpi3", "rpi4", "rpi5", "rpi-zero2w", "usb-keypad-hdmi"].contains(board.name)
            lines.append(
                .info(
                    "board", "HAT EEPROM: \(hat)" + (bare ? "; the profile \(board.name) is for the bare header" : ""),
                    fix: bare
                        ? "if a profile describes this HAT (kiosk-player boards), set \"board\": \"NAME\" in /etc/kiosk-player/config.json"
                        : nil))
        } else {
            lines.append(
                .info(
                    "board", "no HAT names itself: a HAT without an ID chip is chosen by \"board\" only",
                    detail: "no HAT EEPROM (/proc/device-tree/hat/product)"))
        }
        return lines
    }
}
