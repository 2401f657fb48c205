// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// Where each collection was left (config `bookmarks`): for every album, playlist or folder played,
/// the track and position, keyed by the volume (filesystem UUID) and the collection, so choosing it
/// again continues there — after a restart and after the stick was pulled and plugged in again.
/// Kept in `bookmarks.json` in the state directory, never on the stick, written atomically when a
/// bookmark changes (at a pause, a stop, a track change, at most every 30 s of playing). At most
/// `capacity` bookmarks: the oldest go first. A bad file is set aside as `bookmarks.json.bad` with a
/// warning (nothing else is lost).
///
/// Thread: the loop thread (the player's).
package final class BookmarkStore {
    package static let fileName = "bookmarks.json"
    static let format = "kiosk-player-bookmarks"
    static let version = 1
    static let capacity = 500

    /// One collection's place.
    struct Bookmark: Equatable, Sendable {
        var volumeID: String
        var category: String
        var key: String
        var relativePath: String
        var positionFrames: Int64
        var sampleRate: Int
        /// The collection was played to its end: it starts over next time.
        var finished: Bool
        /// Order of the last change (larger: more recent), for dropping the oldest.
        var stamp: Int
    }

    private let directory: String
    private var entries: [String: Bookmark] = [:]
    private var nextStamp = 0
    /// Saves made by this process, numbered in the debug log so that the power-cut test can tell
    /// which one a file on the disk is.
    private var saves = 0
    /// Where the file's text goes to be written (the player's `StateWriter`, off the loop); nil:
    /// written here, at once.
    var writeFile: ((_ path: String, _ text: String) -> Void)?

    package init(directory: String) {
        self.directory = directory
        load()
    }

    private static func id(_ volumeID: String, _ category: String, _ key: String) -> String {
        "\(volumeID)\u{1F}\(category)\u{1F}\(key)"
    }

    /// The bookmark of a collection on a volume, nil when there is none.
    func bookmark(volumeID: String, category: String, key: String) -> Bookmark? {
        entries[Self.id(volumeID, category, key)]
    }

    /// Stores `bookmark` (replacing the collection's earlier one) and saves when it changed.
    func record(_ bookmark: Bookmark) {
        let id = Self.id(bookmark.volumeID, bookmark.category, bookmark.key)
        var stamped = bookmark
        if let old = entries[id] {
            stamped.stamp = old.stamp
            if old == stamped { return }
        }
        nextStamp += 1
        stamped.stamp = nextStamp
        entries[id] = stamped
        if entries.count > Self.capacity, let oldest = entries.min(by: { $0.value.stamp < $1.value.stamp }) {
            entries[oldest.key] = nil
        }
        save()
    }

    var count: Int { entries.count }

    private var path: String { "\(directory)/\(Self.fileName)" }

    /// The bookmarks, oldest change first.
    var all: [Bookmark] { entries.values.sorted { $0.stamp < $1.stamp } }

    /// Replaces every bookmark with `list` (oldest first: an import from a stick, or its undo) and
    /// saves.
    func replaceAll(_ list: [Bookmark]) {
        entries = [:]
        nextStamp = 0
        for bookmark in list.suffix(Self.capacity) {
            nextStamp += 1
            var stamped = bookmark
            stamped.stamp = nextStamp
            entries[Self.id(bookmark.volumeID, bookmark.category, bookmark.key)] = stamped
        }
        save()
    }

    /// The bookmarks as the file's list (and a stick's set's, `StickSet`).
    static func list(_ bookmarks: [Bookmark]) -> JSONValue {
        .array(
            bookmarks.map { b -> JSONValue in
                .object([
                    ("volumeID", .string(b.volumeID)), ("category", .string(b.category)), ("key", .string(b.key)),
                    ("relativePath", .string(b.relativePath)), ("positionFrames", .number(Double(b.positionFrames))),
                    ("sampleRate", .number(Double(b.sampleRate))), ("finished", .bool(b.finished)),
                ])
            })
    }

    /// The file's text for `bookmarks` (oldest first).
    static func text(_ bookmarks: [Bookmark]) -> String {
        let document = JSONValue.object([
            ("format", .string(format)), ("version", .number(Double(version))), ("bookmarks", list(bookmarks)),
        ])
        return document.serialized(pretty: true) + "\n"
    }

    /// Parses the `bookmarks` list of the file (or of a stick's set, `StickSet`), oldest first.
    /// `strict`: an entry without a field, or whose path could leave its stick, is an error (a
    /// set from a stick) rather than skipped (the box's own file).
    static func parseList(_ r: JSONReader, strict: Bool) throws(ConfigError) -> [Bookmark] {
        var list: [Bookmark] = []
        for (index, item) in (try r.objects("bookmarks", maxCount: capacity) ?? []).enumerated() {
            guard let volumeID = try item.string("volumeID"), let category = try item.string("category"),
                let key = try item.string("key", nonEmpty: false),
                let relativePath = try item.string("relativePath")
            else {
                if strict {
                    throw r.error("bookmarks[\(index)]", "volumeID, category, key and relativePath are required")
                }
                continue
            }
            if strict, let problem = StickSet.pathProblem(relativePath) {
                throw item.error("relativePath", "'\(relativePath)': \(problem)")
            }
            list.append(
                Bookmark(
                    volumeID: volumeID, category: category, key: key, relativePath: relativePath,
                    positionFrames: Int64(try item.int("positionFrames", range: 0...Int(Int32.max) * 1024) ?? 0),
                    sampleRate: try item.int("sampleRate", range: 0...1_000_000) ?? 0,
                    finished: try item.bool("finished") ?? false, stamp: list.count + 1))
            if strict {
                try item.finish(known: [
                    "volumeID", "category", "key", "relativePath", "positionFrames", "sampleRate", "finished",
                ])
            }
        }
        return list
    }

    private func save() {
        let ordered = all
        saves += 1
        if let newest = ordered.last {
            Log.debug(
                "bookmarks: writing save \(saves): newest \(newest.relativePath) at frame \(newest.positionFrames)"
                    + (newest.finished ? " finished" : ""))
        }
        let text = Self.text(ordered)
        if let writeFile {
            writeFile(path, text)
            return
        }
        do {
            try Syscalls.mkdirs(directory)
            try AtomicFile.replace(path, with: text)
            Log.debug("bookmarks: save \(saves) written")
        } catch {
            Log.error("cannot save the bookmarks in \(directory): \(error)")
        }
    }

    private func load() {
        guard Syscalls.exists(path) else { return }
        do {
            let r = try JSONReader.parse(try ConfigError.contents(of: path), file: path)
            guard try r.string("format") == Self.format, try r.int("version", range: 0...1000) == Self.version else {
                throw ConfigError(
                    file: path, path: "format", message: "not a kiosk-player bookmarks file of version \(Self.version)")
            }
            for bookmark in try Self.parseList(r, strict: false) {
                nextStamp += 1
                var stamped = bookmark
                stamped.stamp = nextStamp
                entries[Self.id(bookmark.volumeID, bookmark.category, bookmark.key)] = stamped
            }
            try r.finish()
        } catch {
            Log.warning("ignoring the bookmarks (kept as \(Self.fileName).bad): \(error)")
            entries = [:]
            try? Syscalls.rename(path, path + ".bad")
        }
    }
}
