// SPDX-License-Identifier: GPL-3.0-or-later
/// The mounts of /proc/self/mountinfo: where, what file system, with which options. Used by the USB
/// and state-directory checks.
///
/// Thread: a value; any thread.
public struct MountTable: Sendable {
    public struct Mount: Sendable, Equatable {
        public var mountPoint: String
        public var fileSystem: String
        public var source: String
        /// Per-mount options and the file system's own, e.g. ["ro", "nosuid", "nodev", "noexec", …].
        public var options: [String]
        public var isReadOnly: Bool { options.first == "ro" }
    }

    public var mounts: [Mount]

    public init(_ root: SystemRoot) {
        self.init(text: root.text("/proc/self/mountinfo") ?? "")
    }

    /// Parses mountinfo: `36 35 98:0 / /mnt rw,noatime master:1 - ext3 /dev/root rw,errors=continue`.
    public init(text: String) {
        mounts = text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count >= 10, let dash = fields.firstIndex(of: "-"), dash + 2 < fields.count, dash >= 6 else {
                return nil
            }
            let options = fields[5].split(separator: ",").map(String.init)
            let superOptions = dash + 3 < fields.count ? fields[dash + 3].split(separator: ",").map(String.init) : []
            return Mount(
                mountPoint: Self.unescape(fields[4]), fileSystem: fields[dash + 1],
                source: Self.unescape(fields[dash + 2]),
                options: options + superOptions.filter { !options.contains($0) && $0 != "rw" && $0 != "ro" })
        }
    }

    /// The mount a path is on: the longest mount point that is a prefix of it (the last one wins).
    public func mount(containing path: String) -> Mount? {
        mounts.enumerated().filter {
            path == $0.element.mountPoint || path.hasPrefix(Self.slashed($0.element.mountPoint))
        }
        .max { a, b in
            a.element.mountPoint.count < b.element.mountPoint.count
                || (a.element.mountPoint.count == b.element.mountPoint.count && a.offset < b.offset)
        }?.element
    }

    static func slashed(_ path: String) -> String { path.hasSuffix("/") ? path : path + "/" }

    /// mountinfo writes space, tab, newline and backslash as octal escapes (`\040`).
    static func unescape(_ field: String) -> String {
        guard field.contains("\\") else { return field }
        var bytes: [UInt8] = []
        let raw = Array(field.utf8)
        var i = 0
        while i < raw.count {
            if raw[i] == UInt8(ascii: "\\"), i + 3 < raw.count,
                let value = UInt8(String(decoding: raw[(i + 1)...(i + 3)], as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                i += 4
            } else {
                bytes.append(raw[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
