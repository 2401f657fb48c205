// SPDX-License-Identifier: GPL-3.0-or-later
import KioskInput
import KioskSystem
import Testing

private func parse(_ json: String, settings: InputSettings = InputSettings()) throws(ConfigError) -> InputProfile {
    try InputProfile.parse(try JSONReader.parse(Array(json.utf8), file: "box.json"), settings: settings)
}

private func error(_ json: String) -> String {
    do {
        _ = try parse(json)
        return "no error"
    } catch {
        return error.description
    }
}

let pirateAudio = """
    {
      "name": "pirate-audio",
      "gpioChip": ["pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835"],
      "buttons": [
        { "name": "A", "line": 5, "press": "play-pause", "longPress": "next-category" },
        { "name": "B", "line": 6, "bias": "pull-up", "activeLow": true, "debounceMs": 10, "press": "next" },
        { "name": "X", "line": 16, "press": "volume-up", "hold": "volume-up" },
        { "name": "Y", "line": 24, "press": "volume-down", "hold": "volume-down" }
      ],
      "encoders": [
        { "name": "knob", "a": 17, "b": 27, "stepsPerDetent": 2, "reverse": true,
          "acceleration": [[8, 2], [30, 5]], "clockwise": "down", "counterClockwise": "up" }
      ],
      "chords": [ { "buttons": ["A", "X"], "holdMs": 3000, "action": "shutdown" } ],
      "evdev": [
        { "device": "gpio-keys",
          "keys": { "KEY_PLAYPAUSE": "play-pause", "KEY_VOLUMEUP": { "press": "volume-up", "hold": "volume-up" } },
          "relative": { "REL_X": { "positive": "volume-up", "negative": "volume-down" } } }
      ],
      "screen": { "type": "none" }
    }
    """

