// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// The cards the box knows (`cards.json` in the state directory): card number → what it does, and
/// for a card that plays one track per tap (`CardMode.playsOneTrack`) the tracks it has played since
/// its round began, so that the next tap goes on from there after a restart.
/// Linked and unlinked on the box (a new card, the Cards menu) and by `kiosk-player cards`, which
/// both go through here: every write is atomic, after the same checks. A file that does not parse
/// is set aside as `cards.json.bad` with a warning that names the problem, and no card is lost
/// silently: the player keeps running with no links, and the next link starts a new file.
///
/// Thread: one thread at a time (the loop thread in the player, which hands its saves to the
/// `StateWriter`; the command line's main thread, which writes in place).
public final class CardStore {
    public static let fileName = "cards.json"
    static let format = "kiosk-player-cards"
    static let version = 1
    public static let capacity = 1000

    public let directory: String
    public private(set) var links: [CardUID: CardLink] = [:] {
        didSet {
            continued = Set(
                links.values.compactMap {
                    if case .collection(let c) = $0, c.mode == .continue { Self.id(c.category, c.key) } else { nil }
                })
        }
    }
    /// The collections of `continue` cards, which keep their place whatever config `bookmarks` says.
    private var continued: Set<String> = []
    /// Per card of a one-track mode: the tracks (paths inside their stick) played in this round.
    public private(set) var played: [CardUID: [String]] = [:]
    /// What went wrong loading the file, nil when it loaded (or there was none).
    public private(set) var loadProblem: String?

    /// The file's modification time and size when last read or written, to see another writer's change.
    private var seen: (seconds: Int, nanoseconds: Int, size: Int64)?
    /// Where the player's saves go (its `StateWriter`, off the loop thread); nil: written here
    /// (the command line).
    var writer: StateWriter? {
        didSet { lastText = nil }
    }
    /// Times the file was read again for another writer's change (tests count them).
    private(set) var reloads = 0
    /// The text last handed to `writer`: the file holding it is this store's own write, not another's.
    private var lastText: String?

    public init(directory: String) {
        self.directory = directory
        load()
    }

    /// Reads the file again when something else (`kiosk-player cards link` while the player runs)
    /// changed it since it was last read or written here.
    public func reloadIfChanged() {
        // Our own save on its way: what is in memory is newer than the file.
        if let writer, writer.hasUnwrittenFile(path) { return }
        guard stamp() ?? (0, 0, -1) != seen ?? (0, 0, -1) else { return }
        if let lastText, let bytes = try? ConfigError.contents(of: path), bytes.elementsEqual(lastText.utf8) {
            // The writer's thread wrote what we asked: not another writer's change.
            seen = stamp()
            return
        }
        links = [:]
        played = [:]
        loadProblem = nil
        reloads += 1
        load()
        Log.info("card links read again from \(path): \(links.count) cards")
    }

