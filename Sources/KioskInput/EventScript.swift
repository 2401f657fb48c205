// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import KioskModel
import KioskSystem

/// A recorded or written sequence of input events, replayed on the event loop's timers: for tests,
/// demos and trying a keymap without hardware. One JSON object per line (blank lines and lines
/// starting with `#` are skipped); `t` is milliseconds from the start (fractions allowed, never
/// decreasing):
///
/// ```
/// {"t": 0, "line": "A", "value": 1}        a GPIO line by button name, "knob.a"/"knob.b", or offset
/// {"t": 0.4, "line": "A", "value": 0}       (value: the logical level, 1 = active/pressed)
/// {"t": 120, "key": "n"}                    a keyboard key of the keyboard map, or an action name
/// {"t": 300, "evdev": "KEY_PLAYPAUSE", "value": 1}   a key (1 down, 0 up) or axis (REL_X, ±n) of the
/// {"t": 310, "evdev": "REL_X", "value": -1}          first evdev device that maps it ("device": "…" to pick;
///                                                    a USB card reader's name sends the key to that reader)
/// {"t": 400, "card": "04A2B3C4D5"}          a card presented to a reader, as a reader reports it
/// {"t": 900, "cardRemoved": "04A2B3C4D5"}   a card taken off ("cardRemoved": true: the last one presented)
/// ```
///
/// Thread: a value; any thread.
public struct EventScript: Sendable {
    /// One event and its time from the start.
    public struct Event: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case line(offset: Int, active: Bool)
            case key(String)
            case action(Action)
            case evdev(device: Int, type: UInt16, code: UInt16, value: Int32)
            /// A key of the USB card reader `reader` (its index in the profile's `cardReaders`).
            case cardReaderKey(reader: Int, code: UInt16, value: Int32)
            case card(CardUID)
            /// nil: the card presented last.
            case cardRemoved(CardUID?)
        }
        public let offsetNs: UInt64
        public let kind: Kind
    }

    public let events: [Event]

    /// Most events a script may hold, and its largest size.
    public static let maxEvents = 100_000
    public static let maxBytes = 8 << 20

    /// Parses a script against the inputs of `profile`. Errors name the file and line.
    public static func parse(_ text: [UInt8], file: String, profile: InputProfile) throws(ConfigError) -> EventScript {
        if text.count > maxBytes { throw ConfigError(file: file, path: "", message: "larger than \(maxBytes) bytes") }
        var events: [Event] = []
        var lastT = 0.0
        var lineNumber = 0
        for rawLine in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = Array(rawLine)
            let trimmed = line.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0d }
            if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { continue }
            let where_ = "\(file):\(lineNumber)"
            let reader = try JSONReader.parse(line, file: where_)
            guard let t = try reader.double("t", range: 0...86_400_000) else { throw reader.error("t", "required") }
            if t < lastT {
                throw reader.error(
                    "t",
                    "\(JSONValue.number(t).serialized()) is before the previous event's \(JSONValue.number(lastT).serialized())"
                )
            }
            lastT = t
            let kind = try parseKind(reader, profile: profile)
            try reader.finish(known: ["t", "line", "key", "evdev", "value", "device", "card", "cardRemoved"])
            events.append(Event(offsetNs: UInt64((t * 1_000_000).rounded()), kind: kind))
            if events.count > maxEvents {
                throw ConfigError(file: file, path: "", message: "more than \(maxEvents) events")
            }
        }
        return EventScript(events: events)
    }

    /// Reads and parses `path` (at most `maxBytes`).
    public static func load(_ path: String, profile: InputProfile) throws(ConfigError) -> EventScript {
        let bytes: [UInt8]
        do {
            bytes = try Syscalls.readFile(path, limit: maxBytes)
        } catch {
            throw ConfigError(file: path, path: "", message: "cannot read: \(error.message)")
        }
        return try parse(bytes, file: path, profile: profile)
    }

    private static func parseKind(_ r: JSONReader, profile: InputProfile) throws(ConfigError) -> Event.Kind {
        let present = ["line", "key", "evdev", "card", "cardRemoved"].filter { r.has($0) }
        guard present.count == 1 else {
            throw ConfigError(
                file: r.file, path: "",
                message: present.isEmpty
                    ? "needs one of \"line\", \"key\", \"evdev\", \"card\" or \"cardRemoved\""
                    : "has both \"\(present[0])\" and \"\(present[1])\""
            )
        }
        switch present[0] {
        case "card":
            guard let text = try r.string("card"), let uid = CardUID(text) else {
                throw r.error("card", "expected a card number: 1…\(CardUID.maxLength) letters and digits")
            }
            return .card(uid)
        case "cardRemoved":
            if r.raw("cardRemoved")?.bool == true { return .cardRemoved(nil) }
            guard let text = r.raw("cardRemoved")?.string, let uid = CardUID(text) else {
                throw r.error("cardRemoved", "expected a card number, or true for the last card presented")
            }
            return .cardRemoved(uid)
        case "line":
            let offset = try lineOffset(r, profile: profile)
            guard let value = try r.int("value", range: 0...1) else { throw r.error("value", "required (0 or 1)") }
            return .line(offset: offset, active: value == 1)
        case "key":
            guard let key = try r.string("key") else { throw r.error("key", "expected a key name") }
            if profile.keyboard[key] != nil || profile.keyboard[key.lowercased()] != nil {
                return .key(key)
            }
            if let action = Action(rawValue: key) { return .action(action) }
            throw r.error(
                "key",
                "\"\(key)\" is neither a key of the keyboard map (\(profile.keyboard.keys.sorted().joined(separator: " "))) nor an action (\(Action.names))"
            )
        default:
            guard let name = try r.string("evdev") else { throw r.error("evdev", "expected a key or axis name") }
            guard let code = Keymap.evdevCode(named: name) else {
                throw r.error("evdev", "unknown key or axis name \"\(name)\"")
            }
            let isKey = code.type == UInt16(EV_KEY)
            guard let value = try r.int("value", range: isKey ? 0...2 : -1000...1000) else {
                throw r.error("value", isKey ? "required (1 down, 0 up)" : "required (the axis movement)")
            }
            let wanted = try r.string("device")
            if let wanted, isKey,
                let reader = profile.cardReaders.firstIndex(where: { $0 == .usb(device: wanted) })
            {
                return .cardReaderKey(reader: reader, code: code.code, value: Int32(value))
            }
            let device = profile.evdev.firstIndex { config in
                if let wanted, config.device != wanted { return false }
                return isKey
                    ? config.keys.contains { $0.code == code.code } : config.relative.contains { $0.code == code.code }
            }
            guard let device else {
                throw r.error(
                    "evdev", "no evdev device of the profile maps \(name)\(wanted.map { " (device \"\($0)\")" } ?? "")")
            }
            return .evdev(device: device, type: code.type, code: code.code, value: Int32(value))
        }
    }

    private static func lineOffset(_ r: JSONReader, profile: InputProfile) throws(ConfigError) -> Int {
        guard let value = r.raw("line") else { throw r.error("line", "required") }
        if let n = value.int {
            guard profile.usedLines.contains(where: { $0.line == n }) else {
                throw r.error("line", "line \(n) is not used by the profile")
            }
            return n
        }
        guard let name = value.string else { throw r.error("line", "expected a button name or a line number") }
        if let button = profile.buttons.first(where: { $0.name == name }) { return button.line }
        for encoder in profile.encoders {
            if name == "\(encoder.name).a" { return encoder.a }
            if name == "\(encoder.name).b" { return encoder.b }
        }
        let known = profile.buttons.map(\.name) + profile.encoders.flatMap { ["\($0.name).a", "\($0.name).b"] }
        throw r.error(
            "line",
            "no button or encoder line \"\(name)\" (known: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
    }
}
