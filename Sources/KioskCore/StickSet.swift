// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskConfig
import KioskModel
import KioskSystem

/// A box's set-up on a stick, `kiosk-set.json` (docs/updates.md, "Cards and bookmarks on a
/// stick"): the card links and their rounds (`cards.json`'s `cards`), the bookmarks
/// (`bookmarks.json`'s list) and the box's settings (its config file, less what belongs to its
/// hardware and paths), one JSON file a person can read. A box exports it to a stick carrying a
/// file `kiosk-export` (mounted read-write for the player, as a staff stick is); a box shown a
/// stick with the file offers to import it ("hold Select"), after checking all of it.
///
/// Untrusted when read: opened through `StickFile` (no link followed, regular files only, at most
/// `sizeLimit` bytes), parsed by the same code as the state files, every path a card or bookmark
/// keeps checked (`pathProblem`), unknown keys and a wrong format or version refused; every error
/// names the file and the problem.
///
/// Thread: a value; `read` and `export` touch the stick (see their notes).
public struct StickSet: Equatable, Sendable {
    /// The file on the stick.
    static let fileName = "kiosk-set.json"
    /// The marker that makes a stick the one a set is exported to.
    static let exportMarker = "kiosk-export"
    static let format = "kiosk-player-set"
    static let version = 1
    /// The largest set read: a thousand cards and five hundred bookmarks take about 500 KB.
    static let sizeLimit = 1 << 20
    /// A marker is a small regular file; anything bigger is not one.
    static let markerLimit = 4096
    /// The config keys that describe this box's hardware or its paths: not carried to another box.
    static let boxOnlySettings = ImportedSettings.boxOnlyKeys

    var links: [CardUID: CardLink] = [:]
    var played: [CardUID: [String]] = [:]
    /// Oldest change first.
    var bookmarks: [BookmarkStore.Bookmark] = []
    /// The settings of the box that wrote it (an object of config keys); nil: none. Checked by the
    /// player's own config parser; an import keeps them for the next start (`ImportedSettings`).
    var settings: JSONValue?

    public static func == (a: StickSet, b: StickSet) -> Bool {
        a.links == b.links && a.played == b.played && a.bookmarks.map(\.comparable) == b.bookmarks.map(\.comparable)
            && a.settings == b.settings
    }

    /// "12 cards, 30 bookmarks", for the offer.
    public var summary: String {
        let cards = links.count == 1 ? "1 card" : "\(links.count) cards"
        let marks = bookmarks.count == 1 ? "1 bookmark" : "\(bookmarks.count) bookmarks"
        return "\(cards), \(marks)"
    }

    // MARK: - the file

    /// The set as its file's JSON document.
    var document: JSONValue {
        let cards = CardStore.document(links, played: played).object?.first { $0.key == "cards" }?.value
        var members: [(String, JSONValue)] = [
            ("format", .string(Self.format)), ("version", .number(Double(Self.version))),
            ("cards", cards ?? .object([])), ("bookmarks", BookmarkStore.list(bookmarks)),
        ]
        if let settings { members.append(("settings", settings)) }
        return .object(members)
    }

    var text: String { document.serialized(pretty: true) + "\n" }

    /// The settings worth carrying from the config file's `bytes`: its object less
    /// `boxOnlySettings`; nil when it does not parse (the box then exports no settings).
    static func settings(fromConfig bytes: [UInt8]) -> JSONValue? {
        guard let members = (try? JSONValue.parse(bytes))?.object else { return nil }
        return .object(members.filter { !boxOnlySettings.contains($0.key) })
    }

