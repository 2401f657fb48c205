// SPDX-License-Identifier: GPL-3.0-or-later
/// A configuration error: which file, which key path, what was expected.
///
/// `description` reads e.g. `config.json: audio.bufferMs: expected an integer 10…500, got "fast"`.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file (as given by the user), or "" for built-in data.
    public let file: String
    /// Dotted key path, `buttons[2].line`; "" for the whole document.
    public let path: String
    public let message: String

    public init(file: String, path: String, message: String) {
        self.file = file
        self.path = path
        self.message = message
    }

    public var description: String {
        var text = file.isEmpty ? "" : "\(file): "
        if !path.isEmpty { text += "\(path): " }
        return text + message
    }

    /// The bytes of a config file (at most 1 MiB), or the error that names it.
    public static func contents(of file: String) throws(ConfigError) -> [UInt8] {
        do {
            return try Syscalls.readFile(file, limit: 1 << 20)
        } catch {
            throw ConfigError(file: file, path: "", message: "cannot read: \(error.message)")
        }
    }
}

/// Reads one JSON object of a config file with exact errors: each accessor names the key path and
/// the expected value, and `finish()` reports keys nobody asked for (unknown keys are errors, so a
/// typo never silently falls back to a default).
///
/// Use: `let r = try JSONReader(document, file: path)`, then `try r.int("bufferMs", range: 10...500)`,
/// `try r.object("audio")` for nested objects, and `try r.finish()` when every key was read.
public final class JSONReader {
    public let file: String
    public let path: String
    public let value: JSONValue
    private let members: [(key: String, value: JSONValue)]
    private var consumed: Set<String> = []

    /// Wraps `value`, which must be an object.
    public init(_ value: JSONValue, file: String, path: String = "") throws(ConfigError) {
        guard let members = value.object else {
            throw ConfigError(file: file, path: path, message: "expected an object, got \(value.kindDescription)")
        }
        var seen: Set<String> = []
        for member in members where !seen.insert(member.key).inserted {
            throw ConfigError(file: file, path: Self.join(path, member.key), message: "duplicate key")
        }
        self.value = value
        self.file = file
        self.path = path
        self.members = members
    }

    /// Parses `text` and wraps the top-level object; syntax errors name the line and column.
    public static func parse(_ text: [UInt8], file: String) throws(ConfigError) -> JSONReader {
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw ConfigError(file: file, path: "", message: "not valid JSON: \(error)")
        }
        return try JSONReader(value, file: file)
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The key path of `key` in this object, for messages.
    public func pathOf(_ key: String) -> String { Self.join(path, key) }

    /// An error at `key` of this object.
    public func error(_ key: String, _ message: String) -> ConfigError {
        ConfigError(file: file, path: pathOf(key), message: message)
    }

    /// Every key present, in file order.
    public var keys: [String] { members.map(\.key) }

    /// The raw value of `key` (marks it read); nil when absent. `null` counts as absent.
    public func raw(_ key: String) -> JSONValue? {
        consumed.insert(key)
        guard let v = members.first(where: { $0.key == key })?.value, !v.isNull else { return nil }
        return v
    }

    public func has(_ key: String) -> Bool { members.contains { $0.key == key } }

    public func string(_ key: String, nonEmpty: Bool = true) throws(ConfigError) -> String? {
        guard let v = raw(key) else { return nil }
        guard let s = v.string else { throw error(key, "expected a string, got \(Self.show(v))") }
        if nonEmpty && s.isEmpty { throw error(key, "expected a non-empty string") }
        return s
    }

