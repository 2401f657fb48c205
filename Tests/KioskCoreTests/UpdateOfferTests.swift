// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// "Update to version X found: hold Select to install", on the player with the real files: the
/// notice as kiosk-update writes it (deploy/image/test-update-offer.sh checks kiosk-update's side
/// of the same lines) and the confirmation the player writes for it.
@Suite struct UpdateOfferTests {
    static let hash = "6515c2840a4007ffa3e70a8288665bbfadaca31934ab516f654b7530caee05a2"
    /// What kiosk-update's `notice offer` writes.
    static let offerText =
        "offer\nUpdate to version 1.5 found\nHold Select to install\nversion=1.5\nsha256=\(hash)\nseconds=120\n"

    /// A rig playing, its confirmation file in a temporary directory, and the notice `text` read
    /// back from a file there and handed to the player as the watch does.
    func rig(notice text: String) throws -> (PlayerRig, TemporaryDirectory) {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        let run = try TemporaryDirectory("kiosk-update-run")
        rig.player.updateConfirmPath = run.file("update-confirm")
        try rig.playFirst()
        try deliver(text, to: rig, via: run)
        return (rig, run)
    }

    func deliver(_ text: String, to rig: PlayerRig, via run: TemporaryDirectory) throws {
        try run.write("notice", text)
        let read = String(decoding: try Syscalls.readFile(run.file("notice")), as: UTF8.self)
        rig.player.updateNoticeCame(try #require(UpdateNotice.parse(read)))
        try rig.idle(20)
    }

    func message(_ rig: PlayerRig) -> MessageState? {
        if case .message(let m) = rig.player.screenState() { m } else { nil }
    }

    func confirmation(_ run: TemporaryDirectory) -> String? {
        (try? Syscalls.readFile(run.file("update-confirm"))).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func theOfferIsShownAndSaidAndHoldingSelectWritesTheConfirmationOfThatBundle() throws {
        let (rig, run) = try rig(notice: Self.offerText)
        defer {
            rig.shutdown()
            run.remove()
        }
        let heard = HeardFromPlayer(rig)
        let track = rig.title
        #expect(message(rig) == MessageState(title: "Update to version 1.5 found", detail: "Hold Select to install"))
        try rig.idle(500)
        rig.player.flushSaves()
        #expect(confirmation(run) == nil, "nothing is confirmed before the hold")
        try rig.press(.playFromStart)
        rig.player.flushSaves()
        #expect(confirmation(run) == "install \(Self.hash)\n")
        #expect(message(rig)?.title == "Installing update 1.5")
        #expect(rig.player.status == .playing && rig.title == track, "the music plays on, not restarted")
        try rig.idle(500)
        #expect(heard.said.contains("Installing update 1.5. The music plays on"))
        // kiosk-update's own line for the same step is not said a second time.
        try deliver("info\nInstalling update 1.5\nThe music plays on\n", to: rig, via: run)
        try deliver("info\nUpdate 1.5 installed\nIt starts at the next power-on\n", to: rig, via: run)
        try rig.idle(500)
        #expect(heard.said.filter { $0.hasPrefix("Installing") }.count == 1)
        #expect(heard.said.contains("Update 1.5 installed. It starts at the next power-on"))
    }

    @Test func theOfferSaysTheBoardsOwnGesture() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        rig.player.linkGesture = "Hold Play 2 s"
        rig.player.updateNoticeCame(try #require(UpdateNotice.parse(Self.offerText)))
        #expect(message(rig)?.detail == "Hold Play 2 s to install")
    }

    @Test func anOfferWithdrawnBecauseTheStickWentAwayCannotBeTakenAnyMore() throws {
        let (rig, run) = try rig(notice: Self.offerText)
        defer {
            rig.shutdown()
            run.remove()
        }
        try deliver("withdrawn\nThe update stick was removed\n\nsha256=\(Self.hash)\n", to: rig, via: run)
        #expect(message(rig)?.title == "The update stick was removed")
        try rig.idle(5000)
        try rig.press(.playFromStart)
        rig.player.flushSaves()
        #expect(confirmation(run) == nil)
    }

    @Test func anOfferNotTakenInItsTimeGoesAwayAndALaterHoldConfirmsNothing() throws {
        let (rig, run) = try rig(notice: Self.offerText.replacing("seconds=120", with: "seconds=10"))
        defer {
            rig.shutdown()
            run.remove()
        }
        try rig.idle(11_000)
        #expect(message(rig) == nil)
        try rig.press(.playFromStart)
        rig.player.flushSaves()
        #expect(confirmation(run) == nil)
    }

    @Test func anotherButtonDismissesTheOfferWithoutConfirming() throws {
        let (rig, run) = try rig(notice: Self.offerText)
        defer {
            rig.shutdown()
            run.remove()
        }
        try rig.press(.select)
        try rig.press(.playFromStart)
        rig.player.flushSaves()
        #expect(confirmation(run) == nil)
    }

    @Test func malformedOffersAreNoOffers() {
        #expect(UpdateNotice.parse("offer\nUpdate\nx\nversion=1.5\nsha256=abc\n") == nil, "a short hash")
        #expect(UpdateNotice.parse("offer\nUpdate\nx\nversion=1.5 rm -rf\nsha256=\(Self.hash)\n") == nil)
        #expect(UpdateNotice.parse("offer\nUpdate\nx\nsha256=\(Self.hash)\n") == nil, "no version")
        #expect(
            UpdateNotice.parse(Self.offerText) == .offer(UpdateOffer(version: "1.5", sha256: Self.hash, seconds: 120)))
    }
}
