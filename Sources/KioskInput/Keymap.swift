// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import KioskModel
import KioskSystem

/// Names of inputs and the default keyboard map; the helpers board-profile parsing uses to turn
/// names into actions and event codes.
///
/// Thread: stateless; any thread.
public enum Keymap {
    /// The keyboard map of the demo and of development (terminal keys → actions), in listing order.
    /// `inputs.keymap` in config.json changes single keys (`InputProfile.applyKeymap`).
    public static let defaultKeyboard: [(key: String, action: Action)] = [
        ("space", .playPause), ("s", .stop), ("n", .next), ("p", .previous),
        ("+", .volumeUp), ("=", .volumeUp), ("-", .volumeDown),
        ("up", .up), ("down", .down), ("enter", .select), ("right", .select),
        ("left", .back), ("backspace", .back), ("escape", .back),
        ("tab", .nextCategory), ("backtab", .previousCategory),
        ("]", .nextCollection), ("[", .previousCollection),
        ("m", .menu), ("h", .help), ("?", .help), ("q", .shutdown), ("r", .shuffle), ("z", .sleep),
        ("home", .playFromStart), ("l", .lock), (",", .seekBackward), (".", .seekForward),
    ]

    /// Keys that are not a single character, as `KeyboardDecoder` names them (plus `ctrl-a` … `ctrl-z`).
    public static let namedKeyList = [
        "space", "enter", "tab", "backtab", "backspace", "escape", "up", "down", "left", "right",
        "home", "end", "page-up", "page-down", "insert", "delete",
        "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12",
    ]

    static var namedKeys: String { namedKeyList.joined(separator: ", ") + ", ctrl-a … ctrl-z" }

    /// Whether `name` is a key `KeyboardDecoder` can produce: one printable character, a named key,
    /// or `ctrl-` and a letter.
    public static func isKeyboardKeyName(_ name: String) -> Bool {
        if namedKeyList.contains(name) { return true }
        let scalars = Array(name.unicodeScalars)
        if scalars.count == 1 { return scalars[0].value > 0x20 && scalars[0].value != 0x7f }
        if name.hasPrefix("ctrl-"), scalars.count == 6, ("a"..."z").contains(scalars[5]) { return true }
        return false
    }

    /// The default keyboard map as a dictionary.
    public static var keyboardMap: [String: Action] {
        var map: [String: Action] = [:]
        for entry in defaultKeyboard { map[entry.key] = entry.action }
        return map
    }

    /// The action named by the string at `key` (nil when absent or null).
    public static func action(_ reader: JSONReader, _ key: String) throws(ConfigError) -> Action? {
        guard let value = reader.raw(key) else { return nil }
        guard let name = value.string else {
            throw reader.error(key, "expected an action name, got \(JSONReader.show(value))")
        }
        guard let action = Action(rawValue: name) else {
            throw reader.error(key, "unknown action \"\(name)\"; actions are: \(Action.names)")
        }
        return action
    }

    /// Event type and code of an evdev name (`KEY_PLAYPAUSE`, `BTN_0`, `REL_X`), or of a plain
    /// decimal key code (`"164"`).
    public static func evdevCode(named name: String) -> (type: UInt16, code: UInt16)? {
        var type: UInt32 = 0
        var code: UInt32 = 0
        if kiosk_evdev_code_from_name(name, &type, &code) == 0 { return (UInt16(type), UInt16(code)) }
        if let number = UInt16(name), number <= UInt16(KEY_MAX) { return (UInt16(EV_KEY), number) }
        return nil
    }

    /// The name of an evdev key or axis code ("KEY_PLAYPAUSE"), or its number ("250").
    public static func evdevName(type: UInt16, code: UInt16) -> String {
        if let name = kiosk_evdev_code_name(UInt32(type), UInt32(code)) { return String(cString: name) }
        return type == UInt16(EV_REL) ? "REL_\(code)" : "\(code)"
    }
}
