// SPDX-License-Identifier: GPL-3.0-or-later
/// The protocol version the greeting announces (`OK MPD 0.23.0`).
public let mpdProtocolVersion = "0.23.0"

/// An error answered with MPD's `ACK [code@index] {command} message` line.
///
/// Codes and wording follow MPD 0.23 (src/protocol/Ack.hxx, src/command/*.cxx). Thread: a value; any.
public struct MPDError: Error, Equatable, Sendable, CustomStringConvertible {
    /// MPD's ACK codes.
    public enum Code: Int, Sendable {
        case notList = 1
        case argument = 2
        case password = 3
        case permission = 4
        case unknown = 5
        case noExist = 50
        case playlistMax = 51
        case system = 52
        case playlistLoad = 53
        case updateAlready = 54
        case playerSync = 55
        case exist = 56
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "[\(code.rawValue)] \(message)" }

    /// The ACK line (with its newline) for the command at `index` of a command list.
    public func ackLine(index: Int, command: String) -> String {
        "ACK [\(code.rawValue)@\(index)] {\(command)} \(message)\n"
    }

    static func argument(_ message: String) -> MPDError { MPDError(.argument, message) }
    static func noExist(_ message: String) -> MPDError { MPDError(.noExist, message) }
}

/// Splits a command line as MPD's tokenizer does (src/util/Tokenizer.cxx): the command name is a
/// word (a letter, then letters, digits and `_`), arguments are unquoted (no control characters,
/// spaces or quotes) or double-quoted with backslash escapes. Thread: any.
package enum MPDTokenizer {
    /// MPD's COMMAND_ARGV_MAX: 63 arguments at most.
    static let maxArguments = 63

    package enum Failure: Error, Equatable {
        /// The command name is malformed: MPD answers and closes the connection.
        case badCommand(String)
        /// An argument is malformed: `ACK [5@i] {} message`.
        case badArgument(String)
        /// `ACK [2@i] {} Too many arguments`.
        case tooManyArguments
    }

    /// The command name and its arguments.
    package static func split(_ line: [UInt8]) throws(Failure) -> (command: String, arguments: [String]) {
        var i = 0
        let n = line.count
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0B || b == 0x0C || b == 0x0D }
        func isAlpha(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        func skipSpaces() { while i < n && isSpace(line[i]) { i += 1 } }

        guard i < n, isAlpha(line[i]) else { throw .badCommand("Letter expected") }
        let nameStart = i
        while i < n && !isSpace(line[i]) {
            guard isAlpha(line[i]) || isDigit(line[i]) || line[i] == UInt8(ascii: "_") else {
                throw .badCommand("Invalid word character")
            }
            i += 1
        }
        let command = String(decoding: line[nameStart..<i], as: UTF8.self)
        skipSpaces()
        var arguments: [String] = []
        while i < n {
            var value: [UInt8] = []
            if line[i] == UInt8(ascii: "\"") {
                i += 1
                while true {
                    guard i < n else { throw .badArgument("Missing closing '\"'") }
                    var b = line[i]
                    if b == UInt8(ascii: "\"") { break }
                    if b == UInt8(ascii: "\\") {
                        i += 1
                        guard i < n else { throw .badArgument("Missing closing '\"'") }
                        b = line[i]
                    }
                    value.append(b)
                    i += 1
                }
                i += 1
                if i < n && !isSpace(line[i]) { throw .badArgument("Space expected after closing '\"'") }
            } else {
                while i < n && !isSpace(line[i]) {
                    let b = line[i]
                    guard b > 0x20, b != UInt8(ascii: "\""), b != UInt8(ascii: "'") else {
                        throw .badArgument("Invalid unquoted character")
                    }
                    value.append(b)
                    i += 1
                }
            }
            skipSpaces()
            if arguments.count == maxArguments { throw .tooManyArguments }
            arguments.append(String(decoding: value, as: UTF8.self))
        }
        return (command, arguments)
    }
}

/// Parsing of numeric arguments with MPD's wording (src/protocol/ArgParser.cxx).
enum MPDArgument {
    static func int(_ s: String) throws(MPDError) -> Int {
        guard let value = parseInt(s) else { throw .argument("Integer expected: \(s)") }
        return value
    }

    static func unsigned(_ s: String) throws(MPDError) -> Int {
        let value = try int(s)
        guard value >= 0 else { throw .argument("Number is negative: \(s)") }
        return value
    }

    /// A number from 0 to `max` (MPD's `ParseCommandArgUnsigned(s, max)`).
    static func unsigned(_ s: String, max: Int) throws(MPDError) -> Int {
        // strtoul: a minus sign makes a huge number ("-1": too large, not malformed).
        if s.hasPrefix("-"), UInt64(s.dropFirst()) != nil { throw .argument("Number too large: \(s)") }
        guard let value = UInt64(s) else { throw .argument("Integer expected: \(s)") }
        guard value <= UInt64(Swift.max(0, max)) else { throw .argument("Number too large: \(s)") }
        return Int(value)
    }

    /// Any floating-point number strtof reads, NaN and infinities too (MPD's `ParseCommandArgFloat`).
    static func anyFloat(_ s: String) throws(MPDError) -> Double {
        guard let value = Double(s) else { throw .argument("Float expected: \(s)") }
        return value
    }

    static func bool(_ s: String) throws(MPDError) -> Bool {
        switch s {
        case "0": return false
        case "1": return true
        default: throw .argument("Boolean (0/1) expected: \(s)")
        }
    }

    /// A floating-point number of seconds (`Float expected: x`).
    static func double(_ s: String) throws(MPDError) -> Double {
        guard let value = Double(s), value.isFinite else { throw .argument("Float expected: \(s)") }
        return value
    }

    /// `N` or `START:END` (END may be empty: to the end). `N` is the range N..<N+1.
    static func range(_ s: String) throws(MPDError) -> (start: Int, end: Int?) {
        if let colon = s.firstIndex(of: ":") {
            guard let start = parseInt(String(s[..<colon])) else { throw .argument("Integer or range expected: \(s)") }
            guard start >= 0 else { throw .argument("Number is negative: \(s)") }
            let rest = String(s[s.index(after: colon)...])
            if rest.isEmpty { return (start, nil) }
            guard let end = parseInt(rest) else { throw .argument("Integer or range expected: \(s)") }
            guard end >= 0 else { throw .argument("Number is negative: \(s)") }
            guard end >= start else { throw .argument("Malformed range: \(s)") }
            return (start, end)
        }
        guard let value = parseInt(s) else { throw .argument("Integer or range expected: \(s)") }
        // MPD: "-1" is the whole list (compatibility with its older versions).
        if value == -1 { return (0, nil) }
        guard value >= 0 else { throw .argument("Number is negative: \(s)") }
        return (value, value + 1)
    }

    /// strtol-like: optional sign, decimal digits only, within 32 bits.
    static func parseInt(_ s: String) -> Int? {
        guard let value = Int(s), value >= Int(Int32.min), value <= Int(Int32.max) else { return nil }
        return value
    }
}
