// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// Where the doctor reads the system: "/" on the box, a temporary tree in tests. Every path a check
/// reads (/proc, /sys, /boot, /dev, /etc, the state and media directories) goes through `path(_:)`,
/// so a test builds the tree and breaks exactly the thing one check checks.
///
/// Thread: a value; any thread.
public struct SystemRoot: Sendable {
    /// Prepended to every absolute path; "" for the real system.
    public var prefix: String

    public init(prefix: String = "") {
        self.prefix = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
    }

    public static let live = SystemRoot()

    /// `absolute` under the root.
    public func path(_ absolute: String) -> String { prefix + absolute }

    public func exists(_ absolute: String) -> Bool { Syscalls.exists(path(absolute)) }

    /// The file's text (NULs dropped, as device-tree strings end in one), or nil when it cannot be read.
    public func text(_ absolute: String, limit: Int = 1 << 20) -> String? {
        guard let bytes = try? Syscalls.readFile(path(absolute), limit: limit) else { return nil }
        return String(decoding: bytes.filter { $0 != 0 }, as: UTF8.self)
    }

    /// The file's first line, trimmed, or nil.
    public func value(_ absolute: String) -> String? {
        text(absolute, limit: 4096).map { $0.split(separator: "\n").first.map(String.init) ?? "" }
            .map { $0.trimmingWhitespace() }
    }

    /// Names in a directory, sorted (empty when it cannot be read).
    public func entries(_ absolute: String) -> [String] {
        guard let listing = try? Syscalls.readDirectory(path(absolute)) else { return [] }
        return listing.entries.map(\.name).filter { $0 != "." && $0 != ".." }.sorted { $0.numericLess($1) }
    }
}

extension String {
    /// "fb2" before "fb10": the trailing number compared as a number.
    func numericLess(_ other: String) -> Bool {
        let a = split(whereSeparator: \.isNumber).first.map(String.init) ?? ""
        let b = other.split(whereSeparator: \.isNumber).first.map(String.init) ?? ""
        let na = Int(String(reversed().prefix { $0.isNumber }.reversed()))
        let nb = Int(String(other.reversed().prefix { $0.isNumber }.reversed()))
        if a == b, let na, let nb { return na < nb }
        return self < other
    }
}
