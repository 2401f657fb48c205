// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// What the phone page (`kiosk-web`, a process of its own) asks of the player beyond MPD's
/// vocabulary, through the MPD server's `kiosk…` commands: the last card shown (so a card tapped on
/// the box appears in the page), linking and unlinking a card to a collection in a mode, and the
/// pairing code shown and spoken on the box. The player does every write (`cards.json` through its
/// `StateWriter`); the page's process has no access to the state directory.
///
/// Thread: the loop thread, like `Player`.
extension Player {
    /// The last card shown to a reader since the start (nil: none yet), with a count that grows with
    /// each showing, so that the same card shown twice is two events.
    public var lastCardShown: (uid: CardUID, count: Int)? {
        cardSession.lastShown.map { ($0, cardSession.shownCount) }
    }

    /// What the check at start found (the doctor's failed lines with their fixes) and the power
    /// warning while it lasts: the phone page's box check.
    public var setupCheck: SetupCheckState { overlays.setupCheck }

    /// The volume the controls can reach (config `volumeMin`, `volumeMax`).
    public var volumeRange: ClosedRange<Int> { volumeLimits.range }

    /// Links card `uid` to the collection `key` of `category` in `mode`, as the box's prompt does;
    /// throws a message for the client when the collection is not in the catalog or the links are full.
    public func linkCard(_ uid: CardUID, category: KioskModel.Category, key: String, mode: CardMode, by who: String)
        throws(PhoneRequestError)
    {
        scheduler.assertInLoop()
        guard let catalog, let target = catalog.collection(category, key: key) else {
            throw PhoneRequestError("no \(category.rawValue) with that key in the library")
        }
        var collection = CardCollection.of(target, in: catalog)
        collection.mode = mode
        do {
            try cards.setLink(.collection(collection), for: uid)
        } catch {
            throw PhoneRequestError("\(error)")
        }
        Log.notice(
            "card \(uid) linked to \(category.rawValue) \"\(collection.name)\" (\(mode.rawValue)) by \(who)")
        let playsNow = queueCollection?.key == collection.key && queueCollection?.category == collection.category
        apply(cardSession.handle(.linked(uid, playsNow: playsNow)))
        outbox.remoteChanges.note(.cards)
        showTransient(MessageState(title: "Card linked", detail: collection.name, kind: .info), seconds: 3)
    }

    /// Forgets card `uid`; false when it was not linked.
    public func unlinkCard(_ uid: CardUID, by who: String) throws(PhoneRequestError) -> Bool {
        scheduler.assertInLoop()
        let removed: Bool
        do {
            removed = try cards.unlink(uid)
        } catch {
            throw PhoneRequestError("\(error)")
        }
        guard removed else { return false }
        Log.notice("card \(uid) unlinked by \(who)")
        apply(cardSession.handle(.unlinked(uid)))
        outbox.remoteChanges.note(.cards)
        return true
    }

    /// The longest name a parent gives a card (what the box shows and says of it).
    public static let maxCardNameBytes = 100

    /// Gives card `uid`'s collection the name a parent chose ("Grandma's stories"), what the box
    /// shows and says when the card is shown; the collection it plays stays the same. An empty name
    /// is refused; only a card that plays a collection has one.
    public func renameCard(_ uid: CardUID, to name: String, by who: String) throws(PhoneRequestError) {
        scheduler.assertInLoop()
        let clean = String(name.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
            .trimmingWhitespace()
        guard !clean.isEmpty else { throw PhoneRequestError("a card's name cannot be empty") }
        guard clean.utf8.count <= Self.maxCardNameBytes else {
            throw PhoneRequestError("a card's name is at most \(Self.maxCardNameBytes) bytes")
        }
        guard case .collection(var collection) = cards.link(of: uid) else {
            throw PhoneRequestError(
                cards.link(of: uid) == nil ? "card \(uid) is not linked" : "card \(uid) is a button: it has no name")
        }
        collection.name = clean
        do {
            try cards.setLink(.collection(collection), for: uid, keepingRound: true)
        } catch {
            throw PhoneRequestError("\(error)")
        }
        Log.notice("card \(uid) named \"\(clean)\" by \(who)")
        outbox.remoteChanges.note(.cards)
    }

    /// Shows the phone page's pairing code on the screen for `seconds` and says it, digit by digit.
    public func showPairingCode(_ code: String, seconds: Int) {
        scheduler.assertInLoop()
        let message = MessageState(title: "Phone code \(code)", detail: "Type it on the phone", kind: .info)
        showTransient(message, seconds: seconds)
        // In the journal too (readable by root and the adm group only, who own the box anyway): the
        // tests read it there, and a parent whose screen and speaker are off can too.
        Log.info("phone page: pairing code \(code) shown and said for \(seconds) s")
        let digits = code.map(String.init).joined(separator: " ")
        send(.speak("Phone code: \(digits)"))
        refreshScreen()
    }
}

/// A phone page's request the player refuses, with the reason for the page. Thread: a value; any.
public struct PhoneRequestError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
