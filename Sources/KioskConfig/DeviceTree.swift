// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// What the running device tree (/proc/device-tree, under `prefix` in tests) says about the
/// hardware: the model, whether the analogue `Headphones` output has pins, whether the I2S block
/// stops its clock on pause, whether the board can measure under-voltage, and which header pins
/// enabled devices claim through pinctrl.
///
/// Thread: a value; any thread (reads files).
public struct DeviceTree: Sendable {
    /// Prepended to every absolute path; "" for the running system.
    public var prefix: String

    public init(prefix: String = "") {
        self.prefix = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
    }

    public static let live = DeviceTree()

    static let base = "/proc/device-tree"

    private func read(_ path: String, limit: Int = 4096) -> [UInt8]? {
        try? Syscalls.readFile(prefix + path, limit: limit)
    }

    private func strings(_ path: String) -> [String]? {
        read(path).map { $0.split(separator: 0).map { String(decoding: $0, as: UTF8.self) } }
    }

    private func children(_ path: String) -> [String] {
        guard let listing = try? Syscalls.readDirectory(prefix + path) else { return [] }
        return listing.entries.filter { $0.name != "." && $0.name != ".." && $0.kind == .directory }.map(\.name)
            .sorted()
    }

    /// Big-endian 32-bit cells of a property.
    private func cells(_ path: String) -> [UInt32]? {
        guard let bytes = read(path) else { return nil }
        var result: [UInt32] = []
        var index = 0
        while index + 4 <= bytes.count {
            var cell: UInt32 = 0
            for byte in bytes[index..<(index + 4)] { cell = cell << 8 | UInt32(byte) }
            result.append(cell)
            index += 4
        }
        return result
    }

    /// The model ("Raspberry Pi 4 Model B Rev 1.4"), nil without a device tree.
    public var model: String? {
        strings(Self.base + "/model")?.first.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether the bcm2835 analogue output has pins: false when the board's `audio_pins` group is
    /// empty (the Pi 400 and Zero 2 W trees: bcm2711-rpi-400.dts, bcm2710-rpi-zero-2-w.dts), so the
    /// `Headphones` card plays into nothing; nil when the tree has no such group (no jack driver).
    public var headphonesHavePins: Bool? {
        for node in children(Self.base + "/soc") where node.hasPrefix("gpio@") {
            let group = "\(Self.base)/soc/\(node)/audio_pins"
            if let pins = read(group + "/brcm,pins") { return !pins.isEmpty }
        }
        return nil
    }

    /// Cards that exist but cannot sound on this board (their ALSA ids).
    public var silentCards: Set<String> { headphonesHavePins == false ? ["Headphones"] : [] }

    /// Whether the board has no under-voltage detection: the Pi Zero (W) and the Compute Modules
    /// (raspberrypi/linux#2367), where `rpi_volt` and `get_throttled` never report it.
    public var underVoltageUnmeasurable: Bool {
        guard let model else { return false }
        return model.hasPrefix("Raspberry Pi Compute Module") || model.hasPrefix("Raspberry Pi Zero W")
            || model.hasPrefix("Raspberry Pi Zero Rev")
    }

    /// Whether an enabled I2S block is the DesignWare one (the Pi 5's RP1), whose trigger stops the
    /// clock on pause and stop when no stream is active (sound/soc/dwc/dwc-i2s.c `i2s_stop`).
    public var i2sStopsClockOnPause: Bool {
        var found = false
        walk(Self.base, depth: 0) { path in
            guard !found, isEnabled(path), strings(path + "/compatible")?.contains("snps,designware-i2s") == true
            else { return }
            found = true
        }
        return found
    }

    private func isEnabled(_ node: String) -> Bool {
        guard let status = strings(node + "/status")?.first else { return true }
        return status == "okay" || status == "ok"
    }

    /// Visits every node (depth-first, at most 8 levels and 4096 nodes).
    private func walk(_ path: String, depth: Int, _ visit: (String) -> Void) {
        var budget = 4096
        func go(_ path: String, _ depth: Int) {
            guard budget > 0 else { return }
            budget -= 1
            visit(path)
            guard depth < 8 else { return }
            for child in children(path) { go(path + "/" + child, depth + 1) }
        }
        go(path, depth)
    }

    /// Header pins that enabled devices claim through pinctrl (`pinctrl-0` → a pin group under the
    /// header's GPIO controller: `brcm,pins` cells on Pi 0–4, `pins = "gpioN"` on the Pi 5's RP1), with the
    /// claiming node's path ("/soc/sound"). These pins show as free in gpiolib's line info.
    public var pinctrlClaims: [Int: String] {
        var phandles: [UInt32: String] = [:]
        var users: [(node: String, groups: [UInt32])] = []
        walk(Self.base, depth: 0) { path in
            if let handle = cells(path + "/phandle")?.first { phandles[handle] = path }
            if let groups = cells(path + "/pinctrl-0"), !groups.isEmpty, isEnabled(path) {
                users.append((path, groups))
            }
        }
        var claims: [Int: String] = [:]
        for user in users {
            let owner = String(user.node.dropFirst(Self.base.count))
            for handle in user.groups {
                // Only the header's controller: the Pi 0–4's at 7e200000, the Pi 5's on RP1 (the
                // Pi 5's SoC GPIO blocks number their own pins from 0 too).
                guard let group = phandles[handle] else { continue }
                let path = String(group.dropFirst(Self.base.count))
                guard path.hasPrefix("/soc/gpio@7e200000/") || path.contains("/rp1/gpio@") else { continue }
                var pins = cells(group + "/brcm,pins")?.map(Int.init) ?? []
                pins += (strings(group + "/pins") ?? []).compactMap {
                    $0.hasPrefix("gpio") ? Int($0.dropFirst(4)) : nil
                }
                for pin in pins where claims[pin] == nil { claims[pin] = owner }
            }
        }
        return claims
    }

    /// The card a PCM name refers to: "hw:CARD=sndrpihifiberry,DEV=0" → "sndrpihifiberry",
    /// "plughw:1,0" → "1", "hdmi:vc4hdmi0" → "vc4hdmi0"; nil for "default", "null", asoundrc PCMs.
    public static func cardName(of device: String) -> String? {
        guard let colon = device.firstIndex(of: ":") else { return nil }
        let arguments = device[device.index(after: colon)...].split(separator: ",")
        if let card = arguments.first(where: { $0.hasPrefix("CARD=") }) { return String(card.dropFirst(5)) }
        if let first = arguments.first, !first.contains("=") { return String(first) }
        return nil
    }
}
