// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import Testing

@testable import KioskCore

/// `StickOffer`, the part: an event and its state, the effects it returns. No loop, no engine.
@Suite struct StickOfferTests {
    static let hash = String(repeating: "ab", count: 32)
    static let update = UpdateOffer(version: "1.5", sha256: hash, seconds: 120)
    static let offered = MessageState(title: "Update to version 1.5 found", detail: "Hold Select to install")
    static let set = StickSet(
        links: [CardUID("0001")!: .action(.stop)], bookmarks: [], settings: nil)

    /// A part with the update offered, and that offer's generation.
    static func offering() -> StickOffer {
        var part = StickOffer()
        _ = part.handle(.offered(.update(update), gesture: "Hold Select"))
        return part
    }

    @Test func anUpdateOfferEndsBeforeKioskUpdateStopsWaitingAndSaysWhatToHold() {
        var part = StickOffer()
        let effects = part.handle(.offered(.update(Self.update), gesture: "Hold Select"))
        // kiosk-update waits 120 s from its offer; the player heard of it up to 2 s later.
        #expect(
            effects == [
                .overlays(.show(Self.offered, seconds: 116)),
                .after(milliseconds: 116_000, .offerExpired(generation: 1)),
                .redraw,
            ])
        #expect(part.pending?.message == Self.offered)
    }

    @Test func holdingSelectOverTheOfferConfirmsThatBundleAndSaysTheMusicPlaysOn() {
        var part = Self.offering()
        let effects = part.handle(.answered(.playFromStart, showing: Self.offered))
        #expect(
            effects == [
                .confirmUpdate(Self.update),
                .overlays(
                    .show(MessageState(title: "Installing update 1.5", detail: "The music plays on"), seconds: 6)),
            ])
        #expect(part.pending == nil)
        #expect(part.handle(.answered(.playFromStart, showing: nil)).isEmpty, "confirmed once")
    }

    @Test func anotherPressLeavesTheOfferAndIsNotUsed() {
        var part = Self.offering()
        #expect(part.handle(.answered(.next, showing: Self.offered)).isEmpty)
        #expect(part.pending != nil)
    }

    @Test func anOfferWhoseMessageWasReplacedIsGoneAndAHoldThenConfirmsNothing() {
        var part = Self.offering()
        #expect(part.handle(.answered(.playFromStart, showing: MessageState(title: "Volume"))).isEmpty)
        #expect(part.pending == nil)
    }

    @Test func anOfferWhoseTimeIsUpIsGoneButAnOlderTimerEndsNothing() {
        var part = Self.offering()
        _ = part.handle(.offered(.update(Self.update), gesture: "Hold Select"))
        #expect(part.handle(.expired(generation: 1)).isEmpty)
        #expect(part.pending != nil, "the first offer's timer does not end the second")
        #expect(part.handle(.expired(generation: 2)).isEmpty)
        #expect(part.pending == nil)
    }

    @Test func kioskUpdateWithdrawingTheOfferTakesItOffTheScreenWithItsReason() {
        var part = Self.offering()
        #expect(
            part.handle(.withdrawn(.update(sha256: "0" + Self.hash.dropFirst(), title: "x"), showing: Self.offered))
                .isEmpty)
        #expect(part.pending != nil, "another bundle's withdrawal")
        let effects = part.handle(
            .withdrawn(.update(sha256: Self.hash, title: "The update stick was removed"), showing: Self.offered))
        #expect(
            effects == [.overlays(.show(MessageState(title: "The update stick was removed"), seconds: 4)), .redraw])
        #expect(part.pending == nil)
    }

    @Test func aSetIsOfferedOnlyWhileItsStickIsThere() {
        var part = StickOffer()
        let kind = StickOffer.Kind.stickSet(Self.set, file: "/m/A/kiosk-set.json", mountPoint: "/m/A")
        #expect(part.handle(.offered(kind, gesture: "Hold Select")).isEmpty, "a stick not looked at")
        _ = part.handle(.looking(mountPoint: "/m/A"))
        _ = part.handle(.withdrawn(.stick(mountPoint: "/m/A"), showing: nil))
        #expect(part.handle(.offered(kind, gesture: "Hold Select")).isEmpty, "removed while it was read")
        #expect(part.pending == nil)
        _ = part.handle(.looking(mountPoint: "/m/A"))
        #expect(!part.handle(.offered(kind, gesture: "Hold Select")).isEmpty)
        #expect(part.looking.isEmpty)
    }

    @Test func aSetsOfferGoesWithItsStick() {
        var part = StickOffer()
        _ = part.handle(.looking(mountPoint: "/m/A"))
        _ = part.handle(
            .offered(.stickSet(Self.set, file: "/m/A/kiosk-set.json", mountPoint: "/m/A"), gesture: "Hold Select"))
        let message = part.pending!.message
        #expect(message.detail == "1 card, 0 bookmarks. Hold Select to use them on this box")
        #expect(part.handle(.withdrawn(.stick(mountPoint: "/m/B"), showing: message)).isEmpty)
        #expect(
            part.handle(.withdrawn(.stick(mountPoint: "/m/A"), showing: message)) == [
                .overlays(.clearMessage), .redraw,
            ])
        #expect(part.pending == nil)
    }

    @Test func holdingSelectOverASetImportsItAndThenOffersOneUndo() throws {
        var part = StickOffer()
        _ = part.handle(.looking(mountPoint: "/m/A"))
        _ = part.handle(
            .offered(.stickSet(Self.set, file: "/m/A/kiosk-set.json", mountPoint: "/m/A"), gesture: "Hold Select"))
        #expect(
            part.handle(.answered(.playFromStart, showing: part.pending?.message))
                == [.importStickSet(Self.set, file: "/m/A/kiosk-set.json")])
        let before = StickSet()
        let effects = part.handle(.imported(previous: before, summary: "1 card, 0 bookmarks", gesture: "Hold Select"))
        let undo = try #require(part.pending)
        #expect(undo.kind == .undoImport)
        #expect(undo.message.detail == "1 card, 0 bookmarks. Hold Select to undo")
        #expect(effects.first == .overlays(.show(undo.message, seconds: StickOffer.undoSeconds)))
        #expect(part.handle(.answered(.playFromStart, showing: undo.message)) == [.undoStickSetImport(before)])
        #expect(part.beforeImport == nil, "one undo")
    }
}