@Suite struct InputProfileTests {
    @Test func parsesEveryInputSection() throws {
        let profile = try parse(pirateAudio)
        #expect(profile.gpioChips == ["pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835"])
        #expect(profile.buttons.map(\.name) == ["A", "B", "X", "Y"])
        #expect(profile.buttons[0].binding == ButtonBinding(press: .playPause, longPress: .nextCategory))
        #expect(
            profile.buttons[0].bias == .pullUp && profile.buttons[0].activeLow && profile.buttons[0].debounceMs == nil)
        #expect(profile.buttons[1].debounceMs == 10)
        #expect(profile.buttons[2].binding == ButtonBinding(press: .volumeUp, hold: .volumeUp))
        let knob = profile.encoders[0]
        #expect(knob.a == 17 && knob.b == 27 && knob.stepsPerDetent == 2 && knob.reverse)
        #expect(knob.acceleration == EncoderAcceleration.Curve([.init(8, 2), .init(30, 5)]))
        #expect(knob.clockwise == .down && knob.counterClockwise == .up)
        #expect(profile.chords == [ChordConfig(buttons: ["A", "X"], holdMs: 3000, action: .shutdown)])
        let keys = profile.evdev[0].keys
        #expect(keys.map(\.name) == ["KEY_PLAYPAUSE", "KEY_VOLUMEUP"])
        #expect(keys.map(\.code) == [164, 115])
        #expect(keys[1].binding == ButtonBinding(press: .volumeUp, hold: .volumeUp))
        #expect(profile.evdev[0].relative.map(\.code) == [0])
        #expect(profile.usedLines.map(\.line) == [5, 6, 16, 24, 17, 27])
        #expect(profile.usedLines.map(\.use).last == "encoder knob B")
        #expect(profile.keyboard["space"] == .playPause)
    }

    @Test func defaultsForAnEmptyProfile() throws {
        let profile = try parse("{\"name\": \"none\"}")
        #expect(profile.gpioChips == InputProfile.defaultGPIOChips)
        #expect(profile.buttons.isEmpty && profile.encoders.isEmpty && !profile.usesGPIO)
    }

    @Test func encoderDefaults() throws {
        let profile = try parse(
            #"{"encoders": [{"name": "k", "a": 1, "b": 2, "clockwise": "next", "counterClockwise": "previous"}], "gpioChip": 0}"#
        )
        #expect(profile.encoders[0].stepsPerDetent == 4)
        #expect(profile.encoders[0].acceleration == .standard)
        #expect(profile.gpioChips == ["0"])
    }

    @Test func unknownActionNamesTheKeyPathAndTheActions() {
        let message = error(#"{"buttons": [{"name": "A", "line": 5}, {"name": "B", "line": 6, "press": "paly"}]}"#)
        #expect(
            message.hasPrefix("box.json: buttons[1].press: unknown action \"paly\"; actions are: play-pause, play,"))
    }

    @Test func lineUsedTwiceNamesBothUses() {
        #expect(
            error(
                #"{"buttons": [{"name": "A", "line": 5, "press": "next"}, {"name": "B", "line": 5, "press": "stop"}]}"#)
                == "box.json: buttons[1].line: line 5 is already used by button A (buttons[0].line)")
        #expect(
            error(
                #"{"buttons": [{"name": "A", "line": 17}], "encoders": [{"name": "k", "a": 4, "b": 17, "clockwise": "up", "counterClockwise": "down"}]}"#
            ) == "box.json: encoders[0].b: line 17 is already used by button A (buttons[0].line)")
        #expect(
            error(#"{"encoders": [{"name": "k", "a": 4, "b": 4, "clockwise": "up", "counterClockwise": "down"}]}"#)
                == "box.json: encoders[0].b: line 4 is already used by encoder k A (encoders[0].a)")
    }

    @Test func holdAndLongPressTogetherIsAnError() {
        #expect(
            error(#"{"buttons": [{"name": "A", "line": 5, "longPress": "stop", "hold": "volume-up"}]}"#)
                == "box.json: buttons[0].hold: a button has either \"hold\" or \"longPress\", not both")
    }

    @Test func aDoublePressNeedsAPressAndNoLongPressAndADoubleHoldNeedsADoublePress() {
        #expect(
            error(#"{"buttons": [{"name": "A", "line": 5, "doublePress": "previous"}]}"#)
                == "box.json: buttons[0].doublePress: \"doublePress\" needs a \"press\" action too")
        #expect(
            error(
                #"{"buttons": [{"name": "A", "line": 5, "press": "next", "longPress": "stop", "doublePress": "previous"}]}"#
            ) == "box.json: buttons[0].doublePress: a button has either \"doublePress\" or \"longPress\", not both")
        #expect(
            error(#"{"buttons": [{"name": "A", "line": 5, "press": "next", "doubleHold": "seek-backward"}]}"#)
                == "box.json: buttons[0].doubleHold: \"doubleHold\" needs a \"doublePress\" action too")
    }

    @Test func duplicateNamesAndUnknownKeysAreErrors() {
        #expect(
            error(#"{"buttons": [{"name": "A", "line": 5}, {"name": "A", "line": 6}]}"#)
                == "box.json: buttons[1].name: duplicate name \"A\" (also buttons[0].name)")
        #expect(
            error(#"{"buttons": [{"name": "A", "line": 5, "pres": "next"}]}"#).hasPrefix(
                "box.json: buttons[0].pres: unknown key"))
        #expect(error(#"{"buttons": [{"line": 5}]}"#) == "box.json: buttons[0].name: required")
        #expect(
            error(#"{"buttons": [{"name": "A", "line": 5000}]}"#).hasPrefix(
                "box.json: buttons[0].line: expected an integer 0…4095"))
        #expect(
            error(#"{"buttons": [{"name": "A", "line": 5, "bias": "up"}]}"#).hasPrefix(
                "box.json: buttons[0].bias: expected one of"))
    }

    @Test func chordErrors() {
        let buttons = #""buttons": [{"name": "A", "line": 5}, {"name": "X", "line": 16}]"#
        #expect(
            error("{\(buttons), \"chords\": [{\"buttons\": [\"A\", \"Z\"], \"action\": \"shutdown\"}]}")
                == "box.json: chords[0].buttons[1]: no button named \"Z\" (buttons: \"A\", \"X\")")
        #expect(
            error("{\(buttons), \"chords\": [{\"buttons\": [\"A\"], \"action\": \"shutdown\"}]}")
                == "box.json: chords[0].buttons: a chord needs at least two buttons")
        #expect(
            error("{\(buttons), \"chords\": [{\"buttons\": [\"A\", \"X\"]}]}") == "box.json: chords[0].action: required"
        )
        #expect(
            error(
                "{\(buttons), \"chords\": [{\"buttons\": [\"A\", \"X\"], \"action\": \"menu\"}, {\"buttons\": [\"X\", \"A\"], \"action\": \"help\"}]}"
            ) == "box.json: chords[1].buttons: the same buttons as chords[0]")
    }

    @Test func encoderErrors() {
        #expect(
            error(
                #"{"encoders": [{"name": "k", "a": 1, "b": 2, "stepsPerDetent": 3, "clockwise": "up", "counterClockwise": "down"}]}"#
            )
                == "box.json: encoders[0].stepsPerDetent: expected 1, 2 or 4, got 3")
        #expect(
            error(#"{"encoders": [{"name": "k", "a": 1, "b": 2, "clockwise": "up"}]}"#)
                == "box.json: encoders[0].counterClockwise: required")
        #expect(
            error(
                #"{"encoders": [{"name": "k", "a": 1, "b": 2, "acceleration": [[20, 2], [10, 4]], "clockwise": "up", "counterClockwise": "down"}]}"#
            ) == "box.json: encoders[0].acceleration[1]: speeds must increase (10 after 20)")
    }

    @Test func evdevErrors() {
        #expect(
            error(#"{"evdev": [{"device": "keys", "keys": {"KEY_PLAYPUASE": "play-pause"}}]}"#).hasPrefix(
                "box.json: evdev[0].keys.KEY_PLAYPUASE: unknown key name"))
        #expect(
            error(#"{"evdev": [{"device": "keys", "keys": {"KEY_OK": "ok"}}]}"#).hasPrefix(
                "box.json: evdev[0].keys.KEY_OK: unknown action \"ok\""))
        #expect(
            error(#"{"evdev": [{"device": "keys", "relative": {"REL_X": {}}}]}"#)
                == "box.json: evdev[0].relative.REL_X: needs \"positive\" or \"negative\"")
        #expect(error(#"{"evdev": [{"device": "keys"}]}"#) == "box.json: evdev[0]: needs \"keys\" or \"relative\"")
        #expect(
            error(
                #"{"evdev": [{"device": "k", "keys": {"KEY_OK": "select"}}, {"device": "k", "keys": {"KEY_UP": "up"}}]}"#
            )
                == "box.json: evdev[1].device: device \"k\" is already listed at evdev[0].device")
    }

    private func keymapped(_ keymap: String) throws(ConfigError) -> InputProfile {
        var profile = try parse(pirateAudio)
        let reader = try JSONReader.parse(Array("{\"inputs\": {\"keymap\": \(keymap)}}".utf8), file: "config.json")
        try profile.applyKeymap(try reader.object("inputs")!.object("keymap")!)
        return profile
    }

    @Test func keymapChangesActionsByButtonEncoderEvdevAndKeyboardName() throws {
        let profile = try keymapped(
            #"{"A": {"press": "stop", "longPress": null}, "knob": {"clockwise": "next"}, "KEY_PLAYPAUSE": "menu", "REL_X": {"negative": null}, "x": "help", "q": null}"#
        )
        #expect(profile.buttons[0].binding == ButtonBinding(press: .stop))
        #expect(profile.encoders[0].clockwise == .next && profile.encoders[0].counterClockwise == .up)
        #expect(profile.evdev[0].keys[0].binding == ButtonBinding(press: .menu))
        #expect(profile.evdev[0].relative[0].positive == .volumeUp && profile.evdev[0].relative[0].negative == nil)
        #expect(profile.keyboard["x"] == .help)
        #expect(profile.keyboard["q"] == nil)
        #expect(profile.keyboard["n"] == .next)
    }

    @Test func keymapErrorsNameTheKeyPath() {
        func message(_ keymap: String) -> String {
            do {
                _ = try keymapped(keymap)
                return "no error"
            } catch { return error.description }
        }
        #expect(
            message(#"{"A": {"press": "stpo"}}"#).hasPrefix(
                "config.json: inputs.keymap.A.press: unknown action \"stpo\""))
        #expect(
            message(#"{"A": {"hold": "volume-up"}}"#).hasPrefix("config.json: inputs.keymap.A: a button has either"))
        #expect(
            message(#"{"knob": {"clockwise": null}}"#)
                == "config.json: inputs.keymap.knob.clockwise: an encoder needs both directions")
        #expect(
            message(#"{"KEY_OK": "select"}"#)
                == "config.json: inputs.keymap.KEY_OK: no evdev device of the board maps KEY_OK")
        #expect(
            message(#"{"Z1": "stop"}"#).hasPrefix(
                "config.json: inputs.keymap.Z1: no button or encoder named \"Z1\" (A, B, X, Y, knob)"))
        #expect(
            message(#"{"B": "stop"}"#).hasPrefix(
                "config.json: inputs.keymap.B: expected an object with press/longPress/hold"))
        #expect(message(#"{"x": "stpo"}"#).hasPrefix("config.json: inputs.keymap.x: unknown action \"stpo\""))
    }

    @Test func describeListsEveryInput() throws {
        let lines = try parse(pirateAudio).describe(settings: InputSettings())
        #expect(
            lines.contains(
                "button A: line 5, pull-up, active-low, debounce 5 ms: press play-pause, long press next-category"))
        #expect(lines.contains("button B: line 6, pull-up, active-low, debounce 10 ms: press next"))
        #expect(lines.contains { $0.hasPrefix("encoder knob: lines A 17 B 27, pull-up, 2 steps/detent, reversed") })
        #expect(lines.contains("chord A+X: held 3000 ms: shutdown"))
        #expect(lines.contains { $0.hasPrefix("evdev \"gpio-keys\": KEY_PLAYPAUSE press play-pause") })
    }
}

