// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
import KioskModel
import KioskSystem

/// The commands the phone page (`kiosk-web`) needs that MPD has no word for: the box's cards and
/// their links, the collections a card can play, the volume's limits, and the pairing code the box
/// shows and says. Prefixed `kiosk` so that no MPD command of a later protocol version can clash;
/// `kioskcard` is an idle subsystem only a client that names it hears (`MPDIdle.kioskCard`).
/// Thread: loop thread.
enum MPDPhoneCommands {
    /// Most collections `kioskcollections` lists (a bounded response; the page says when cut).
    static let maxCollections = 2000

    /// `kioskstate`: the volume's limits and the last card shown (`lastcard`, `lastcardcount`).
    static func state(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        var out: [UInt8] = []
        let range = s.player.volumeRange
        MPDFormat.pair("volumemin", "\(range.lowerBound)", to: &out)
        MPDFormat.pair("volumemax", "\(range.upperBound)", to: &out)
        if let last = s.player.lastCardShown {
            MPDFormat.pair("lastcard", last.uid.rawValue, to: &out)
            MPDFormat.pair("lastcardcount", "\(last.count)", to: &out)
            MPDFormat.pair("lastcardlinked", s.player.cards.link(of: last.uid) == nil ? "0" : "1", to: &out)
        }
        r.connection.write(bytes: out[...])
        return .done
    }

    /// `kioskcards`: every link, one `card:` line each, followed by what it plays.
    static func cards(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        s.player.cards.reloadIfChanged()
        var out: [UInt8] = []
        for (uid, link) in s.player.cards.sorted {
            MPDFormat.pair("card", uid.rawValue, to: &out)
            MPDFormat.pair("summary", link.summary, to: &out)
            switch link {
            case .collection(let c):
                MPDFormat.pair("category", c.category.rawValue, to: &out)
                MPDFormat.pair("key", c.key, to: &out)
                MPDFormat.pair("name", c.name, to: &out)
                MPDFormat.pair("mode", c.mode.rawValue, to: &out)
            case .action(let a):
                MPDFormat.pair("action", a.name, to: &out)
            }
        }
        r.connection.write(bytes: out[...])
        return .done
    }

    /// `kioskcollections CATEGORY`: the collections of a category (album, playlist, folder), one
    /// `key:` line each, then `name:` and `subtitle:`.
    static func collections(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let category = try linkable(r[0])
        var out: [UInt8] = []
        let all = s.player.catalog?.collections(in: category) ?? []
        for collection in all.prefix(maxCollections) {
            MPDFormat.pair("key", collection.key, to: &out)
            MPDFormat.pair("name", collection.name, to: &out)
            MPDFormat.pair("subtitle", collection.subtitle, to: &out)
        }
        if all.count > maxCollections { MPDFormat.pair("truncated", "\(all.count)", to: &out) }
        r.connection.write(bytes: out[...])
        return .done
    }

    /// `kioskcardlink UID CATEGORY KEY MODE WHO`: links a card (WHO: the page's session, for the log).
    static func link(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let uid = try card(r[0])
        let category = try linkable(r[1])
        guard let mode = CardMode(rawValue: r[3]) else {
            throw .argument("unknown mode \(r[3]) (\(CardMode.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        do throws(PhoneRequestError) {
            try s.player.linkCard(uid, category: category, key: r[2], mode: mode, by: who(r, 4))
        } catch {
            throw .noExist(error.description)
        }
        return s.changed()
    }

    /// `kioskcardunlink UID WHO`.
    static func unlink(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let uid = try card(r[0])
        let removed: Bool
        do throws(PhoneRequestError) {
            removed = try s.player.unlinkCard(uid, by: who(r, 1))
        } catch {
            throw MPDError(.system, error.description)
        }
        guard removed else { throw .noExist("card \(uid) is not linked") }
        return s.changed()
    }

    /// `kioskcardname UID NAME WHO`: the name the box shows and says for a card's collection.
    static func rename(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let uid = try card(r[0])
        do throws(PhoneRequestError) {
            try s.player.renameCard(uid, to: r[1], by: who(r, 2))
        } catch {
            throw .argument(error.description)
        }
        return s.changed()
    }

    /// `kioskpaircode CODE SECONDS`: the box shows and says the phone page's pairing code.
    static func pairCode(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let code = r[0]
        guard (4...8).contains(code.utf8.count), code.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .argument("a code is 4 to 8 digits")
        }
        let seconds = try MPDArgument.int(r[1])
        guard (10...600).contains(seconds) else { throw .argument("seconds: 10…600") }
        s.player.showPairingCode(code, seconds: seconds)
        return .done
    }

    /// `kioskproblems`: what the box's check at start found: `checked: 0|1`, `powerwarning:` while
    /// the supply is too weak, per failed line `problem:` and its `fix:`, then every line as
    /// `line: pass|fail|info`, `group:`, `text:` and its `linefix:`.
    static func problems(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let check = s.player.setupCheck
        var out: [UInt8] = []
        MPDFormat.pair("checked", check.checked ? "1" : "0", to: &out)
        if let warning = check.powerWarning { MPDFormat.pair("powerwarning", warning, to: &out) }
        for problem in check.problems {
            MPDFormat.pair("problem", problem.text, to: &out)
            if let fix = problem.fix { MPDFormat.pair("fix", fix, to: &out) }
        }
        // The whole check, for the page's full report: each line's status, group and text, its fix.
        for line in check.lines {
            MPDFormat.pair("line", line.status.rawValue, to: &out)
            MPDFormat.pair("group", line.group, to: &out)
            MPDFormat.pair("text", line.text, to: &out)
            if let fix = line.fix { MPDFormat.pair("linefix", fix, to: &out) }
        }
        r.connection.write(bytes: out[...])
        return .done
    }

