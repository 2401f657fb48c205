// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// Settings a person imported at the box from another box's set (`kiosk-set.json`'s `settings`,
/// docs/updates.md), kept in the state directory as `imported-settings.json`. The config file is
/// root's (the card's settings file on the image, /etc/kiosk-player/config.json), so the player never
/// writes it: the imported keys apply over it at every start instead, each replacing the config's
/// key of that name whole, for as long as the config file is the one they were imported over
/// (`basedOn`, its object then). An edit of the config file is the newer word and wins: the import
/// is then ignored, and the player's log says so at start (not `check-config`, whose output
/// scripts read as JSON).
///
/// Thread: a value; any thread (`load` reads the state directory).
public struct ImportedSettings: Equatable, Sendable {
    public static let fileName = "imported-settings.json"
    static let format = "kiosk-player-imported-settings"
    static let version = 1
    /// The config keys that describe a box's hardware or its paths: never carried to another box,
    /// never imported.
    public static let boxOnlyKeys: Set<String> = [
        "board", "hat", "boardsDirectory", "mediaRoots", "stateDirectory", "libraryDirectories", "audio", "screen",
        "inputs", "mpd", "web",
    ]

    /// The keys imported, as the set carried them (box-only keys are refused by the set's parser).
    public var settings: JSONValue
    /// The config file's object when they were imported (`{}` when there was no file).
    public var basedOn: JSONValue

    public init(settings: JSONValue, basedOn: JSONValue) {
        self.settings = settings
        self.basedOn = basedOn
    }

    /// What came of an import at this start, for the log.
    public enum Outcome: Equatable, Sendable {
        /// No imported settings in the state directory.
        case none
        /// These keys of `file` apply over the config file.
        case applied(keys: [String], file: String)
        /// `file` is not used: `reason`.
        case ignored(file: String, reason: String)

        /// Said at start: applied as a notice, ignored as a warning.
        public func log() {
            switch self {
            case .none: break
            case .applied: Log.notice(description ?? "")
            case .ignored: Log.warning(description ?? "")
            }
        }

        /// One sentence, or nil for `.none`.
        public var description: String? {
            switch self {
            case .none: nil
            case .applied(let keys, let file):
                "imported settings apply over the config file: \(keys.joined(separator: ", ")) (\(file))"
            case .ignored(let file, let reason): "imported settings not used: \(reason) (\(file))"
            }
        }
    }

    /// The file as written: pretty JSON a person can read.
    public var text: String {
        JSONValue.object([
            ("format", .string(Self.format)), ("version", .number(Double(Self.version))),
            ("settings", settings), ("basedOn", basedOn),
        ]).serialized(pretty: true) + "\n"
    }

    /// Parses the file; `file` names it in errors.
    public static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> ImportedSettings {
        let r = try JSONReader.parse(bytes, file: file)
        guard try r.string("format") == format else {
            throw r.error("format", "not imported settings (expected \"\(format)\")")
        }
        let found = try r.int("version", range: 0...1_000_000)
        guard found == version else {
            throw r.error(
                "version", "version \(found.map(String.init) ?? "missing"); this player reads version \(version)")
        }
        guard let object = try r.object("settings"), let settings = r.raw("settings") else {
            throw r.error("settings", "required: an object")
        }
        if let key = object.keys.first(where: boxOnlyKeys.contains) {
            throw object.error(key, "belongs to this box's config file, never imported")
        }
        guard try r.object("basedOn") != nil, let basedOn = r.raw("basedOn") else {
            throw r.error("basedOn", "required: an object")
        }
        try r.finish(known: ["format", "version", "settings", "basedOn"])
        return ImportedSettings(settings: settings, basedOn: basedOn)
    }

    /// `config`'s object with each imported key in place of the config's own.
    public func merged(over config: JSONValue) -> JSONValue {
        let imported = settings.object ?? []
        var members = (config.object ?? []).filter { member in !imported.contains { $0.key == member.key } }
        members += imported
        return .object(members)
    }

    /// The config file's text `bytes` (nil: there is no config file) with the imported settings of
    /// `stateDirectory` applied when they were imported over exactly that text's object: the config
    /// to parse, and what came of it. Never throws: an unreadable, broken or outdated file is
    /// ignored and said so, and the config file alone is in force.
    public static func applying(toConfig bytes: [UInt8]?, stateDirectory: String) -> (bytes: [UInt8]?, outcome: Outcome)
    {
        let file = stateDirectory + "/" + fileName
        guard Syscalls.exists(file) else { return (bytes, .none) }
        let imported: ImportedSettings
        do {
            imported = try parse(try ConfigError.contents(of: file), file: file)
        } catch {
            return (bytes, .ignored(file: file, reason: "\(error)"))
        }
        // An undo back to no settings at all leaves none.
        guard !(imported.settings.object ?? []).isEmpty else { return (bytes, .none) }
        let config: JSONValue
        if let bytes {
            guard let object = try? JSONValue.parse(bytes), object.object != nil else { return (bytes, .none) }
            config = object
        } else {
            config = .object([])
        }
        guard config == imported.basedOn else {
            return (bytes, .ignored(file: file, reason: "the config file was changed after the import, and it wins"))
        }
        let keys = (imported.settings.object ?? []).map(\.key)
        return (Array(imported.merged(over: config).serialized().utf8), .applied(keys: keys, file: file))
    }
}
