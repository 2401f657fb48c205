// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import KioskHardware
import KioskModel
import KioskSystem

/// The actions of one button or key: a short press, a long press, a hold-repeat (a button has
/// `longPress` or `hold`, not both).
///
/// Thread: a value; any thread.
public struct ButtonBinding: Sendable, Equatable {
    public var press: Action?
    public var longPress: Action?
    public var hold: Action?
    /// A second press soon after a first (`Gestures`), and what holding that second press repeats.
    public var doublePress: Action?
    public var doubleHold: Action?

    public init(
        press: Action? = nil, longPress: Action? = nil, hold: Action? = nil, doublePress: Action? = nil,
        doubleHold: Action? = nil
    ) {
        self.press = press
        self.longPress = longPress
        self.hold = hold
        self.doublePress = doublePress
        self.doubleHold = doubleHold
    }

    var isEmpty: Bool { press == nil && longPress == nil && hold == nil && doublePress == nil && doubleHold == nil }

    /// Why the gestures cannot be told apart, or nil: a long press with a hold or a double press; a
    /// double press with no press before it; a double hold with no double press.
    var conflict: String? {
        if longPress != nil && hold != nil { return "a button has either \"hold\" or \"longPress\", not both" }
        if longPress != nil && doublePress != nil {
            return "a button has either \"doublePress\" or \"longPress\", not both"
        }
        if doublePress != nil && press == nil { return "\"doublePress\" needs a \"press\" action too" }
        if doubleHold != nil && doublePress == nil { return "\"doubleHold\" needs a \"doublePress\" action too" }
        return nil
    }

    var summary: String {
        var parts: [String] = []
        if let press { parts.append("press \(press.rawValue)") }
        if let longPress { parts.append("long press \(longPress.rawValue)") }
        if let hold { parts.append("hold \(hold.rawValue)") }
        if let doublePress { parts.append("double press \(doublePress.rawValue)") }
        if let doubleHold { parts.append("double press held \(doubleHold.rawValue)") }
        return parts.isEmpty ? "no action" : parts.joined(separator: ", ")
    }
}

/// A push button on a GPIO line (`buttons[]` of a board profile).
public struct ButtonConfig: Sendable, Equatable {
    public var name: String
    public var line: Int
    public var bias: GPIOBias = .pullUp
    public var activeLow = true
    /// nil: `InputSettings.debounceMs`.
    public var debounceMs: Int?
    public var binding: ButtonBinding

    public init(
        name: String, line: Int, bias: GPIOBias = .pullUp, activeLow: Bool = true, debounceMs: Int? = nil,
        binding: ButtonBinding
    ) {
        self.name = name
        self.line = line
        self.bias = bias
        self.activeLow = activeLow
        self.debounceMs = debounceMs
        self.binding = binding
    }
}

/// A quadrature rotary encoder on two GPIO lines (`encoders[]`). Its push switch is a button.
public struct EncoderConfig: Sendable, Equatable {
    public var name: String
    public var a: Int
    public var b: Int
    public var bias: GPIOBias = .pullUp
    /// 1, 2 or 4 Gray-code states per detent.
    public var stepsPerDetent = 4
    public var reverse = false
    /// nil: no acceleration.
    public var acceleration: EncoderAcceleration.Curve? = EncoderAcceleration.Curve.standard
    public var clockwise: Action
    public var counterClockwise: Action

    public init(
        name: String, a: Int, b: Int, bias: GPIOBias = .pullUp, stepsPerDetent: Int = 4, reverse: Bool = false,
        acceleration: EncoderAcceleration.Curve? = .standard, clockwise: Action, counterClockwise: Action
    ) {
        self.name = name
        self.a = a
        self.b = b
        self.bias = bias
        self.stepsPerDetent = stepsPerDetent
        self.reverse = reverse
        self.acceleration = acceleration
        self.clockwise = clockwise
        self.counterClockwise = counterClockwise
    }
}

/// Buttons pressed together (`chords[]`), e.g. play+stop held 3 s for shutdown.
public struct ChordConfig: Sendable, Equatable {
    public var buttons: [String]
    public var holdMs: Int
    public var action: Action

    public init(buttons: [String], holdMs: Int = 0, action: Action) {
        self.buttons = buttons
        self.holdMs = holdMs
        self.action = action
    }
}

