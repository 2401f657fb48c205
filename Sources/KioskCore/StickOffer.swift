// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// What a stick offers the box, which happens only when someone holds Select while the offer
/// shows: an update (`kiosk-update` found a newer bundle and waits for the confirmation), a set of
/// card links and bookmarks to import (`StickSet`), and, right after an import, its undo. One offer
/// at a time; a new one replaces the one before. An offer goes away when its time is up, when its
/// stick is removed (for an update: when kiosk-update withdraws it), or when another message
/// replaced it on the screen before the hold (as a new card's prompt does). A part of the player:
/// its state changes only in `handle`, which returns what must follow.
///
/// Thread: any (a value); the player's copy lives on the loop thread.
struct StickOffer {
    /// How long a set's offer, and the undo after an import, show.
    static let setOfferSeconds = 60
    static let undoSeconds = 30

    /// What is offered.
    enum Kind: Equatable {
        case update(UpdateOffer)
        /// The set in `file` on the stick at `mountPoint`.
        case stickSet(StickSet, file: String, mountPoint: String)
        /// Undo the import just made: the cards and bookmarks before it come back.
        case undoImport
    }

    /// The offer showing, and the message it shows.
    struct Pending: Equatable {
        let kind: Kind
        let message: MessageState
        let generation: Int
    }

    private(set) var pending: Pending?
    /// Counts the offers made: an offer's timer names the one it ends.
    private var generation = 0
    /// The sticks being looked at for a set (on the stick worker): a result for a stick removed
    /// meanwhile is not offered.
    private(set) var looking: Set<String> = []
    /// The cards and bookmarks before the last import, for one undo; nil once undone.
    private(set) var beforeImport: StickSet?

    /// What goes away.
    enum Withdrawal: Equatable {
        /// kiosk-update withdrew the offer of this bundle; `title` says why ("" for nothing to say).
        case update(sha256: String, title: String)
        /// The stick at this mount point was removed.
        case stick(mountPoint: String)
    }

    enum Event: Equatable {
        /// The stick at `mountPoint` came and is looked at for a set.
        case looking(mountPoint: String)
        /// The look at that stick found nothing to offer.
        case lookEnded(mountPoint: String)
        /// `kind` is offered (a set only while its stick is looked at); `gesture` is how the box is told to take it ("Hold Select").
        case offered(Kind, gesture: String)
        /// `action` came while `showing` was on the screen.
        case answered(Action, showing: MessageState?)
        /// The time of offer `generation` is up.
        case expired(generation: Int)
        case withdrawn(Withdrawal, showing: MessageState?)
        /// The player imported a set; `previous` is what it replaced, kept for the undo offered now.
        case imported(previous: StickSet, summary: String, gesture: String)
        /// The player put the state before the import back.
        case undone
    }

    mutating func handle(_ event: Event) -> [PlayerEffect] {
        switch event {
        case .looking(let mountPoint):
            looking.insert(mountPoint)
            return []
        case .lookEnded(let mountPoint):
            looking.remove(mountPoint)
            return []
        case .offered(let kind, let gesture):
            if case .stickSet(_, _, let mountPoint) = kind, looking.remove(mountPoint) == nil { return [] }
            return offer(kind, message: Self.message(for: kind, gesture: gesture))
        case .answered(let action, let showing):
            guard let pending else { return [] }
            guard showing == pending.message else {
                // Something else took the screen: the offer is gone, and the action does what it does.
                self.pending = nil
                return []
            }
            guard action == .playFromStart else { return [] }
            self.pending = nil
            switch pending.kind {
            case .update(let update):
                return [
                    .confirmUpdate(update),
                    .overlays(
                        .show(
                            MessageState(title: "Installing update \(update.version)", detail: "The music plays on"),
                            seconds: 6)),
                ]
            case .stickSet(let set, let file, _):
                return [.importStickSet(set, file: file)]
            case .undoImport:
                guard let before = beforeImport else { return [.overlays(.clearMessage)] }
                beforeImport = nil
                return [.undoStickSetImport(before)]
            }
        case .expired(let ended):
            guard let pending, pending.generation == ended else { return [] }
            self.pending = nil
            return []
        case .withdrawn(let withdrawal, let showing):
            if case .stick(let mountPoint) = withdrawal { looking.remove(mountPoint) }
            guard let pending else { return [] }
            switch (pending.kind, withdrawal) {
            case (.update(let offered), .update(let sha256, let title)) where offered.sha256 == sha256:
                self.pending = nil
                guard showing == pending.message else { return [] }
                return title.isEmpty
                    ? [.overlays(.clearMessage), .redraw]
                    : [.overlays(.show(MessageState(title: title), seconds: 4)), .redraw]
            case (.stickSet(_, _, let mountPoint), .stick(let removed)) where mountPoint == removed:
                self.pending = nil
                return showing == pending.message ? [.overlays(.clearMessage), .redraw] : []
            default:
                return []
            }
        case .imported(let previous, let summary, let gesture):
            beforeImport = previous
            let message = MessageState(
                title: "Cards and bookmarks imported", detail: "\(summary). \(gesture) to undo", kind: .info)
            return offer(.undoImport, message: message, seconds: Self.undoSeconds)
        case .undone:
            return [
                .overlays(
                    .show(
                        MessageState(title: "Import undone", detail: "The cards and bookmarks before it are back"),
                        seconds: 4))
            ]
        }
    }

    private mutating func offer(_ kind: Kind, message: MessageState, seconds: Int? = nil) -> [PlayerEffect] {
        generation &+= 1
        pending = Pending(kind: kind, message: message, generation: generation)
        let seconds = seconds ?? Self.seconds(for: kind)
        return [
            .overlays(.show(message, seconds: seconds)),
            .after(milliseconds: seconds * 1000, .offerExpired(generation: generation)),
            .redraw,
        ]
    }

    /// The player hears of an offer up to `UpdateNoticeWatch`'s two seconds after kiosk-update
    /// made it, and kiosk-update looks for the answer once a second: an update's offer ends this
    /// much before kiosk-update stops waiting, so a hold the box takes is never one it ignores.
    static let updateMarginSeconds = 4

    /// How long `kind` shows: an update a little less than kiosk-update waits.
    static func seconds(for kind: Kind) -> Int {
        switch kind {
        case .update(let update): max(1, update.seconds - updateMarginSeconds)
        case .stickSet: setOfferSeconds
        case .undoImport: undoSeconds
        }
    }

    /// "Update to version 1.5 found" / "Hold Select to install".
    static func message(for kind: Kind, gesture: String) -> MessageState {
        switch kind {
        case .update(let update):
            MessageState(title: "Update to version \(update.version) found", detail: "\(gesture) to install")
        case .stickSet(let set, _, _):
            MessageState(
                title: "Cards and bookmarks found", detail: "\(set.summary). \(gesture) to use them on this box")
        case .undoImport:
            MessageState(title: "Undo the import?", detail: "\(gesture) to undo")
        }
    }
}
