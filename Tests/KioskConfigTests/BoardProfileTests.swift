// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskConfig
import KioskInput
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@Suite struct BoardProfileTests {
    func parse(_ text: String, file: String = "boards/test.json") throws(ConfigError) -> BoardProfile {
        try BoardProfile.parse(Array(text.utf8), file: file)
    }

    /// Each kind of board error, with its exact message.
    @Test(arguments: [
        (
            #"{"name": "test", "buttons": [{"name": "A", "line": 5, "press": "paly"}]}"#,
            "boards/test.json: buttons[0].press: unknown action \"paly\"; actions are: " + Action.names
        ),
        (
            #"{"name": "test", "reservedLines": [{"line": 18, "use": "I2S BCLK"}], "buttons": [{"name": "A", "line": 18, "press": "stop"}]}"#,
            "boards/test.json: GPIO line 18 is used twice: by I2S BCLK and by button A"
        ),
        (
            #"{"name": "test", "buttons": [{"name": "A", "line": 5, "press": "stop"}, {"name": "B", "line": 5, "press": "next"}]}"#,
            "boards/test.json: buttons[1].line: line 5 is already used by button A (buttons[0].line)"
        ),
        (
            #"{"name": "test", "buttons": [{"name": "A", "line": 5, "press": "stop"}], "encoders": [{"name": "knob", "a": 17, "b": 5, "clockwise": "volume-up", "counterClockwise": "volume-down"}]}"#,
            "boards/test.json: encoders[0].b: line 5 is already used by button A (buttons[0].line)"
        ),
        (
            #"{"name": "test", "buttons": [{"name": "A", "line": 9, "press": "stop"}], "screen": {"type": "spi", "panel": {"controller": "st7789", "width": 240, "height": 240, "dc": 9}}}"#,
            "boards/test.json: GPIO line 9 is used twice: by button A and by screen panel dc"
        ),
        (#"{"name": "other"}"#, #"boards/test.json: name: "other" does not match the file name "test.json""#),
        (#"{"description": "no name"}"#, "boards/test.json: name: required"),
        (
            #"{"name": "test", "reservedLines": [{"line": 2000}]}"#,
            "boards/test.json: reservedLines[0].line: expected an integer 0…1023, got 2000"
        ),
        (
            #"{"name": "test", "audio": {"devise": "hw:0"}}"#,
            "boards/test.json: audio.devise: unknown key (known keys: device, fallbackDevices, keepOpen, mixer)"
        ),
        (
            #"{"name": "test", "gpioChip": ["pinctrl-rp1", "gpiochip0", "gpiochip4"]}"#,
            "boards/test.json: gpioChip[1]: \"gpiochip0\" is a chip number, and on a Raspberry Pi 5 numbers move with the kernel (up to 6.6.44 gpiochip0 is the SoC's gpio-brcmstb, Wi-Fi and Bluetooth power, and the header is gpiochip4): a profile that names pinctrl-rp1 names chips by label only"
        ),
        (
            #"{"name": "test", "colour": "red"}"#,
            "boards/test.json: colour: unknown key (known keys: audio, buttons, cardReaders, chords, configTxt, description, encoders, evdev, gpioChip, hat, name, outputs, reservedLines, screen, test)"
        ),
    ])
    func errorsSayWhereAndWhat(text: String, message: String) {
        expectError(describedAs: message) { try parse(text) }
    }

    @Test func everyShippedProfileIsValid() throws {
        let dir = TestPaths.repository + "/boards"
        let files = listDirectory(dir).filter { $0.hasSuffix(".json") }
        #expect(files.count >= 5)
        for file in files {
            let profile = try BoardProfile.load(file: "\(dir)/\(file)")
            #expect(profile.name + ".json" == file)
        }
    }

    /// Every board a box is built on reaches the jukebox's actions with a gesture of its own
    /// (press, long press, hold, a key or a chord): the help pages list them from the same profile.
    @Test func everyShippedBoardReachesShuffleSleepAndPlayFromStart() throws {
        let dir = TestPaths.repository + "/boards"
        for file in listDirectory(dir).filter({ $0.hasSuffix(".json") }) {
            let profile = try BoardProfile.load(file: "\(dir)/\(file)")
            if profile.isTest { continue }
            let input = profile.input
            var bound = Set(input.chords.map(\.action))
            let bindings = input.buttons.map(\.binding) + input.evdev.flatMap { $0.keys.map(\.binding) }
            for binding in bindings {
                bound.formUnion([binding.press, binding.longPress, binding.hold].compactMap { $0 })
            }
            for action in [Action.shuffle, .sleep] {
                #expect(bound.contains(action), "\(file) has no gesture for \(action.rawValue)")
            }
            if bound.contains(.select) {
                #expect(bound.contains(.playFromStart), "\(file) selects but has no gesture for play-from-start")
            }
        }
    }

    /// Every shipped board locks its buttons with two of them held 3 s (a chord of its own: the
    /// loader refuses two chords of the same buttons), a keypad with a held key.
    @Test func everyShippedBoardHasALockGesture() throws {
        let dir = TestPaths.repository + "/boards"
        for file in listDirectory(dir).filter({ $0.hasSuffix(".json") }) {
            let input = try BoardProfile.load(file: "\(dir)/\(file)").input
            if input.buttons.isEmpty {
                let keys = input.evdev.flatMap(\.keys)
                #expect(keys.contains { $0.binding.longPress == .lock }, "\(file) has no key held to lock")
                continue
            }
            let locks = input.chords.filter { $0.action == .lock }
            #expect(locks.count == 1, "\(file) has \(locks.count) lock chords")
            for chord in locks {
                #expect(chord.buttons.count == 2 && chord.holdMs == 3000, "\(file): \(chord)")
            }
        }
    }

    /// Every shipped board seeks: where next and previous are buttons (or keys) of their own,
    /// holding them seeks and a press still skips; where one button is both (a double press is
    /// previous), holding it seeks forward and holding its second press seeks back.
    @Test func everyShippedBoardSeeksByHoldingNextOrPrevious() throws {
        let dir = TestPaths.repository + "/boards"
        for file in listDirectory(dir).filter({ $0.hasSuffix(".json") }) {
            let input = try BoardProfile.load(file: "\(dir)/\(file)").input
            let bindings = input.buttons.map(\.binding) + input.evdev.flatMap { $0.keys.map(\.binding) }
            for binding in bindings where binding.press == .next || binding.press == .previous {
                #expect(binding.longPress != .previous, "\(file): previous on a long press leaves no seek")
                if binding.doublePress == .previous {
                    #expect(binding.hold == .seekForward && binding.doubleHold == .seekBackward, "\(file): \(binding)")
                    continue
                }
                let seek: Action = binding.press == .next ? .seekForward : .seekBackward
                #expect(binding.hold == seek, "\(file): \(binding)")
            }
        }
    }

    /// The Pi 400 has no headphone jack (bcm2711-rpi-400.dts empties audio_pins): HDMI comes first.
    @Test func aPi400GetsHDMIFirst() throws {
        let profile = try BoardProfile.load(file: TestPaths.repository + "/boards/rpi400.json")
        #expect(profile.audio.device == AudioDevice(name: "hdmi:CARD=vc4hdmi0,DEV=0"))
        #expect(profile.audio.fallbackDevices == [AudioDevice(name: "hdmi:CARD=vc4hdmi1,DEV=0")])
        #expect(profile.audio.mixer == nil)
    }

    /// Stock profiles name their cards: "default" is whichever card probed first on Pi OS Lite and
    /// the user's PipeWire on Pi OS Desktop. (The player still tries "default" after the list.)
    @Test func everyShippedBoardNamesItsSoundCards() throws {
        let dir = TestPaths.repository + "/boards"
        for file in listDirectory(dir).filter({ $0.hasSuffix(".json") }) {
            let profile = try BoardProfile.load(file: "\(dir)/\(file)")
            let devices = [profile.audio.device].compactMap { $0 } + profile.audio.fallbackDevices
            #expect(!devices.isEmpty, "\(file) names no sound card")
            for device in devices {
                #expect(device.name.contains("CARD=") || profile.isTest, "\(file): \(device.name) names no card")
            }
        }
    }

    /// A stock profile drives no line its user did not wire: no card reader (its reset line would
    /// be pulsed on a pin that may hold something else), and chips by label only, so a Pi 5 kernel's
    /// renumbering cannot point a profile at the SoC's Wi-Fi and Bluetooth power lines.
    @Test func shippedBoardsNameNoCardReaderAndNoChipNumber() throws {
        let dir = TestPaths.repository + "/boards"
        for file in listDirectory(dir).filter({ $0.hasSuffix(".json") }) {
            let profile = try BoardProfile.load(file: "\(dir)/\(file)")
            #expect(profile.input.cardReaders.isEmpty, "\(file) names a card reader nobody configured")
            for chip in profile.gpioChips {
                let name = chip.split(separator: "/").last.map(String.init) ?? chip
                #expect(
                    Int(name) == nil && !(name.hasPrefix("gpiochip") && Int(name.dropFirst(8)) != nil),
                    "\(file) names chip \(chip) by number")
            }
        }
    }

    /// docs/buttons-and-cards.md's way to add an RC522 to a stock profile: config.json's cards.readers.
    @Test func aConfiguredReaderIsAddedToAStockBoard() throws {
        let board = try BoardProfile.load(file: TestPaths.repository + "/boards/rpi4.json")
        let text = #"{"cards": {"readers": [{"type": "rc522", "spiBus": 0, "spiCS": 0, "reset": 25}]}}"#
        let resolved = ResolvedConfig(config: try Config.parse(Array(text.utf8), file: "c.json"), board: board)
        try resolved.validate()
        var expected = RC522Config()
        expected.spiCS = 0
        expected.reset = 25
        #expect(try resolved.inputProfile().cardReaders == [.rc522(expected)])
    }

    @Test func anUnknownBoardNameListsTheKnownOnes() {
        do {
            _ = try BoardProfile.load(name: "no-such-board", extraDirectory: nil)
            Issue.record("found a board that does not exist")
        } catch {
            #expect(error.path == "board")
            #expect(error.message.hasPrefix("no board profile \"no-such-board\" (known: "))
            #expect(error.message.contains("pirate-audio"))
        }
        #expect(throws: ConfigError(file: "", path: "board", message: "invalid board name \"../etc/passwd\"")) {
            try BoardProfile.load(name: "../etc/passwd", extraDirectory: nil)
        }
    }

    @Test func autoDetectionFollowsTheDeviceTreeModel() {
        #expect(BoardProfile.autoDetectName(model: "Raspberry Pi 5 Model B Rev 1.0") == "rpi5")
        #expect(BoardProfile.autoDetectName(model: "Raspberry Pi 4 Model B Rev 1.4") == "rpi4")
        #expect(BoardProfile.autoDetectName(model: "Raspberry Pi 400 Rev 1.0") == "rpi400")
        #expect(BoardProfile.autoDetectName(model: "Raspberry Pi Zero 2 W Rev 1.0") == "rpi-zero2w")
        #expect(BoardProfile.autoDetectName(model: "Raspberry Pi 3 Model B Plus Rev 1.3") == "rpi3")
        #expect(BoardProfile.autoDetectName(model: "QEMU Virtual Machine") == "usb-keypad-hdmi")
    }

    @Test func theConfigKeymapIsCheckedAgainstTheBoard() throws {
        let board = try parse(#"{"name": "test", "buttons": [{"name": "A", "line": 5, "press": "stop"}]}"#)
        let good = try Config.parse(Array(#"{"inputs": {"keymap": {"A": {"press": "next"}}}}"#.utf8), file: "c.json")
        let resolved = ResolvedConfig(config: good, board: board)
        try resolved.validate()
        #expect(try resolved.inputProfile().buttons[0].binding.press == .next)
        let bad = try Config.parse(Array(#"{"inputs": {"keymap": {"A": {"press": "nxt"}}}}"#.utf8), file: "c.json")
        #expect(
            throws: ConfigError(
                file: "c.json", path: "inputs.keymap.A.press",
                message: "unknown action \"nxt\"; actions are: \(Action.names)")
        ) {
            try ResolvedConfig(config: bad, board: board).validate()
        }
    }

    @Test func aConfigCardReadersResetLineTakenByTheBoardIsAnErrorNamingBoth() throws {
        let board = try parse(
            #"""
            {"name": "test", "buttons": [{"name": "A", "line": 5, "press": "stop"}],
             "reservedLines": [{"line": 18, "use": "I2S clock"}],
             "cardReaders": [{"type": "rc522", "reset": 25}]}
            """#)
        func config(reset: Int, chip: String = "") throws -> ResolvedConfig {
            let text = #"{"cards": {"readers": [{"type": "rc522", "reset": \#(reset)\#(chip)}]}}"#
            return ResolvedConfig(config: try Config.parse(Array(text.utf8), file: "c.json"), board: board)
        }
        #expect(
            throws: ConfigError(
                file: "c.json", path: "cards.readers[0].reset",
                message: "GPIO line 5 is already used by button A on board test")
        ) { try config(reset: 5).validate() }
        #expect(
            throws: ConfigError(
                file: "c.json", path: "cards.readers[0].reset",
                message: "GPIO line 18 is already used by I2S clock on board test")
        ) { try config(reset: 18).validate() }
        // the board's own reader is replaced, so its line is free; another chip's line 5 is another line
        try config(reset: 25).validate()
        try config(reset: 5, chip: #", "gpioChip": ["gpiochip9"]"#).validate()
    }

    @Test func resolvedAudioDevicesPutTheConfiguredOneFirstAndDefaultLast() throws {
        let board = try parse(
            #"{"name": "test", "audio": {"device": "hw:CARD=DAC", "fallbackDevices": ["hw:CARD=HAT"], "mixer": "Digital"}}"#
        )
        let plain = ResolvedConfig(config: Config(), board: board)
        #expect(plain.audioDevices.map(\.name) == ["hw:CARD=DAC", "hw:CARD=HAT", "default"])
        #expect(plain.mixer == "Digital")
        var config = Config()
        config.audio.device = .alsa(pcm: "hw:CARD=USB")
        config.audio.fallbackDevices = [.alsa(pcm: "default"), .silent]
        let overridden = ResolvedConfig(config: config, board: board)
        #expect(overridden.audioDevices == [.alsa(pcm: "hw:CARD=USB"), .alsa(pcm: "default"), .silent])
    }

    @Test func theResolvedScreenIsTheBoardsUnlessTheConfigSaysOtherwise() throws {
        let board = try parse(
            #"{"name": "test", "screen": {"type": "framebuffer", "fbName": "vc4drmfb", "rotation": 180}}"#)
        let plain = ResolvedConfig(config: Config(), board: board).json()
        #expect(plain["screen"]?["type"]?.string == "framebuffer")
        #expect(plain["screen"]?["fbName"]?.string == "vc4drmfb")
        #expect(plain["screen"]?["rotation"]?.int == 180)
        var config = Config()
        config.screen.type = .png
        config.screen.rotation = 90
        let overridden = ResolvedConfig(config: config, board: board).json()
        #expect(overridden["screen"]?["type"]?.string == "png")
        #expect(overridden["screen"]?["rotation"]?.int == 90)
    }
}