/// An input device read through evdev (`evdev[]`): gpio-keys, USB keypads, IR remotes, the
/// rotary-encoder overlay.
public struct EvdevConfig: Sendable, Equatable {
    /// A key of `keys`.
    public struct Key: Sendable, Equatable {
        public var name: String
        public var code: UInt16
        public var binding: ButtonBinding
        public init(name: String, code: UInt16, binding: ButtonBinding) {
            self.name = name
            self.code = code
            self.binding = binding
        }
    }
    /// A relative axis of `relative`.
    public struct Axis: Sendable, Equatable {
        public var name: String
        public var code: UInt16
        public var positive: Action?
        public var negative: Action?
        public init(name: String, code: UInt16, positive: Action?, negative: Action?) {
            self.name = name
            self.code = code
            self.positive = positive
            self.negative = negative
        }
    }

    /// The device's name (EVIOCGNAME), a path (starts with "/"), "*" (any device with the keys) or
    /// "*" and the end of a name ("* (AVRCP)": the uinput device BlueZ makes for a headset's buttons).
    public var device: String
    public var keys: [Key]
    public var relative: [Axis]
    /// A device that comes and goes in normal use (Bluetooth headphones' buttons): its absence is
    /// logged as a notice, not reported as an input problem.
    public var comesAndGoes = false

    public init(device: String, keys: [Key] = [], relative: [Axis] = [], comesAndGoes: Bool = false) {
        self.device = device
        self.keys = keys
        self.relative = relative
        self.comesAndGoes = comesAndGoes
    }

    /// The buttons of Bluetooth headphones: BlueZ turns the AVRCP passthrough commands a headset
    /// sends into keys of a uinput device named "<headset name> (AVRCP)" (profiles/audio/avctp.c,
    /// `handle_panel_passthrough`, when no media player is registered with BlueZ).
    public static let headsetButtons: EvdevConfig = {
        let keys: [(String, Action)] = [
            ("KEY_PLAYCD", .play), ("KEY_PAUSECD", .pause), ("KEY_PLAYPAUSE", .playPause), ("KEY_STOPCD", .stop),
            ("KEY_NEXTSONG", .next), ("KEY_PREVIOUSSONG", .previous),
        ]
        return EvdevConfig(
            device: "* (AVRCP)",
            keys: keys.compactMap { name, action in
                Keymap.evdevCode(named: name).map {
                    Key(name: name, code: $0.code, binding: ButtonBinding(press: action))
                }
            },
            comesAndGoes: true)
    }()
}

/// The inputs of a board: GPIO buttons, encoders and chords, evdev devices, and the keyboard map.
/// The input half of a board profile (`boards/README.md`): `gpioChip`, `buttons`, `encoders`,
/// `chords`, `evdev`.
///
/// Thread: a value; any thread.
public struct InputProfile: Sendable {
    /// Chip labels, paths, names or numbers: the first that exists is used.
    public var gpioChips: [String]
    public var buttons: [ButtonConfig]
    public var encoders: [EncoderConfig]
    public var chords: [ChordConfig]
    public var evdev: [EvdevConfig]
    /// Terminal key → action (`Keymap.defaultKeyboard`, changed by `applyKeymap`).
    public var keyboard: [String: Action]
    /// Card readers (`cardReaders[]`; config.json's `cards.readers` replaces them).
    public var cardReaders: [CardReaderConfig] = []

    /// Where GPIO headers are on Raspberry Pis, newest first; used when a profile names no chip.
    /// Labels only: a chip number is the header on a Pi 0-4 (its SoC's pinctrl registers first) but
    /// not on a Pi 5, whose RP1 was gpiochip4 up to kernel 6.6.44 (gpiochip0 being the SoC's own).
    public static let defaultGPIOChips = [raspberryPi5Label, "pinctrl-bcm2711", "pinctrl-bcm2835"]

    /// The label of the Raspberry Pi 5's header chip (RP1).
    static let raspberryPi5Label = "pinctrl-rp1"

    /// Whether a `gpioChip` entry names a chip by number ("4", "gpiochip4", "/dev/gpiochip4").
    static func isChipNumber(_ spec: String) -> Bool {
        let name = spec.split(separator: "/").last.map(String.init) ?? spec
        return Int(name) != nil || (name.hasPrefix("gpiochip") && Int(name.dropFirst(8)) != nil)
    }

