// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// The "screen" section of a board profile (boards/README.md): which kind of screen the board
/// has and where to find it. Thread: a value.
public struct ScreenProfile: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case framebuffer, spi, none, auto
    }

    public var type: Kind
    /// Matched against /sys/class/graphics/fbN/name; preferred over `device`.
    public var fbName: String?
    /// e.g. "/dev/fb0".
    public var device: String?
    /// 0, 90, 180 or 270 degrees clockwise.
    public var rotation: Int
    /// The SPI panel object as written (the board loader reads its control lines from it).
    public var panel: JSONValue?
    /// The SPI panel, parsed and checked.
    public var spiPanel: SPIPanelDescription?

    public init(
        type: Kind = .auto, fbName: String? = nil, device: String? = "/dev/fb0", rotation: Int = 0,
        panel: JSONValue? = nil, spiPanel: SPIPanelDescription? = nil
    ) {
        self.type = type
        self.fbName = fbName
        self.device = device
        self.rotation = rotation
        self.panel = panel
        self.spiPanel = spiPanel
    }

    /// Reads the "screen" object of a profile; unknown keys and bad values are errors naming
    /// their key path (`screen.rotation: expected one of …`).
    public init(_ reader: JSONReader) throws(ConfigError) {
        type = try reader.choice("type", Kind.self) ?? .auto
        fbName = try reader.string("fbName")
        device = try reader.string("device") ?? "/dev/fb0"
        if let device, !device.hasPrefix("/") {
            throw reader.error("device", "expected an absolute path such as /dev/fb0, got \"\(device)\"")
        }
        let rotationValue = try reader.int("rotation", range: 0...270) ?? 0
        guard [0, 90, 180, 270].contains(rotationValue) else {
            throw reader.error("rotation", "expected 0, 90, 180 or 270, got \(rotationValue)")
        }
        rotation = rotationValue
        panel = reader.raw("panel")
        spiPanel = try reader.object("panel").map { (r) throws(ConfigError) in try SPIPanelDescription(r) }
        if type == .spi && spiPanel == nil {
            throw reader.error("panel", "required for a screen of type \"spi\"")
        }
        try reader.finish()
    }

    /// The "screen" section of a whole profile document; the defaults when it has none.
    public static func parse(profile reader: JSONReader) throws(ConfigError) -> ScreenProfile {
        guard let screen = try reader.object("screen") else { return ScreenProfile() }
        return try ScreenProfile(screen)
    }
}