    /// `kiosksettings`: the settings the page shows (`Player.phoneSettings`).
    static func settings(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        var out: [UInt8] = []
        for (name, value) in s.player.phoneSettings { MPDFormat.pair(name, value, to: &out) }
        r.connection.write(bytes: out[...])
        return .done
    }

    /// `kiosksettingsset JSON WHO`: changes settings (a JSON object of config keys); answers `now:`
    /// and `nextstart:` lines naming the keys, or an error with the config parser's message.
    static func setSettings(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        guard let changes = try? JSONValue.parse(Array(r[0].utf8), maxDepth: 6), changes.object != nil else {
            throw .argument("expected a JSON object of settings")
        }
        let outcome: (now: [String], nextStart: [String])
        do throws(PhoneRequestError) {
            outcome = try s.player.changeSettings(changes, by: who(r, 1))
        } catch {
            throw .argument(error.description)
        }
        var out: [UInt8] = []
        for key in outcome.now { MPDFormat.pair("now", key, to: &out) }
        for key in outcome.nextStart { MPDFormat.pair("nextstart", key, to: &out) }
        r.connection.write(bytes: out[...])
        return s.changed()
    }

    // MARK: - the box's set (cards, bookmarks, settings) to and from the page

    /// Most bytes of the set a `piece:` line of `kioskset` carries (the page's reader takes lines of
    /// up to 64 KiB).
    static let setPieceBytes = 16 << 10

    /// `kioskset`: this box's set (`kiosk-set.json`, compact) in `piece:` lines, to be joined as
    /// they come. A piece never begins with a space (a client drops the spaces after the colon) nor
    /// inside a character.
    static func exportSet(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        var out: [UInt8] = []
        for piece in pieces(of: Array(s.player.phoneSetJSON.utf8), atMost: setPieceBytes) {
            MPDFormat.pair("piece", String(decoding: piece, as: UTF8.self), to: &out)
        }
        r.connection.write(bytes: out[...])
        return .done
    }

    /// `bytes` cut into runs of at most `limit` bytes, none starting with a space or a UTF-8
    /// continuation byte (a run ends earlier instead).
    static func pieces(of bytes: [UInt8], atMost limit: Int) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var start = 0
        while start < bytes.count {
            var end = min(start + limit, bytes.count)
            while end < bytes.count, end > start + 1, bytes[end] == 0x20 || bytes[end] & 0xC0 == 0x80 { end -= 1 }
            out.append(bytes[start..<end])
            start = end
        }
        return out
    }

    /// `kiosksetpiece HEX`: the next bytes of a set the page gives back, in hexadecimal (any bytes
    /// pass MPD's quoting so, and the player's parser sees the parent's file as it is). Kept by the
    /// connection up to `Player.phoneSetLimit`, for its next `kiosksetimport`.
    static func setPiece(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        guard let bytes = Hex.decode(r[0].utf8) else {
            r.connection.pendingSet = []
            throw .argument("a piece is hexadecimal, two digits a byte")
        }
        guard r.connection.pendingSet.count + bytes.count <= Player.phoneSetLimit else {
            r.connection.pendingSet = []
            throw .argument("the set is larger than \(Player.phoneSetLimit >> 10) KiB")
        }
        r.connection.pendingSet += bytes
        return .done
    }

    /// `kiosksetimport check|import WHO`: what the set given in pieces holds (`summary:`), or why it
    /// cannot be used; with `import`, the box then takes it (its state before kept for one undo). The
    /// pieces are used up either way.
    static func importSet(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let bytes = r.connection.pendingSet
        r.connection.pendingSet = []
        guard r[0] == "check" || r[0] == "import" else { throw .argument("expected check or import") }
        guard !bytes.isEmpty else { throw .argument("no set given (kiosksetpiece first)") }
        let summary: String
        do throws(PhoneRequestError) {
            summary = try s.player.phoneSet(bytes, importing: r[0] == "import", by: who(r, 1))
        } catch {
            throw .argument(error.description)
        }
        var out: [UInt8] = []
        MPDFormat.pair("summary", summary, to: &out)
        r.connection.write(bytes: out[...])
        return r[0] == "import" ? s.changed() : .done
    }

    private static func card(_ text: String) throws(MPDError) -> CardUID {
        guard let uid = CardUID(text) else { throw .argument("not a card number: \(text)") }
        return uid
    }

    private static func linkable(_ text: String) throws(MPDError) -> KioskModel.Category {
        guard let category = KioskModel.Category(rawValue: text), [.album, .playlist, .folder].contains(category)
        else { throw .argument("a card plays an album, playlist or folder, not \(text)") }
        return category
    }

    private static func who(_ r: MPDRequest, _ index: Int) -> String {
        let text = index < r.arguments.count ? r.arguments[index] : "a remote client"
        return String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(64))
    }
}