    public init(
        gpioChips: [String] = InputProfile.defaultGPIOChips, buttons: [ButtonConfig] = [],
        encoders: [EncoderConfig] = [], chords: [ChordConfig] = [], evdev: [EvdevConfig] = [],
        keyboard: [String: Action] = Keymap.keyboardMap
    ) {
        self.gpioChips = gpioChips
        self.buttons = buttons
        self.encoders = encoders
        self.chords = chords
        self.evdev = evdev
        self.keyboard = keyboard
    }

    /// GPIO lines this profile uses and what for ("button A", "encoder knob A"), in profile order.
    /// The board loader checks them against `reservedLines`.
    public var usedLines: [(line: Int, use: String)] {
        var result: [(line: Int, use: String)] = []
        for button in buttons { result.append((button.line, "button \(button.name)")) }
        for case .rc522(let reader) in cardReaders {
            if let reset = reader.reset { result.append((reset, "rc522 reset")) }
        }
        for encoder in encoders {
            result.append((encoder.a, "encoder \(encoder.name) A"))
            result.append((encoder.b, "encoder \(encoder.name) B"))
        }
        return result
    }

    /// Whether anything needs a GPIO chip.
    public var usesGPIO: Bool { !buttons.isEmpty || !encoders.isEmpty }

    /// The keys of a board profile this parser reads.
    public static let keys = ["gpioChip", "buttons", "encoders", "chords", "evdev", "cardReaders"]

