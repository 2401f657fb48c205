// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// How often each clip played, per local day, for the curator: kept in the state directory
/// (`exhibit-counts.json`, the last 400 days), exported as CSV to a staff stick.
///
/// Thread: the loop thread (the player's).
final class PlayCounts {
    static let fileName = "exhibit-counts.json"
    static let keptDays = 400
    private let file: String
    /// Day ("YYYY-MM-DD") → clip → plays.
    private(set) var days: [String: [String: Int]] = [:]

    init(directory: String) {
        file = directory + "/" + Self.fileName
        guard let bytes = try? Syscalls.readFile(file, limit: 4 << 20) else { return }
        guard let value = try? JSONValue.parse(bytes), let object = value.object else {
            Log.warning("exhibit: \(file) is not valid JSON: play counts start again")
            return
        }
        for (day, clips) in object {
            var counts: [String: Int] = [:]
            for (clip, count) in clips.object ?? [] { counts[clip] = count.int ?? 0 }
            days[day] = counts
        }
    }

    /// `clip` played once on `day`; saved at once (a count is worth a small write).
    func played(_ clip: String, day: String) {
        days[day, default: [:]][clip, default: 0] += 1
        if days.count > Self.keptDays {
            for old in days.keys.sorted().prefix(days.count - Self.keptDays) { days[old] = nil }
        }
        save()
    }

    /// "date,clip,plays" lines, oldest day first, clips by name.
    var csv: String {
        var lines = ["date,clip,plays"]
        for day in days.keys.sorted() {
            for (clip, count) in days[day]!.sorted(by: { $0.key < $1.key }) {
                let quoted = clip.contains(",") || clip.contains("\"") ? "\"\(clip.replacingQuotes())\"" : clip
                lines.append("\(day),\(quoted),\(count)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func save() {
        let value = JSONValue.object(
            days.keys.sorted().map { day in
                (
                    day,
                    JSONValue.object(
                        days[day]!.sorted(by: { $0.key < $1.key }).map { ($0.key, .number(Double($0.value))) })
                )
            })
        do {
            try AtomicFile.replace(file, with: value.serialized())
        } catch {
            Log.warning("exhibit: cannot save play counts to \(file): \(error)")
        }
    }
}

extension String {
    fileprivate func replacingQuotes() -> String {
        var out = ""
        for c in self { out += c == "\"" ? "\"\"" : String(c) }
        return out
    }
}
