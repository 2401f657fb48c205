// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// A card reader of a board profile (`cardReaders[]`) or of config.json (`cards.readers`, which
/// replaces the board's list): a USB reader that types like a keyboard, found by its evdev name,
/// or an RC522 module on SPI.
///
/// Thread: a value; any thread.
public enum CardReaderConfig: Sendable, Equatable {
    case usb(device: String)
    case rc522(RC522Config)

    /// For messages and `kiosk-player inputs`.
    public var summary: String {
        switch self {
        case .usb(let device): "card reader usb \"\(device)\" (grabbed: its keys are card numbers only)"
        case .rc522(let c):
            "card reader rc522 on \(c.devicePath) at \(c.speedHz / 1000) kHz\(c.reset.map { ", reset line \($0)" } ?? ""), polled every \(c.pollMs) ms\(c.optional ? " (optional)" : "")"
        }
    }

    /// Reads `key` of `reader` (an array of reader objects); nil when absent. Errors name the key path.
    public static func parseList(_ reader: JSONReader, _ key: String, lines: inout LineRegistry) throws(ConfigError)
        -> [CardReaderConfig]?
    {
        guard let items = try reader.objects(key, maxCount: 4) else { return nil }
        var result: [CardReaderConfig] = []
        var buses: [String: String] = [:]
        for item in items {
            guard let type = try item.choice("type", ["usb", "rc522"]) else {
                throw item.error("type", "required: \"usb\" or \"rc522\"")
            }
            if type == "usb" {
                guard let device = try item.string("device") else {
                    throw item.error(
                        "device", "required: the reader's evdev name (kiosk-player inputs lists them) or a path")
                }
                try item.finish(known: ["type", "device"])
                result.append(.usb(device: device))
                continue
            }
            var config = RC522Config()
            config.spiBus = try item.int("spiBus", range: 0...15) ?? config.spiBus
            config.spiCS = try item.int("spiCS", range: 0...15) ?? config.spiCS
            config.device = try item.string("device")
            config.speedHz = try item.int("speedHz", range: 100_000...10_000_000) ?? config.speedHz
            config.pollMs = try item.int("pollMs", range: 50...5_000) ?? config.pollMs
            if let reset = try item.int("reset", range: 0...4095) {
                try lines.use(reset, "rc522 reset", item, "reset")
                config.reset = reset
            }
            config.gpioChips = try item.strings("gpioChip", maxCount: 8)
            config.optional = try item.bool("optional") ?? false
            if let other = buses[config.devicePath] {
                throw item.error("spiCS", "\(config.devicePath) is already used by the reader at \(other)")
            }
            buses[config.devicePath] = item.path
            try item.finish(known: [
                "type", "spiBus", "spiCS", "device", "speedHz", "pollMs", "reset", "gpioChip", "optional",
            ])
            result.append(.rc522(config))
        }
        return result
    }
}

/// An RC522 (MFRC522) module's wiring: the spidev device, its clock, the reset line (NRSTPD,
/// optional: the module's own pull-up keeps it running) and how often it is polled.
///
/// Thread: a value; any thread.
public struct RC522Config: Sendable, Equatable {
    public var spiBus = 0
    /// Chip select 1 by default: CS0 is where SPI panels sit.
    public var spiCS = 1
    /// A spidev path that overrides bus and chip select.
    public var device: String?
    /// 1 MHz: well inside the chip's 10 MHz, and robust on jumper wires.
    public var speedHz = 1_000_000
    public var reset: Int?
    /// Between polls: a card is seen within this, and taken as removed after two silent polls.
    public var pollMs = 200
    /// The chip of the reset line (nil: the board's).
    public var gpioChips: [String]?
    /// A reader the box may or may not have: its absence is noted in the log, not reported as a
    /// problem; it is still looked for, so one wired later works without a config change. (No
    /// stock profile names a reader: its reset line would be driven on a pin nobody gave it.)
    public var optional = false

    public init() {}

    public var devicePath: String { device ?? "/dev/spidev\(spiBus).\(spiCS)" }
}