    /// Reads the input sections of a board profile. Reads only `InputProfile.keys`; the board loader
    /// reads the rest and calls `finish()`. Errors name the file and key path: unknown actions,
    /// a line used twice, duplicate names, chords of unknown buttons, values out of range.
    public static func parse(_ board: JSONReader, settings: InputSettings) throws(ConfigError) -> InputProfile {
        var profile = InputProfile()
        if let value = board.raw("gpioChip") {
            let items: [(path: String, value: JSONValue)]
            if value.string != nil || value.int != nil {
                items = [(board.pathOf("gpioChip"), value)]
            } else {
                items = try board.array("gpioChip", maxCount: 16) ?? []
            }
            var chips: [String] = []
            for item in items {
                if let s = item.value.string, !s.isEmpty {
                    chips.append(s)
                } else if let n = item.value.int, n >= 0 {
                    chips.append(String(n))
                } else {
                    throw ConfigError(
                        file: board.file, path: item.path,
                        message: "expected a chip label, path, name or number, got \(JSONReader.show(item.value))")
                }
            }
            if chips.isEmpty { throw board.error("gpioChip", "expected at least one chip") }
            if chips.contains(raspberryPi5Label), let i = chips.firstIndex(where: isChipNumber) {
                throw ConfigError(
                    file: board.file, path: items[i].path,
                    message:
                        "\"\(chips[i])\" is a chip number, and on a Raspberry Pi 5 numbers move with the kernel (up to 6.6.44 gpiochip0 is the SoC's gpio-brcmstb, Wi-Fi and Bluetooth power, and the header is gpiochip4): a profile that names \(raspberryPi5Label) names chips by label only"
                )
            }
            profile.gpioChips = chips
        }

        var lines = LineRegistry()
        var names: [String: String] = [:]  // name → key path where it was defined

        for item in try board.objects("buttons", maxCount: 64) ?? [] {
            guard let name = try item.string("name") else { throw item.error("name", "required") }
            if let other = names[name] {
                throw item.error("name", "duplicate name \"\(name)\" (also \(other))")
            }
            names[name] = item.pathOf("name")
            guard let line = try item.int("line", range: 0...4095) else { throw item.error("line", "required") }
            try lines.use(line, "button \(name)", item, "line")
            var button = ButtonConfig(name: name, line: line, binding: try binding(item))
            if let bias = try item.choice("bias", GPIOBias.self) {
                button.bias = bias
            }
            if let activeLow = try item.bool("activeLow") { button.activeLow = activeLow }
            button.debounceMs = try item.int("debounceMs", range: 0...100)
            try item.finish()
            profile.buttons.append(button)
        }

        for item in try board.objects("encoders", maxCount: 16) ?? [] {
            guard let name = try item.string("name") else { throw item.error("name", "required") }
            if let other = names[name] {
                throw item.error("name", "duplicate name \"\(name)\" (also \(other))")
            }
            names[name] = item.pathOf("name")
            guard let a = try item.int("a", range: 0...4095) else { throw item.error("a", "required") }
            try lines.use(a, "encoder \(name) A", item, "a")
            guard let b = try item.int("b", range: 0...4095) else { throw item.error("b", "required") }
            try lines.use(b, "encoder \(name) B", item, "b")
            guard let clockwise = try Keymap.action(item, "clockwise") else {
                throw item.error("clockwise", "required")
            }
            guard let counterClockwise = try Keymap.action(item, "counterClockwise") else {
                throw item.error("counterClockwise", "required")
            }
            var encoder = EncoderConfig(
                name: name, a: a, b: b, clockwise: clockwise, counterClockwise: counterClockwise)
            if let bias = try item.choice("bias", GPIOBias.self) {
                encoder.bias = bias
            }
            if let steps = item.raw("stepsPerDetent") {
                guard let n = steps.int, [1, 2, 4].contains(n) else {
                    throw item.error("stepsPerDetent", "expected 1, 2 or 4, got \(JSONReader.show(steps))")
                }
                encoder.stepsPerDetent = n
            }
            if let reverse = try item.bool("reverse") { encoder.reverse = reverse }
            if let value = item.raw("acceleration") {
                encoder.acceleration = try EncoderAcceleration.Curve.parse(value, item, "acceleration")
            }
            try item.finish()
            profile.encoders.append(encoder)
        }

        var chordSets: [[String]: String] = [:]
        for item in try board.objects("chords", maxCount: 16) ?? [] {
            guard let members = try item.strings("buttons", maxCount: 4) else {
                throw item.error("buttons", "required")
            }
            if members.count < 2 { throw item.error("buttons", "a chord needs at least two buttons") }
            for (i, member) in members.enumerated() {
                guard profile.buttons.contains(where: { $0.name == member }) else {
                    let known = profile.buttons.map { "\"\($0.name)\"" }.joined(separator: ", ")
                    throw ConfigError(
                        file: item.file, path: "\(item.pathOf("buttons"))[\(i)]",
                        message: "no button named \"\(member)\" (buttons: \(known.isEmpty ? "none" : known))")
                }
                if members[..<i].contains(member) {
                    throw ConfigError(
                        file: item.file, path: "\(item.pathOf("buttons"))[\(i)]",
                        message: "button \"\(member)\" is listed twice")
                }
            }
            let key = members.sorted()
            if let other = chordSets[key] {
                throw item.error("buttons", "the same buttons as \(other)")
            }
            chordSets[key] = item.path
            guard let action = try Keymap.action(item, "action") else { throw item.error("action", "required") }
            let holdMs = try item.int("holdMs", range: 0...10_000) ?? 0
            try item.finish()
            profile.chords.append(ChordConfig(buttons: members, holdMs: holdMs, action: action))
        }

        var devices: [String: String] = [:]
        for item in try board.objects("evdev", maxCount: 16) ?? [] {
            guard let device = try item.string("device") else { throw item.error("device", "required") }
            if let other = devices[device] {
                throw item.error("device", "device \"\(device)\" is already listed at \(other)")
            }
            devices[device] = item.pathOf("device")
            var config = EvdevConfig(device: device)
            if let keys = try item.object("keys") {
                for name in keys.keys {
                    guard let code = Keymap.evdevCode(named: name), code.type == UInt16(EV_KEY) else {
                        throw keys.error(
                            name, "unknown key name (expected a KEY_… or BTN_… name of linux/input-event-codes.h)")
                    }
                    let value = keys.raw(name)
                    let binding: ButtonBinding
                    if value?.string != nil {
                        binding = ButtonBinding(press: try Keymap.action(keys, name))
                    } else if let object = try keys.object(name) {
                        binding = try Self.binding(object)
                        try object.finish()
                    } else {
                        throw keys.error(name, "expected an action name or an object with press/longPress/hold")
                    }
                    config.keys.append(EvdevConfig.Key(name: name, code: code.code, binding: binding))
                }
            }
            if let relative = try item.object("relative") {
                for name in relative.keys {
                    guard let code = Keymap.evdevCode(named: name), code.type == UInt16(EV_REL) else {
                        throw relative.error(name, "unknown relative axis (expected REL_X, REL_DIAL, REL_WHEEL, …)")
                    }
                    guard let axis = try relative.object(name) else {
                        throw relative.error(name, "expected an object with positive/negative")
                    }
                    let positive = try Keymap.action(axis, "positive")
                    let negative = try Keymap.action(axis, "negative")
                    if positive == nil && negative == nil {
                        throw relative.error(name, "needs \"positive\" or \"negative\"")
                    }
                    try axis.finish()
                    config.relative.append(
                        EvdevConfig.Axis(name: name, code: code.code, positive: positive, negative: negative))
                }
            }
            if config.keys.isEmpty && config.relative.isEmpty {
                throw ConfigError(file: item.file, path: item.path, message: "needs \"keys\" or \"relative\"")
            }
            try item.finish()
            profile.evdev.append(config)
        }
        profile.cardReaders = try CardReaderConfig.parseList(board, "cardReaders", lines: &lines) ?? []
        for case .usb(let device) in profile.cardReaders where devices[device] != nil {
            throw board.error(
                "cardReaders",
                "\"\(device)\" is also an evdev input (\(devices[device]!)): a card reader's keys are card numbers only"
            )
        }
        return profile
    }

