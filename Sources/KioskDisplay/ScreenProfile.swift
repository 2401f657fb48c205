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
    /// The SPI panel description, kept as JSON for the SPI panel surface to read.
    public var panel: JSONValue?

    public init(
        type: Kind = .auto, fbName: String? = nil, device: String? = "/dev/fb0", rotation: Int = 0,
        panel: JSONValue? = nil
    ) {
        self.type = type
        self.fbName = fbName
        self.device = device
        self.rotation = rotation
        self.panel = panel
    }

    /// Reads the "screen" object of a profile; unknown keys and bad values are errors naming
    /// their key path (`screen.rotation: expected one of …`).
    public init(_ reader: JSONReader) throws(ConfigError) {
        let typeName = try reader.choice("type", Kind.allCases.map(\.rawValue)) ?? "auto"
        type = Kind(rawValue: typeName) ?? .auto
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
        if let panel, panel.object == nil {
            throw reader.error("panel", "expected an object, got \(JSONReader.show(panel))")
        }
        try reader.finish()
    }

    /// The "screen" section of a whole profile document; the defaults when it has none.
    public static func parse(profile reader: JSONReader) throws(ConfigError) -> ScreenProfile {
        guard let screen = try reader.object("screen") else { return ScreenProfile() }
        return try ScreenProfile(screen)
    }
}
