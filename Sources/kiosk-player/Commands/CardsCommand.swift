// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskCommandLine
import KioskConfig
import KioskCore
import KioskInput
import KioskLibrary
import KioskModel
import KioskSystem

/// `kiosk-player cards list | link UID … | unlink UID`: the card links of `cards.json` in the
/// config's state directory, for setting up many cards at a laptop or from a script. Links made here
/// get the same checks as on the box; a running player reads the file again at the next card.
enum CardsCommand {
    static var command: Command {
        Command(
            name: "cards",
            summary: "list, link and unlink RFID/NFC cards (cards.json)",
            synopsis: [
                "list [--config FILE]",
                "link UID (--album NAME [--artist NAME] | --playlist NAME | --folder PATH) [--mode MODE] [--config FILE]",
                "link UID --action ACTION [--config FILE]",
                "unlink UID [--config FILE]",
            ],
            description: """
                Edits cards.json in the config's state directory, atomically. `link` finds the album,
                playlist or folder in the library the player would see (the config's mediaRoots and
                libraryDirectories, read through the player's index) and links the card to it, so that it
                is found again after the stick is pulled or rescanned. Actions: \(CardAction.names).
                Modes: album (the default: from its first track, or its bookmark), track-per-tap (each
                tap plays the next track alone, remembered across restarts), random-track (a random
                track alone, none again until all have played), continue (where it was left, whatever
                the config's bookmarks say).
                A running player reads the file again when the next card is shown.

                """,
            options: [
                .text("--config", "FILE", "config file (default \(Config.defaultPath))"),
                .text("--album", "NAME", "link to the album of this name"),
                .text("--artist", "NAME", "with --album: the album artist, when two albums share the name"),
                .text("--playlist", "NAME", "link to the playlist of this name"),
                .text("--folder", "PATH", "link to this folder (absolute, on a mounted stick or a library folder)"),
                .text("--action", "ACTION", "link to an action"),
                .choice(
                    "--mode", "MODE", CardMode.allCases.map(\.rawValue),
                    "with --album, --playlist or --folder: how each tap plays it (default album)"),
                .integer("--wait", "SECONDS", 1...3600, "how long to wait for the library scan (default 120)"),
            ],
            run: run)
    }

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        guard let verb = parsed.positionals.first else { throw parsed.usageError("list, link or unlink?") }
        let config = try Config.load(path: parsed.value("--config"))
        let store = CardStore(directory: config.stateDirectory)
        if let problem = store.loadProblem {
            CommandLineTool.writeErr("warning: \(problem); it was set aside as \(CardStore.fileName).bad\n")
        }
        switch verb {
        case "list":
            guard parsed.positionals.count == 1 else { throw parsed.usageError("list takes no card number") }
            if store.links.isEmpty { printLine("No cards linked (\(store.path)).") }
            for (uid, link) in store.sorted { printLine("\(uid.rawValue)  \(link.summary)\(modeColumn(link))") }
            return 0
        case "unlink":
            let uid = try cardNumber(parsed)
            guard try store.unlink(uid) else { throw ToolError("card \(uid) is not linked (\(store.path))") }
            printLine("Card \(uid) unlinked.")
            return 0
        case "link":
            let uid = try cardNumber(parsed)
            let link = try target(parsed, config: config)
            let replaced = store.link(of: uid)
            try store.setLink(link, for: uid)
            printLine(
                "Card \(uid) → \(link.summary)\(modeColumn(link))\(replaced.map { " (was: \($0.summary))" } ?? "")")
            return 0
        default:
            throw parsed.usageError("unknown cards command '\(verb)' (list, link, unlink)")
        }
    }

    /// "  mode: track-per-tap" after a collection's summary.
    private static func modeColumn(_ link: CardLink) -> String {
        if case .collection(let c) = link { "  mode: \(c.mode.rawValue)" } else { "" }
    }

    private static func cardNumber(_ parsed: ParsedArguments) throws -> CardUID {
        guard parsed.positionals.count == 2 else {
            throw parsed.usageError("\(parsed.positionals[0]) takes one card number")
        }
        guard let uid = CardUID(parsed.positionals[1]) else {
            throw ToolError(
                "'\(parsed.positionals[1])' is not a card number (1…\(CardUID.maxLength) letters and digits, as `kiosk-player inputs` prints them)"
            )
        }
        return uid
    }

    private static func target(_ parsed: ParsedArguments, config: Config) throws -> CardLink {
        let given = ["--album", "--playlist", "--folder", "--action"].filter { parsed.value($0) != nil }
        guard given.count == 1 else {
            throw parsed.usageError(
                given.isEmpty
                    ? "link to what? --album, --playlist, --folder or --action"
                    : "give one of \(given.joined(separator: ", "))")
        }
        let mode = parsed.value("--mode").flatMap(CardMode.init(rawValue:)) ?? .album
        if let text = parsed.value("--action") {
            if parsed.value("--mode") != nil {
                throw parsed.usageError("--mode is for --album, --playlist or --folder, not --action")
            }
            guard let action = CardAction(text) else {
                throw ToolError("unknown action '\(text)' (actions: \(CardAction.names))")
            }
            return .action(action)
        }
        let catalog = try scanLibrary(config, seconds: parsed.int("--wait") ?? 120)
        var collection = try chosenCollection(parsed, config: config, catalog: catalog)
        collection.mode = mode
        return .collection(collection)
    }

    /// The album, playlist or folder `--album`, `--playlist` or `--folder` names.
    private static func chosenCollection(
        _ parsed: ParsedArguments, config: Config, catalog: Catalog
    ) throws -> CardCollection {
        if let name = parsed.value("--album") {
            return try find(name, in: .album, catalog, artist: parsed.value("--artist"))
        }
        if let name = parsed.value("--playlist") { return try find(name, in: .playlist, catalog) }
        let folder = parsed.value("--folder")!
        let canonical = (try? Syscalls.canonicalPath(folder)) ?? folder
        let matches = catalog.collections(in: .folder).filter { collection in
            let track = catalog.tracks(of: collection).first ?? collection.representative
            let path = track.folder.isEmpty ? track.mountPoint : "\(track.mountPoint)/\(track.folder)"
            return path == canonical
        }
        guard let match = matches.first else {
            throw ToolError(
                "no folder with music at \(folder) in the library (the config's mediaRoots \(config.mediaRoots.joined(separator: " ")) and libraryDirectories)"
            )
        }
        return CardCollection.of(match, in: catalog)
    }

    private static func find(
        _ name: String, in category: KioskModel.Category, _ catalog: Catalog, artist: String? = nil
    ) throws -> CardCollection {
        let all = catalog.collections(in: category)
        var matches = all.filter { $0.name.lowercased() == name.lowercased() }
        if let artist {
            matches = matches.filter { $0.representative.albumArtist.lowercased() == artist.lowercased() }
        }
        let kind = category == .album ? "album" : "playlist"
        guard !matches.isEmpty else {
            let known = all.prefix(12).map { "'\($0.name)'" }.joined(separator: ", ")
            throw ToolError(
                "no \(kind) named '\(name)'\(artist.map { " by '\($0)'" } ?? "") in the library (\(all.count) \(kind)s\(all.isEmpty ? "" : ": \(known)\(all.count > 12 ? ", …" : "")"))"
            )
        }
        guard matches.count == 1 else {
            let list = matches.map { "'\($0.name)' by \($0.representative.albumArtist)" }.joined(separator: ", ")
            throw ToolError("\(matches.count) \(kind)s are named '\(name)' (\(list)): add --artist")
        }
        return CardCollection.of(matches[0], in: catalog)
    }

    /// The catalog the player would have: the mounted sticks under the config's media roots and its
    /// library folders, scanned through the indexes in the state directory.
    private static func scanLibrary(_ config: Config, seconds: Int) throws -> Catalog {
        let loop = try EventLoop()
        let library = try Library(loop: loop, stateDirectory: config.stateDirectory, mediaRoots: config.mediaRoots) {
            _, _ in
        }
        library.start()
        for folder in config.libraryDirectories { library.addVolume(path: folder) }
        let deadline = Syscalls.monotonicNanoseconds() + UInt64(seconds) * 1_000_000_000
        var finished = false
        // [unowned loop]: the loop keeps this closure, which must not keep it.
        loop.schedule(afterMilliseconds: 100, repeatingMilliseconds: 100) { [unowned loop] in
            if library.isIdle {
                finished = true
                loop.stop()
            } else if Syscalls.monotonicNanoseconds() > deadline {
                loop.stop()
            }
        }
        try loop.run()
        library.stop()
        guard finished else { throw ToolError("the library was not scanned within \(seconds) s (--wait)") }
        return library.catalog
    }
}