    /// Changes actions from config.json's `inputs.keymap` (an object): by button name
    /// (`{"A": {"press": "stop", "longPress": null}}`), encoder name (`{"knob": {"clockwise": "down"}}`),
    /// evdev key or axis name (`{"KEY_OK": "select"}`, `{"REL_X": {"positive": "next"}}`, for every
    /// device that maps it) or keyboard key (`{"x": "stop", "q": null}`). `null` removes an action.
    /// A name that is none of these, an unknown action or a button with both hold and longPress is
    /// an error with its key path.
    public mutating func applyKeymap(_ keymap: JSONReader) throws(ConfigError) {
        for name in keymap.keys {
            if let i = buttons.firstIndex(where: { $0.name == name }) {
                guard keymap.raw(name)?.object != nil, let object = try keymap.object(name) else {
                    throw keymap.error(name, "expected an object with press/longPress/hold for button \(name)")
                }
                buttons[i].binding = try Self.override(buttons[i].binding, object)
                try object.finish()
            } else if let i = encoders.firstIndex(where: { $0.name == name }) {
                guard keymap.raw(name)?.object != nil, let object = try keymap.object(name) else {
                    throw keymap.error(name, "expected an object with clockwise/counterClockwise for encoder \(name)")
                }
                for key in ["clockwise", "counterClockwise"] where object.has(key) {
                    guard let action = try Keymap.action(object, key) else {
                        throw object.error(key, "an encoder needs both directions")
                    }
                    if key == "clockwise" {
                        encoders[i].clockwise = action
                    } else {
                        encoders[i].counterClockwise = action
                    }
                }
                try object.finish()
            } else if let code = Keymap.evdevCode(named: name),
                name.hasPrefix("KEY_") || name.hasPrefix("BTN_") || name.hasPrefix("REL_")
            {
                var found = false
                let value = keymap.raw(name)
                for d in evdev.indices {
                    if code.type == UInt16(EV_REL),
                        let a = evdev[d].relative.firstIndex(where: { $0.code == code.code })
                    {
                        guard value?.object != nil, let object = try keymap.object(name) else {
                            throw keymap.error(name, "expected an object with positive/negative")
                        }
                        if object.has("positive") {
                            evdev[d].relative[a].positive = try Keymap.action(object, "positive")
                        }
                        if object.has("negative") {
                            evdev[d].relative[a].negative = try Keymap.action(object, "negative")
                        }
                        try object.finish()
                        found = true
                    } else if let k = evdev[d].keys.firstIndex(where: { $0.code == code.code }),
                        code.type == UInt16(EV_KEY)
                    {
                        if value == nil || value?.string != nil {
                            evdev[d].keys[k].binding = ButtonBinding(press: try Keymap.action(keymap, name))
                        } else if let object = try keymap.object(name) {
                            evdev[d].keys[k].binding = try Self.override(evdev[d].keys[k].binding, object)
                            try object.finish()
                        }
                        found = true
                    }
                }
                if !found { throw keymap.error(name, "no evdev device of the board maps \(name)") }
            } else if Keymap.isKeyboardKeyName(name) {
                keyboard[name] = try Keymap.action(keymap, name)
            } else {
                let known = buttons.map(\.name) + encoders.map(\.name)
                throw keymap.error(
                    name,
                    "no button or encoder named \"\(name)\" (\(known.isEmpty ? "none" : known.joined(separator: ", "))), and not an evdev key or keyboard key"
                )
            }
        }
    }