    /// Parses and checks a set; `file` names it in errors.
    static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> StickSet {
        let r = try JSONReader.parse(bytes, file: file)
        guard try r.string("format") == format else {
            throw r.error("format", "not a kiosk-player set (expected \"\(format)\")")
        }
        let found = try r.int("version", range: 0...1_000_000)
        guard found == version else {
            throw r.error(
                "version", "version \(found.map(String.init) ?? "missing"); this box reads version \(version)")
        }
        var set = StickSet()
        if let cards = try r.object("cards") { (set.links, set.played) = try CardStore.parseCards(cards) }
        set.bookmarks = try BookmarkStore.parseList(r, strict: true)
        if let settings = try r.object("settings") {
            if let key = settings.keys.first(where: boxOnlySettings.contains) {
                throw settings.error(key, "belongs to the box that wrote it, not carried in a set")
            }
            // The player's own parser: a set whose settings this version cannot take is refused whole.
            let value = r.raw("settings") ?? .object([])
            _ = try Config.parse(Array(value.serialized().utf8), file: file + " (settings)")
            set.settings = value
        }
        try r.finish(known: ["format", "version", "cards", "bookmarks", "settings"])
        return set
    }

    /// Why `path` (a track's path inside its stick, as a card's round or a bookmark keeps it)
    /// could lead out of its stick or is no path, nil when it is fine.
    static func pathProblem(_ path: String) -> String? {
        if path.isEmpty || path.utf8.count > 4096 || path.utf8.contains(0) { return "not a path inside a stick" }
        if path.hasPrefix("/") { return "an absolute path, not one inside a stick" }
        if path.split(separator: "/").contains("..") { return "a path with '..', which could lead out of its stick" }
        return nil
    }

    // MARK: - on the stick

    /// What a stick that came is, for the box's set: one to export to (`kiosk-export`), or what
    /// looking for a set on it found.
    public enum Arrival: Equatable, Sendable {
        case exportStick
        case found(Found)
    }

    /// Looks at the stick at `mountPoint` (`isExportStick`, then `look`). Thread: any; the
    /// appliance runs it on its stick worker.
    public static func arrival(at mountPoint: String) -> Arrival {
        isExportStick(mountPoint) ? .exportStick : .found(look(at: mountPoint))
    }

    /// What looking at a stick found.
    public enum Found: Equatable, Sendable {
        /// No set on it.
        case none
        /// A valid set.
        case set(StickSet, file: String)
        /// A file that is not a usable set: `problem` says why (it names the file).
        case refused(file: String, problem: String)
    }

    /// The set at the top of the stick at `mountPoint`. Reads at most `sizeLimit` bytes of a regular
    /// file through `StickFile` (a FIFO, a link or a huge file is refused without waiting or reading
    /// it).
    static func look(at mountPoint: String) -> Found {
        let file = mountPoint + "/" + fileName
        let bytes: [UInt8]
        do {
            bytes = try StickFile.read(fileName, beneath: mountPoint, limit: sizeLimit)
        } catch {
            if error.rawValue == ENOENT { return .none }
            return .refused(file: file, problem: "\(error)")
        }
        do {
            return .set(try parse(bytes, file: file), file: file)
        } catch {
            return .refused(file: file, problem: "\(error)")
        }
    }

    /// Whether the stick at `mountPoint` carries the export marker (a small regular file; a link,
    /// a FIFO or a folder of that name does not count).
    static func isExportStick(_ mountPoint: String) -> Bool {
        (try? StickFile.open(exportMarker, beneath: mountPoint, limit: markerLimit)) != nil
    }

    /// What an export did.
    public enum ExportOutcome: Sendable, Equatable {
        case written(file: String)
        /// The write failed (EROFS: the stick is mounted read-only, see `kiosk-automount`).
        case failed(file: String, Errno)
    }

    /// Writes `text` as the set file at the top of the stick at `mountPoint`, the one way a stick
    /// is written (`StickFile.replace`). Thread: any but the loop's where a worker is at hand (it
    /// waits for the stick); tests call it in place.
    public static func export(_ text: String, to mountPoint: String) -> ExportOutcome {
        let file = mountPoint + "/" + fileName
        do {
            try StickFile.replace(fileName, inVolume: mountPoint, with: Array(text.utf8))
            return .written(file: file)
        } catch {
            return .failed(file: file, error)
        }
    }
}

extension BookmarkStore.Bookmark {
    /// The bookmark without its order stamp, which is this box's own.
    fileprivate var comparable: [String] {
        [volumeID, category, key, relativePath, "\(positionFrames)", "\(sampleRate)", "\(finished)"]
    }
}