@Suite struct InputSettingsTests {
    private func settings(_ json: String) throws(ConfigError) -> InputSettings {
        let reader = try JSONReader.parse(Array(json.utf8), file: "config.json")
        let inputs = try reader.object("inputs")!
        let result = try InputSettings.parse(inputs)
        try inputs.finish(known: InputSettings.keys)
        return result
    }

    @Test func readsTiming() throws {
        let s = try settings(
            #"{"inputs": {"longPressMs": 800, "repeatDelayMs": 300, "repeatMs": 100, "debounceMs": 0, "chordMs": 150}}"#
        )
        #expect(s == InputSettings(debounceMs: 0, longPressMs: 800, repeatDelayMs: 300, repeatMs: 100, chordMs: 150))
    }

    @Test func errorsNameTheKey() {
        #expect(
            throws: ConfigError(
                file: "config.json", path: "inputs.chordMs",
                message: "500 ms must be shorter than longPressMs (600) and repeatDelayMs (400)")
        ) {
            try settings(#"{"inputs": {"chordMs": 500}}"#)
        }
        #expect(throws: (any Error).self) { try settings(#"{"inputs": {"longPressMs": 5}}"#) }
        #expect(throws: (any Error).self) { try settings(#"{"inputs": {"keymap": {}}}"#) }
    }
}