    private func stamp() -> (seconds: Int, nanoseconds: Int, size: Int64)? {
        guard let status = try? Syscalls.fileStatus(path) else { return nil }
        return (Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec), Int64(status.st_size))
    }

    public var path: String { "\(directory)/\(Self.fileName)" }

    public func link(of uid: CardUID) -> CardLink? { links[uid] }

    /// Whether a card plays the collection `key` of `category` in mode `continue`.
    public func isContinued(_ category: KioskModel.Category, key: String) -> Bool {
        continued.contains(Self.id(category, key))
    }

    private static func id(_ category: KioskModel.Category, _ key: String) -> String {
        "\(category.rawValue)\u{1F}\(key)"
    }

    /// The cards in a stable order (by number), for the menu and the command line.
    public var sorted: [(uid: CardUID, link: CardLink)] {
        links.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Links `uid` to `link` (replacing its old link, and starting its round of tracks afresh unless
    /// `keepingRound`) and saves.
    public func setLink(_ link: CardLink, for uid: CardUID, keepingRound: Bool = false) throws {
        if links[uid] == nil && links.count >= Self.capacity {
            throw ConfigError(file: path, path: "", message: "already \(Self.capacity) cards: unlink one first")
        }
        var changed = links
        changed[uid] = link
        var changedPlayed = played
        // A new link starts a new round; a new name for the same collection (`keepingRound`) does not.
        if !keepingRound { changedPlayed[uid] = nil }
        try save(changed, changedPlayed)
        links = changed
        played = changedPlayed
    }

    /// Records the tracks card `uid` has played in its round (empty: a new round) and saves.
    public func setPlayed(_ paths: [String], for uid: CardUID) throws {
        guard links[uid] != nil else { return }
        var changed = played
        changed[uid] = paths.isEmpty ? nil : paths
        try save(links, changed)
        played = changed
    }

    /// Forgets `uid` and saves; false when it was not linked.
    @discardableResult
    public func unlink(_ uid: CardUID) throws -> Bool {
        guard links[uid] != nil else { return false }
        var changed = links
        changed[uid] = nil
        var changedPlayed = played
        changedPlayed[uid] = nil
        try save(changed, changedPlayed)
        links = changed
        played = changedPlayed
        return true
    }

    /// Replaces every link and round with `links` and `played` (an import from a stick, or its
    /// undo) and saves.
    func replaceAll(_ links: [CardUID: CardLink], played: [CardUID: [String]]) throws {
        try save(links, played)
        self.links = links
        self.played = played
    }

    /// The file's text for the links and rounds held now (what an import keeps for its undo).
    var text: String { Self.document(links, played: played).serialized(pretty: true) + "\n" }

    // MARK: - the file

    static func document(_ links: [CardUID: CardLink], played: [CardUID: [String]] = [:]) -> JSONValue {
        let cards = links.sorted { $0.key < $1.key }.map { uid, link -> (String, JSONValue) in
            switch link {
            case .action(let action):
                return (uid.rawValue, .object([("action", .string(action.name))]))
            case .collection(let c):
                var fields: [(String, JSONValue)] = [("volumeID", .string(c.volumeID))]
                if let label = c.volumeLabel { fields.append(("volumeLabel", .string(label))) }
                fields += [
                    ("category", .string(c.category.rawValue)), ("key", .string(c.key)), ("name", .string(c.name)),
                ]
                // Album, the default, is left out: a release before modes still reads the file.
                if c.mode != .album { fields.append(("mode", .string(c.mode.rawValue))) }
                if let paths = played[uid], !paths.isEmpty {
                    fields.append(("played", .array(paths.map { .string($0) })))
                }
                return (uid.rawValue, .object(fields))
            }
        }
        return .object([
            ("format", .string(format)), ("version", .number(Double(version))), ("cards", .object(cards)),
        ])
    }

    private func save(_ links: [CardUID: CardLink], _ played: [CardUID: [String]]) throws {
        let text = Self.document(links, played: played).serialized(pretty: true) + "\n"
        if let writer {
            // The loop never waits for the card: the writer's thread replaces the file (issue 48).
            lastText = text
            writer.submitFile(path, text: text)
            return
        }
        try Syscalls.mkdirs(directory)
        try AtomicFile.replace(path, with: text)
        seen = stamp()
    }

    /// Parses a cards file; errors name the file, the card and the problem.
    static func parse(
        _ bytes: [UInt8], file: String
    ) throws(ConfigError) -> (links: [CardUID: CardLink], played: [CardUID: [String]]) {
        let r = try JSONReader.stateFile(
            bytes, file: file, format: format, version: version, what: "kiosk-player cards file")
        var parsed: (links: [CardUID: CardLink], played: [CardUID: [String]]) = ([:], [:])
        if let cards = try r.object("cards") { parsed = try parseCards(cards) }
        try r.finish(known: ["format", "version", "cards"])
        return parsed
    }

    /// Parses the `cards` object of a cards file (or of a stick's set, `StickSet`): each card's
    /// link and, for a one-track card, the tracks of its round (paths inside their stick: no
    /// absolute path, no `..`).
    static func parseCards(
        _ cards: JSONReader
    ) throws(ConfigError) -> (links: [CardUID: CardLink], played: [CardUID: [String]]) {
        var links: [CardUID: CardLink] = [:]
        var played: [CardUID: [String]] = [:]
        if cards.keys.count > capacity { throw cards.error("", "more than \(capacity) cards") }
        for number in cards.keys {
            guard let uid = CardUID(number) else {
                throw cards.error(number, "not a card number (1…\(CardUID.maxLength) letters and digits)")
            }
            guard let item = try cards.object(number) else { throw cards.error(number, "expected an object") }
            if links[uid] != nil { throw cards.error(number, "card \(uid) is listed twice") }
            if item.has("action") {
                guard let text = try item.string("action"), let action = CardAction(text) else {
                    throw item.error("action", "unknown action (actions: \(CardAction.names))")
                }
                try item.finish(known: ["action"])
                links[uid] = .action(action)
            } else {
                guard let volumeID = try item.string("volumeID") else { throw item.error("volumeID", "required") }
                guard let category = try item.choice("category", KioskModel.Category.self) else {
                    throw item.error("category", "required")
                }
                guard let key = try item.string("key", nonEmpty: false) else { throw item.error("key", "required") }
                let name = try item.string("name", nonEmpty: false) ?? key
                let label = try item.string("volumeLabel")
                // A file written before modes: every card plays its album.
                let mode = try item.choice("mode", CardMode.self) ?? .album
                if let paths = try item.strings("played", maxCount: 100_000), !paths.isEmpty {
                    if let bad = paths.first(where: { StickSet.pathProblem($0) != nil }) {
                        throw item.error("played", "'\(bad)': \(StickSet.pathProblem(bad) ?? "")")
                    }
                    played[uid] = paths
                }
                try item.finish(known: ["volumeID", "volumeLabel", "category", "key", "name", "mode", "played"])
                links[uid] = .collection(
                    CardCollection(
                        volumeID: volumeID, volumeLabel: label, category: category, key: key, name: name, mode: mode
                    )
                )
            }
        }
        return (links, played)
    }

    private func load() {
        seen = stamp()
        guard Syscalls.exists(path) else { return }
        do {
            (links, played) = try Self.parse(try ConfigError.contents(of: path), file: path)
        } catch {
            loadProblem = "\(error)"
            Log.warning("ignoring the card links (kept as \(Self.fileName).bad): \(error)")
            links = [:]
            played = [:]
            try? Syscalls.rename(path, path + ".bad")
            seen = stamp()
        }
    }
}
