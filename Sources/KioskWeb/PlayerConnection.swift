// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// One connection to the player's MPD socket: the page's only channel to the player. Commands go
/// in the MPD protocol (quoted arguments), answers come back as `name: value` pairs; an `ACK` is a
/// `PlayerConnection.Refused` carrying the player's message. Reads and writes are bounded in time, so
/// a player that hangs never holds a page's request longer than `timeoutMilliseconds`.
///
/// Thread: one thread at a time (a request's thread, or the watcher's).
public final class PlayerConnection {
    public struct Refused: Error, CustomStringConvertible {
        public let description: String
    }

    /// The longest answer taken (the page's longest is `kioskcollections`: 2000 collections).
    public static let maxAnswerBytes = 1 << 20

    private let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0

    /// Connects to `socketPath`, reads the greeting and sends `password` when there is one.
    public init(socketPath: String, password: String?, timeoutMilliseconds: Int = 3000) throws {
        fd = try Syscalls.connectUnix(path: socketPath)
        do {
            try Syscalls.setTimeouts(fd, milliseconds: timeoutMilliseconds)
            let greeting = try line()
            guard greeting.hasPrefix("OK MPD ") else { throw Refused(description: "not an MPD server: \(greeting)") }
            if let password { _ = try command("password", [password]) }
        } catch {
            Syscalls.closeIgnoringErrors(fd)
            throw error
        }
    }

    deinit { Syscalls.closeIgnoringErrors(fd) }

    /// Sends a command and returns its answer's pairs, in order.
    public func command(_ name: String, _ arguments: [String] = []) throws -> [(name: String, value: String)] {
        var text = name
        for argument in arguments { text += " " + Self.quoted(argument) }
        try Syscalls.sendAll(fd, Array((text + "\n").utf8))
        var pairs: [(name: String, value: String)] = []
        var total = 0
        while true {
            let reply = try line()
            total += reply.utf8.count + 1
            if reply == "OK" { return pairs }
            if reply.hasPrefix("ACK ") {
                // "ACK [50@0] {cmd} message"
                let message = reply.split(separator: "}", maxSplits: 1).last.map { $0.trimmingWhitespace() }
                throw Refused(description: message ?? reply)
            }
            guard total <= Self.maxAnswerBytes else { throw Refused(description: "answer too long") }
            guard let colon = reply.firstIndex(of: ":") else { continue }
            let value = reply[reply.index(after: colon)...].drop { $0 == " " }
            pairs.append((String(reply[..<colon]), String(value)))
        }
    }

    /// MPD's quoting: in double quotes, with `"` and `\` escaped.
    static func quoted(_ argument: String) -> String {
        var out = "\""
        for ch in argument.unicodeScalars {
            // A line break would end the command: never sent (arguments come from the page).
            if ch == "\n" || ch == "\r" { continue }
            if ch == "\"" || ch == "\\" { out.unicodeScalars.append("\\") }
            out.unicodeScalars.append(ch)
        }
        return out + "\""
    }

    private func line() throws -> String {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                let text = String(decoding: buffer[start..<newline], as: UTF8.self)
                start = newline + 1
                if start > 4096 {
                    buffer.removeFirst(start)
                    start = 0
                }
                return text
            }
            guard buffer.count - start < 64 << 10 else { throw Refused(description: "line too long") }
            var chunk = [UInt8](repeating: 0, count: 8192)
            let n = try chunk.withUnsafeMutableBytes { raw in try Syscalls.read(fd, raw) }
            guard n > 0 else { throw Refused(description: "the player closed the connection") }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }
}

extension Array where Element == (name: String, value: String) {
    /// The first value of `name`.
    public func value(_ name: String) -> String? { first { $0.name == name }?.value }

    /// Splits a list answer into records, each beginning at a `name` line.
    public func records(startingAt name: String) -> [[(name: String, value: String)]] {
        var out: [[(name: String, value: String)]] = []
        for pair in self {
            if pair.name == name { out.append([]) }
            if !out.isEmpty { out[out.count - 1].append(pair) }
        }
        return out
    }
}