    private static func override(_ binding: ButtonBinding, _ object: JSONReader) throws(ConfigError) -> ButtonBinding {
        var result = binding
        if object.has("press") { result.press = try Keymap.action(object, "press") }
        if object.has("longPress") { result.longPress = try Keymap.action(object, "longPress") }
        if object.has("hold") { result.hold = try Keymap.action(object, "hold") }
        if object.has("doublePress") { result.doublePress = try Keymap.action(object, "doublePress") }
        if object.has("doubleHold") { result.doubleHold = try Keymap.action(object, "doubleHold") }
        if let conflict = result.conflict {
            throw ConfigError(
                file: object.file, path: object.path, message: "\(conflict) (after this change)")
        }
        return result
    }

    /// press / longPress / hold / doublePress / doubleHold of a button-style object.
    static func binding(_ item: JSONReader) throws(ConfigError) -> ButtonBinding {
        let binding = ButtonBinding(
            press: try Keymap.action(item, "press"), longPress: try Keymap.action(item, "longPress"),
            hold: try Keymap.action(item, "hold"), doublePress: try Keymap.action(item, "doublePress"),
            doubleHold: try Keymap.action(item, "doubleHold"))
        if let conflict = binding.conflict {
            let key =
                binding.doubleHold != nil && binding.doublePress == nil
                ? "doubleHold" : (binding.doublePress != nil ? "doublePress" : "hold")
            throw item.error(key, conflict)
        }
        return binding
    }

    /// One line per input, for `kiosk-player inputs`.
    public func describe(settings: InputSettings) -> [String] {
        var lines: [String] = []
        if usesGPIO { lines.append("GPIO chip: the first of \(gpioChips.joined(separator: ", "))") }
        for b in buttons {
            let debounce = b.debounceMs ?? settings.debounceMs
            lines.append(
                "button \(b.name): line \(b.line), \(b.bias.rawValue)\(b.activeLow ? ", active-low" : ""), debounce \(debounce) ms: \(b.binding.summary)"
            )
        }
        for e in encoders {
            let accel = e.acceleration.map { "acceleration \($0.summary)" } ?? "no acceleration"
            lines.append(
                "encoder \(e.name): lines A \(e.a) B \(e.b), \(e.bias.rawValue), \(e.stepsPerDetent) steps/detent\(e.reverse ? ", reversed" : ""), \(accel): clockwise \(e.clockwise.rawValue), counter-clockwise \(e.counterClockwise.rawValue)"
            )
        }
        for c in chords {
            lines.append("chord \(c.buttons.joined(separator: "+")): held \(c.holdMs) ms: \(c.action.rawValue)")
        }
        for d in evdev {
            var parts = d.keys.map { "\($0.name) \($0.binding.summary)" }
            parts += d.relative.map { axis in
                "\(axis.name) +\(axis.positive?.rawValue ?? "nothing") −\(axis.negative?.rawValue ?? "nothing")"
            }
            lines.append("evdev \"\(d.device)\": \(parts.joined(separator: "; "))")
        }
        for reader in cardReaders { lines.append(reader.summary) }
        let keys = keyboard.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.rawValue)" }
        lines.append("keyboard: \(keys.joined(separator: ", "))")
        return lines
    }
}

/// Which profile entry uses each line, to report a second use with both key paths.
///
/// Thread: a value; one thread at a time.
public struct LineRegistry {
    private var uses: [Int: (use: String, path: String)] = [:]

    public init() {}

    public mutating func use(_ line: Int, _ use: String, _ reader: JSONReader, _ key: String) throws(ConfigError) {
        if let other = uses[line] {
            throw reader.error(key, "line \(line) is already used by \(other.use) (\(other.path))")
        }
        uses[line] = (use, reader.pathOf(key))
    }
}
