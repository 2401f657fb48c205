// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskCommandLine
import KioskSystem

/// Where a process's resident memory is, read once from /proc/PID/smaps: each mapped file's
/// resident KiB (its code and data, with the pages its relocations copied), and the anonymous
/// memory (malloc's arenas, thread stacks, the audio ring) as one figure, so a benchmark can say
/// what its RSS is made of.
///
/// Thread: any; a value.
struct ResidentMemory {
    /// Resident KiB by mapped file (full path), and "anonymous" for everything without one.
    private(set) var kibByMapping: [String: Int] = [:]

    static let anonymous = "anonymous"

    init(pid: pid_t) {
        guard let bytes = try? Syscalls.readFile("/proc/\(pid)/smaps", limit: 16 << 20) else { return }
        var current = Self.anonymous
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = words.first else { continue }
            if first.contains("-"), words.count >= 5 {
                // "start-end perms offset dev inode [path]": a path that starts with "/" is a file.
                current = words.count >= 6 && words[5].hasPrefix("/") ? String(words[5]) : Self.anonymous
            } else if first == "Rss:", words.count >= 2 {
                kibByMapping[current, default: 0] += Int(words[1]) ?? 0
            }
        }
    }

    var totalKiB: Int { kibByMapping.values.reduce(0, +) }
    var fileKiB: Int { totalKiB - anonymousKiB }
    var anonymousKiB: Int { kibByMapping[Self.anonymous] ?? 0 }

    /// A few lines: the totals, then the `top` largest mapped files by name, then the rest.
    func report(top: Int) -> [String] {
        guard totalKiB > 0 else { return ["(no /proc smaps to read)"] }
        var lines = ["resident \(totalKiB) KiB: anonymous \(anonymousKiB) KiB, mapped files \(fileKiB) KiB"]
        let files = kibByMapping.filter { $0.key != Self.anonymous }.sorted { $0.value > $1.value }
        for (path, kib) in files.prefix(top) {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            lines.append("  \(kib) KiB \(name)")
        }
        let rest = files.dropFirst(top)
        if !rest.isEmpty {
            lines.append("  \(rest.reduce(0) { $0 + $1.value }) KiB in \(rest.count) other files")
        }
        return lines
    }
}
