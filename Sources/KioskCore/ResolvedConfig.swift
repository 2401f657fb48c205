import KioskSystem

/// The configuration after the board profile is applied: what `check-config` prints and what
/// `run` uses. Config values win over the board's.
public struct ResolvedConfig: Sendable {
    public var config: Config
    public var board: BoardProfile

    public init(config: Config, board: BoardProfile) {
        self.config = config
        self.board = board
    }

    /// The audio device to open first.
    public var audioDevice: String { config.audio.device ?? board.audio.device ?? "default" }

    /// The configured device, then the fallbacks (config, else board), then "default"; no duplicates.
    public var audioDevices: [String] {
        var list = [audioDevice]
        for d in (config.audio.fallbackDevices ?? board.audio.fallbackDevices) + ["default"] where !list.contains(d) {
            list.append(d)
        }
        return list
    }

    public var mixer: String? { config.audio.mixer ?? board.audio.mixer }

    public func json() -> JSONValue {
        let c = config
        func strings(_ list: [String]) -> JSONValue { .array(list.map { .string($0) }) }
        func optional(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        return .object([
            ("configFile", .string(c.file.isEmpty ? "(built-in defaults)" : c.file)),
            ("board", .string(board.name)),
            ("boardFile", .string(board.file)),
            ("boardDescription", .string(board.description)),
            ("mediaRoots", strings(c.mediaRoots)),
            ("stateDirectory", .string(c.stateDirectory)),
            ("volume", .number(Double(c.volume))),
            ("repeat", .bool(c.repeatQueue)),
            (
                "audio",
                .object([
                    ("device", .string(audioDevice)),
                    ("fallbackDevices", strings(Array(audioDevices.dropFirst()))),
                    ("mixer", optional(mixer)),
                    ("bufferMs", .number(Double(c.audio.bufferMs))),
                    ("ringSeconds", .number(c.audio.ringSeconds)),
                    ("realtimePriority", .number(Double(c.audio.realtimePriority))),
                ])
            ),
            (
                "screen",
                .object([
                    ("type", .string(c.screen.type ?? "auto")),
                    ("device", optional(c.screen.device)),
                    ("fbName", optional(c.screen.fbName)),
                    ("rotation", c.screen.rotation.map { .number(Double($0)) } ?? .null),
                    ("theme", .string(c.screen.theme)),
                    ("idleOffSeconds", .number(Double(c.screen.idleOffSeconds))),
                    ("maxFramesPerSecond", .number(Double(c.screen.maxFramesPerSecond))),
                ])
            ),
            (
                "inputs",
                .object([
                    ("gpioChip", strings(board.gpioChips)),
                    ("debounceMs", .number(Double(c.inputs.debounceMs))),
                    ("longPressMs", .number(Double(c.inputs.longPressMs))),
                    ("repeatDelayMs", .number(Double(c.inputs.repeatDelayMs))),
                    ("repeatMs", .number(Double(c.inputs.repeatMs))),
                    ("keymap", c.inputs.keymap),
                ])
            ),
            (
                "mpd",
                .object([
                    ("socket", optional(c.mpd.socket)),
                    ("listen", optional(c.mpd.listen)),
                    ("password", c.mpd.password == nil ? .null : .string("(set)")),
                    ("maxClients", .number(Double(c.mpd.maxClients))),
                ])
            ),
        ])
    }
}
