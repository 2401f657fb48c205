// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskDisplay
import KioskInput
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
    public var audioDevice: AudioDevice { config.audio.device ?? board.audio.device ?? Self.defaultDevice }

    /// ALSA's default PCM: the last fallback.
    public static let defaultDevice = AudioDevice.alsa(pcm: "default")

    /// `audioDevices` without those on `silentCards` (cards this board has but that cannot sound,
    /// `DeviceTree.silentCards`); "default" stays last.
    public func audioDevices(skipping silentCards: Set<String>) -> [AudioDevice] {
        audioDevices.filter { device in
            DeviceTree.cardName(of: device.name).map { !silentCards.contains($0) } ?? true
        }
    }

    /// The configured device, then the fallbacks (config, else board), then "default"; no duplicates.
    public var audioDevices: [AudioDevice] {
        var list = [audioDevice]
        for d in (config.audio.fallbackDevices ?? board.audio.fallbackDevices) + [Self.defaultDevice]
        where !list.contains(d) {
            list.append(d)
        }
        return list
    }

    /// The config's mixer; none when the config says `"mixer": null`; else the board's (or its HAT's).
    public var mixer: String? { config.audio.mixerNone ? nil : config.audio.mixer ?? board.audio.mixer }
    /// Whether the device stays open, fed silence, while stopped: the config's, else the board's.
    public var keepOpen: Bool { config.audio.keepOpen ?? board.audio.keepOpen }

    /// Spoken prompts by default only where no screen shows the messages (`hasScreen`: one was found).
    public func speechMode(hasScreen: Bool) -> SpeechConfig.Mode {
        config.speech.mode ?? (hasScreen ? .off : .prompts)
    }

    /// `speech.mode` as check-config shows it: the default follows the screen, found at run time
    /// when the screen type is `auto`.
    var speechModeText: String {
        if let mode = config.speech.mode { return mode.rawValue }
        switch config.screen.type ?? ScreenType(board.screen.type) {
        case .none: return SpeechConfig.Mode.prompts.rawValue
        case .auto: return "prompts when no screen is found, else off"
        default: return SpeechConfig.Mode.off.rawValue
        }
    }

    /// The board's inputs with `inputs.keymap` of the config applied. Errors name the config file
    /// and the key path (`inputs.keymap.A.press: unknown action …`).
    public func inputProfile() throws(ConfigError) -> InputProfile {
        var profile = board.input
        if let keymap = config.inputs.keymap.object, !keymap.isEmpty {
            let reader = try JSONReader(config.inputs.keymap, file: config.file, path: "inputs.keymap")
            try profile.applyKeymap(reader)
        }
        if let readers = config.cards.readers { profile.cardReaders = readers }
        return profile
    }

    /// Checks what only the combination can show: the key map against the board's controls, and
    /// the reset lines of config `cards.readers` (which replace the board's readers) against the
    /// lines the board's buttons, encoders, panel and HAT use on the same chip.
    public func validate() throws(ConfigError) {
        let inputs = try inputProfile()
        if let exhibit = config.exhibit {
            for (index, clip) in exhibit.clips.enumerated() {
                guard case .button(let name) = clip.input, !inputs.buttons.contains(where: { $0.name == name }) else {
                    continue
                }
                let known = inputs.buttons.map(\.name).joined(separator: ", ")
                throw ConfigError(
                    file: config.file, path: "exhibit.clips[\(index)].input.button",
                    message:
                        "board \(board.name) has no button \"\(name)\" (its buttons: \(known.isEmpty ? "none" : known))"
                )
            }
        }
        guard let readers = config.cards.readers else { return }
        var withoutReaders = board
        withoutReaders.input.cardReaders = []
        var owner = try withoutReaders.lineOwners()
        for (index, reader) in readers.enumerated() {
            guard case .rc522(let rc522) = reader, let reset = rc522.reset,
                rc522.gpioChips == nil || rc522.gpioChips == board.gpioChips
            else { continue }
            if let other = owner[reset] {
                throw ConfigError(
                    file: config.file, path: "cards.readers[\(index)].reset",
                    message: "GPIO line \(reset) is already used by \(other) on board \(board.name)")
            }
            owner[reset] = "card reader \(index + 1)'s reset"
        }
    }

    public func json() -> JSONValue {
        let c = config
        func strings(_ list: [String]) -> JSONValue { .array(list.map { .string($0) }) }
        func optional(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        // One annotated list per section: Swift 6.0's type checker gives up on a single nested literal.
        let audio: [(String, JSONValue)] = [
            ("device", .string(audioDevice.name)),
            ("fallbackDevices", strings(audioDevices.dropFirst().map(\.name))),
            ("mixer", optional(mixer)),
            ("bufferMs", .number(Double(c.audio.bufferMs))),
            ("ringSeconds", .number(c.audio.ringSeconds)),
            ("realtimePriority", .number(Double(c.audio.realtimePriority))),
            ("declickMs", .number(Double(c.audio.declickMs))),
            ("keepOpen", .bool(keepOpen)),
        ]
        let screen: [(String, JSONValue)] = [
            ("type", .string((c.screen.type ?? ScreenType(board.screen.type)).rawValue)),
            ("device", optional(c.screen.device ?? board.screen.device)),
            ("fbName", optional(c.screen.fbName ?? board.screen.fbName)),
            ("rotation", .number(Double(c.screen.rotation ?? board.screen.rotation))),
            ("theme", .string(c.screen.theme)),
            ("pngDirectory", optional(c.screen.pngDirectory)),
            ("width", .number(Double(c.screen.width))),
            ("height", .number(Double(c.screen.height))),
            ("idleOffSeconds", .number(Double(c.screen.idleOffSeconds))),
            ("maxFramesPerSecond", .number(Double(c.screen.maxFramesPerSecond))),
        ]
        let inputs: [(String, JSONValue)] = [
            ("gpioChip", strings(board.gpioChips)),
            ("debounceMs", .number(Double(c.inputs.debounceMs))),
            ("longPressMs", .number(Double(c.inputs.longPressMs))),
            ("repeatDelayMs", .number(Double(c.inputs.repeatDelayMs))),
            ("repeatMs", .number(Double(c.inputs.repeatMs))),
            ("chordMs", .number(Double(c.inputs.chordMs))),
            ("doublePressMs", .number(Double(c.inputs.doublePressMs))),
            ("keyboard", c.inputs.keyboard.map { JSONValue.bool($0) } ?? JSONValue.null),
            ("script", optional(c.inputs.script)),
            ("keymap", c.inputs.keymap),
        ]
        let mpd: [(String, JSONValue)] = [
            ("socket", optional(c.mpd.socket)),
            ("listen", optional(c.mpd.listen)),
            ("password", c.mpd.password == nil ? JSONValue.null : JSONValue.string("(set)")),
            ("maxClients", .number(Double(c.mpd.maxClients))),
        ]
        let readers = (config.cards.readers ?? board.input.cardReaders).map { JSONValue.string($0.summary) }
        let cards: [(String, JSONValue)] = [
            ("again", .string(c.cards.again.rawValue)),
            ("removed", .string(c.cards.removed.rawValue)),
            ("removedStopMinutes", c.cards.removedStopMinutes.map { .number(Double($0)) } ?? .null),
            ("readers", .array(readers)),
        ]
        let speech: [(String, JSONValue)] = [
            ("mode", .string(speechModeText)),
            ("language", .string(c.speech.language)),
            ("volume", .number(Double(c.speech.volume))),
            ("duck", .bool(c.speech.duck)),
            ("duckDb", .number(c.speech.duckDb)),
        ]
        let members: [(String, JSONValue)] = [
            ("configFile", .string(c.file.isEmpty ? "(built-in defaults)" : c.file)),
            ("board", .string(board.name)),
            ("boardFile", .string(board.file)),
            ("boardDescription", .string(board.description)),
            ("hat", optional(board.hat?.name)),
            ("configTxt", strings(board.configTxt)),
            ("mediaRoots", strings(c.mediaRoots)),
            ("stateDirectory", .string(c.stateDirectory)),
            ("volume", .number(Double(c.volume))),
            ("volumeMin", .number(Double(c.volumeLimits.range.lowerBound))),
            ("volumeMax", .number(Double(c.volumeLimits.range.upperBound))),
            ("volumeAtBoot", c.volumeAtBoot.map { JSONValue.number(Double($0)) } ?? JSONValue.null),
            ("resumeAtBoot", .bool(c.resumeAtBoot)),
            ("libraryDirectories", strings(c.libraryDirectories)),
            ("idlePowerOffMinutes", .number(Double(c.idlePowerOffMinutes))),
            ("audiobookGenres", strings(c.audiobookGenres)),
            ("sleepMinutes", .array(c.sleepMinutes.map { .number(Double($0)) })),
            ("sleepAction", .string(c.sleepAction.rawValue)),
            ("bookmarks", .string(c.bookmarks.rawValue)),
            ("repeat", .bool(c.repeatQueue)),
            ("shuffle", .string(c.shuffle.rawValue)),
            ("audio", .object(audio)),
            ("screen", .object(screen)),
            ("inputs", .object(inputs)),
            ("mpd", .object(mpd)),
            ("speech", .object(speech)),
            ("cards", .object(cards)),
            ("bedtime", c.bedtime?.json() ?? .null),
            ("battery", c.battery?.json() ?? .null),
            ("bluetooth", c.bluetooth?.json() ?? .null),
        ]
        return .object(members)
    }
}

/// The screen the config and the board choose together (the framebuffer probe is the app's:
/// `framebufferDevice`). Thread: a value.
extension ResolvedConfig {
    /// The board's "screen" section with the config's `device`, `fbName` and `rotation` applied.
    public var screenProfile: ScreenProfile {
        var profile = board.screen
        if let device = config.screen.device { profile.device = device }
        if let name = config.screen.fbName { profile.fbName = name }
        if let rotation = config.screen.rotation { profile.rotation = rotation }
        return profile
    }

    /// The screen type: `override` (`run --screen`), else the config's, else the board's.
    public func screenType(override: ScreenType? = nil) -> ScreenType {
        override ?? config.screen.type ?? ScreenType(board.screen.type)
    }
}
