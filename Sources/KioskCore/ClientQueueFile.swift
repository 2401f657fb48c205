// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// The queue a remote client built, saved beside the resume state: such a queue has no collection
/// to be made again from after a restart, and MPD clients expect their queue (and its song ids)
/// back, as MPD restores it from its state file. `client-queue.json` in the state directory holds
/// the entries as "volume␟relative path" with the queue version it was written at; the resume
/// state names that version, so a file from another moment (a power cut between the two writes)
/// is not used. Written atomically, only when the queue changed (not at each position save), and
/// at most every few seconds (`ResumeRecorder`). Bounded both ways: a queue longer than
/// `maxEntries` or whose file would pass `maxBytes` is not saved, and no larger file is read at
/// start (issue 44: loading one took 250 MB).
///
/// Thread: the loop thread (the `ResumeRecorder`'s); `load` any.
package struct ClientQueueFile {
    static let fileName = "client-queue.json"
    static let format = "kiosk-player-client-queue"
    /// Queues longer than this are not saved (a restart then resumes the current track's folder):
    /// MPD's queue limit (`MPDSettings.maxQueueLength`).
    static let maxEntries = 16_384
    /// A file larger than this is neither written nor read: 16 384 entries of 256 bytes.
    package static let maxBytes = 4 << 20
    private static let separator: Character = "\u{1F}"

    /// One saved entry: the track's volume and its path there.
    struct Entry: Equatable, Sendable {
        var volume: String
        var relativePath: String
    }

    let directory: String
    var path: String { "\(directory)/\(Self.fileName)" }

    /// Saves `tracks` as the queue of version `version`; false (nothing written) when too long.
    func save(_ tracks: [Track], version: UInt32) throws -> Bool {
        guard tracks.count <= Self.maxEntries else { return false }
        let entries = tracks.map { JSONValue.string("\($0.volume.rawValue)\(Self.separator)\($0.relativePath)") }
        let json = JSONValue.object([
            ("format", .string(Self.format)), ("queueVersion", .number(Double(version))), ("entries", .array(entries)),
        ])
        let text = json.serialized()
        guard text.utf8.count <= Self.maxBytes else { return false }
        try Syscalls.mkdirs(directory)
        try AtomicFile.replace(path, with: text)
        return true
    }

    /// The saved entries when the file holds the queue of version `version`; nil (with a warning
    /// for a damaged file) otherwise.
    func load(version: UInt32) -> [Entry]? {
        guard Syscalls.exists(path) else { return nil }
        do {
            let bytes = try Syscalls.readFile(path, limit: Self.maxBytes)
            let r = try JSONReader.parse(bytes, file: path)
            guard try r.string("format") == Self.format else {
                throw ConfigError(file: path, path: "format", message: "not a kiosk-player client queue")
            }
            guard try r.int("queueVersion", range: 0...Int(UInt32.max)) == Int(version) else { return nil }
            let entries = try r.strings("entries", maxCount: Self.maxEntries) ?? []
            try r.finish()
            return entries.map { entry in
                let parts = entry.split(separator: Self.separator, maxSplits: 1, omittingEmptySubsequences: false)
                return Entry(volume: String(parts[0]), relativePath: parts.count > 1 ? String(parts[1]) : "")
            }
        } catch {
            Log.warning("ignoring the saved client queue: \(error)")
            return nil
        }
    }

    func remove() { try? Syscalls.unlink(path) }
}
