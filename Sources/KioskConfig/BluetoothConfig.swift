// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// Bluetooth headphones (`bluetooth` in config.json): the adapter BlueZ drives, the headphones'
/// own volume limit, how long pairing looks for headphones and how long a start waits for the
/// remembered pair. Absent: Bluetooth stays off and nothing is asked of BlueZ (the default).
///
/// The box plays to the headphones through bluez-alsa's ALSA PCM
/// (`bluealsa:DEV=AA:BB:CC:DD:EE:FF,PROFILE=a2dp`), the same output stage as the speaker.
///
/// Thread: a value; any.
public struct BluetoothConfig: Sendable, Equatable {
    /// The BlueZ adapter ("hci0").
    public var adapter = "hci0"
    /// The headphones' volume limit, lower than the speaker's: the volume comes down to it when
    /// they connect and cannot go above it while they play.
    public var maxVolume = 60
    /// How long pairing looks for headphones in pairing mode.
    public var pairSeconds = 60
    /// How long a start (or the bluetooth action) waits for the remembered pair before the box
    /// stays on the speaker.
    public var connectSeconds = 20
    /// Whether the progress is spoken even when `speech.mode` is off (a box without a screen).
    public var speak = true

    public init() {}

    /// The bluez-alsa ALSA PCM of the headphones at `address`.
    public static func pcm(address: String) -> String { "bluealsa:DEV=\(address),PROFILE=a2dp" }

    /// Whether `text` is a Bluetooth address "AA:BB:CC:DD:EE:FF" (hex, either case).
    public static func isAddress(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }

    /// Reads the `bluetooth` object; errors name the key (`bluetooth.maxVolume`).
    public static func parse(_ r: JSONReader) throws(ConfigError) -> BluetoothConfig {
        var c = BluetoothConfig()
        if let adapter = try r.string("adapter") {
            guard adapter.hasPrefix("hci"), let n = Int(adapter.dropFirst(3)), (0...15).contains(n) else {
                throw r.error("adapter", "expected an adapter name such as \"hci0\", got \"\(adapter)\"")
            }
            c.adapter = adapter
        }
        c.maxVolume = try r.int("maxVolume", range: 1...100) ?? c.maxVolume
        c.pairSeconds = try r.int("pairSeconds", range: 10...300) ?? c.pairSeconds
        c.connectSeconds = try r.int("connectSeconds", range: 2...120) ?? c.connectSeconds
        c.speak = try r.bool("speak") ?? c.speak
        try r.finish()
        return c
    }

    /// The settings as `check-config` prints them.
    public func json() -> JSONValue {
        .object([
            ("adapter", .string(adapter)), ("maxVolume", .number(Double(maxVolume))),
            ("pairSeconds", .number(Double(pairSeconds))), ("connectSeconds", .number(Double(connectSeconds))),
            ("speak", .bool(speak)),
        ])
    }
}