    public func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let v = raw(key) else { return nil }
        guard let b = v.bool else { throw error(key, "expected true or false, got \(Self.show(v))") }
        return b
    }

    public func int(_ key: String, range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        guard let v = raw(key) else { return nil }
        guard let i = v.int, range.contains(i) else {
            throw error(key, "expected an integer \(range.lowerBound)…\(range.upperBound), got \(Self.show(v))")
        }
        return i
    }

    public func double(_ key: String, range: ClosedRange<Double>) throws(ConfigError) -> Double? {
        guard let v = raw(key) else { return nil }
        guard let d = v.double, range.contains(d) else {
            throw error(
                key,
                "expected a number \(JSONValue.format(range.lowerBound))…\(JSONValue.format(range.upperBound)), got \(Self.show(v))"
            )
        }
        return d
    }

    /// A string that must be one of `choices` (listed in the error).
    public func choice(_ key: String, _ choices: [String]) throws(ConfigError) -> String? {
        guard let v = raw(key) else { return nil }
        guard let s = v.string, choices.contains(s) else {
            throw error(
                key, "expected one of \(choices.map { "\"\($0)\"" }.joined(separator: ", ")), got \(Self.show(v))")
        }
        return s
    }

    /// A string that must be the raw value of one of `type`'s cases (listed in the error, in
    /// declaration order): an enum parsed once, where the value is read.
    public func choice<Choice: RawRepresentable & CaseIterable>(
        _ key: String, _ type: Choice.Type
    ) throws(ConfigError) -> Choice? where Choice.RawValue == String {
        guard let name = try choice(key, type.allCases.map(\.rawValue)) else { return nil }
        return Choice(rawValue: name)
    }

    public func object(_ key: String) throws(ConfigError) -> JSONReader? {
        guard let v = raw(key) else { return nil }
        return try JSONReader(v, file: file, path: pathOf(key))
    }

    /// An array whose elements are returned with their paths (`key[3]`).
    public func array(_ key: String, maxCount: Int = 1000) throws(ConfigError) -> [(path: String, value: JSONValue)]? {
        guard let v = raw(key) else { return nil }
        guard let items = v.array else { throw error(key, "expected an array, got \(Self.show(v))") }
        if items.count > maxCount { throw error(key, "at most \(maxCount) entries, got \(items.count)") }
        return items.enumerated().map { ("\(pathOf(key))[\($0.offset)]", $0.element) }
    }

    /// An array of objects.
    public func objects(_ key: String, maxCount: Int = 1000) throws(ConfigError) -> [JSONReader]? {
        guard let items = try array(key, maxCount: maxCount) else { return nil }
        var result: [JSONReader] = []
        for item in items { result.append(try JSONReader(item.value, file: file, path: item.path)) }
        return result
    }

    /// An array of strings.
    public func strings(_ key: String, maxCount: Int = 1000) throws(ConfigError) -> [String]? {
        guard let items = try array(key, maxCount: maxCount) else { return nil }
        var result: [String] = []
        for item in items {
            guard let s = item.value.string else {
                throw ConfigError(
                    file: file, path: item.path, message: "expected a string, got \(Self.show(item.value))")
            }
            result.append(s)
        }
        return result
    }

    /// An array of integers within `range`.
    public func ints(_ key: String, range: ClosedRange<Int>, maxCount: Int = 1000) throws(ConfigError) -> [Int]? {
        guard let items = try array(key, maxCount: maxCount) else { return nil }
        var result: [Int] = []
        for item in items {
            guard let i = item.value.int, range.contains(i) else {
                throw ConfigError(
                    file: file, path: item.path,
                    message: "expected an integer \(range.lowerBound)…\(range.upperBound), got \(Self.show(item.value))"
                )
            }
            result.append(i)
        }
        return result
    }

    /// Fails on the first key that no accessor read, listing the known ones.
    public func finish(known: [String]? = nil) throws(ConfigError) {
        for member in members where !consumed.contains(member.key) {
            let list = (known ?? Array(consumed)).sorted().joined(separator: ", ")
            throw error(member.key, "unknown key (known keys: \(list))")
        }
    }

    /// A short rendering of a value for error messages.
    public static func show(_ v: JSONValue) -> String {
        switch v {
        case .string(let s): return "\"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
        case .number, .bool, .null: return v.serialized()
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
