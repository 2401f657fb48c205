// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import Testing

@testable import KioskCore

/// The card session on its own, no loop and no engine: what the playing card's removal and absence
/// do, and what the player must do about it (`PlayerEffect`).
struct CardSessionTests {
    private let card = CardUID(bytes: [0x04, 0xA2, 0xB3, 0xC4])
    private let other = CardUID(bytes: [0x04, 0x01, 0x02, 0x03])

    /// A session whose card `card` started what plays (no links file: the directory is not there).
    private func playingCard() -> CardSession {
        var session = CardSession(directory: "/nonexistent/kiosk-card-session-tests")
        _ = session.handle(.started(card))
        return session
    }

    @Test func thePlayingCardTakenOffPausesAndPuttingItBackWillResume() {
        var session = playingCard()
        #expect(
            session.handle(.removed(card, status: .playing, pauses: true, stopAfterMinutes: nil)) == [
                .transport(.pause)
            ])
        #expect(session.pausedByRemoval)
    }

    @Test func withAStopTimeTheCountdownStartsBeforeThePause() {
        var session = playingCard()
        #expect(
            session.handle(.removed(card, status: .playing, pauses: true, stopAfterMinutes: 5)) == [
                .timers(.cardAway(minutes: 5)), .transport(.pause),
            ])
    }

    @Test func withRemovedNothingOnlyTheCountdownRuns() {
        var session = playingCard()
        #expect(
            session.handle(.removed(card, status: .playing, pauses: false, stopAfterMinutes: 5)) == [
                .timers(.cardAway(minutes: 5))
            ])
        #expect(!session.pausedByRemoval)
    }

    @Test func aPausedCardTakenOffStartsTheCountdownButIsNotMarkedPausedByIt() {
        var session = playingCard()
        #expect(
            session.handle(.removed(card, status: .paused, pauses: true, stopAfterMinutes: 5)) == [
                .timers(.cardAway(minutes: 5))
            ])
        #expect(!session.pausedByRemoval)
    }

    @Test func anotherCardTakenOffDoesNothing() {
        var session = playingCard()
        #expect(session.handle(.removed(other, status: .playing, pauses: true, stopAfterMinutes: 5)).isEmpty)
    }

    @Test func nothingHappensWhenStopped() {
        var session = playingCard()
        #expect(session.handle(.removed(card, status: .stopped, pauses: true, stopAfterMinutes: 5)).isEmpty)
    }

    @Test func theCardStayingAwayStopsWhatItPaused() {
        var session = playingCard()
        _ = session.handle(.removed(card, status: .playing, pauses: true, stopAfterMinutes: 5))
        #expect(session.handle(.stayedAway(status: .paused, minutes: 5)) == [.stopPlayback, .redraw])
        #expect(!session.pausedByRemoval, "putting it back later does not resume")
    }

    @Test func theCardStayingAwayAfterSomethingElseWasChosenDoesNothing() {
        var session = playingCard()
        _ = session.handle(.forgotten)
        #expect(session.handle(.stayedAway(status: .playing, minutes: 5)).isEmpty)
    }

    @Test func choosingSomethingElseForgetsTheCardAndEndsItsCountdown() {
        var session = playingCard()
        #expect(session.handle(.forgotten) == [.timers(.cardBack)])
        #expect(session.playing == nil)
    }

    // MARK: - a card shown

    private let album = CardCollection(
        volumeID: "v1", volumeLabel: "KIDS", category: .album, key: "v1\u{1F}Album", name: "Album")

    private func present(
        _ session: inout CardSession, _ uid: CardUID, link: CardLink?, status: PlaybackStatus = .playing,
        queuePlaysIt: Bool = true
    ) -> CardSession.Presentation {
        session.presented(uid, link: link, status: status) { _ in queuePlaysIt }
    }

    @Test func anUnlinkedCardIsOfferedALink() {
        var session = playingCard()
        #expect(present(&session, other, link: nil) == .offerLink)
    }

    @Test func aCardLinkedToAnActionActsLikeTheButton() {
        var session = CardSession(directory: "/nonexistent/kiosk-card-session-tests")
        #expect(present(&session, card, link: .action(.next)) == .act(.next))
    }

    @Test func anotherCardsCollectionPlays() {
        var session = playingCard()
        #expect(present(&session, other, link: .collection(album)) == .play(album))
    }

    @Test func thePlayingCardShownAgainIsTheAgainRule() {
        var session = playingCard()
        #expect(present(&session, card, link: .collection(album)) == .again)
    }

    @Test func thePlayingCardWhoseQueueWasReplacedPlaysItsCollectionAgain() {
        var session = playingCard()
        #expect(present(&session, card, link: .collection(album), queuePlaysIt: false) == .play(album))
    }

    @Test func thePlayingCardPutBackAfterItsRemovalPausedResumesOnce() {
        var session = playingCard()
        _ = session.handle(.removed(card, status: .playing, pauses: true, stopAfterMinutes: nil))
        #expect(present(&session, card, link: .collection(album), status: .paused) == .resume)
        #expect(!session.pausedByRemoval)
        #expect(present(&session, card, link: .collection(album), status: .paused) == .again)
    }

    @Test func aOneTrackCardTappedAgainPlaysItsNextTrack() {
        var session = playingCard()
        var oneTrack = album
        oneTrack.mode = .trackPerTap
        #expect(present(&session, card, link: .collection(oneTrack), queuePlaysIt: false) == .play(oneTrack))
    }

    @Test func aOneTrackCardPutBackOnTheTrackItPausedResumesIt() {
        var session = playingCard()
        var oneTrack = album
        oneTrack.mode = .trackPerTap
        _ = session.handle(.removed(card, status: .playing, pauses: true, stopAfterMinutes: nil))
        #expect(
            present(&session, card, link: .collection(oneTrack), status: .paused, queuePlaysIt: false) == .resume)
    }

    // MARK: - its state, changed only by events

    @Test func aCardWaitingForItsStickIsForgottenWhenSomethingElseIsChosen() {
        var session = CardSession(directory: "/nonexistent/kiosk-card-session-tests")
        _ = session.handle(.waitsForItsStick(card, album, since: 5))
        #expect(session.waiting?.uid == card)
        _ = session.handle(.forgotten)
        #expect(session.waiting == nil)
    }

    @Test func aCardLinkedToWhatPlaysBecomesThePlayingCard() {
        var session = CardSession(directory: "/nonexistent/kiosk-card-session-tests")
        let message = MessageState(title: "New card: album")
        _ = session.handle(.prompts(CardPrompt(uid: card, collection: album, message: message)))
        _ = session.handle(.linked(card, playsNow: true))
        #expect(session.prompt == nil)
        #expect(session.playing == card)
    }

    @Test func unlinkingThePlayingCardLeavesNoPlayingCard() {
        var session = playingCard()
        _ = session.handle(.unlinked(other))
        #expect(session.playing == card)
        _ = session.handle(.unlinked(card))
        #expect(session.playing == nil)
    }
}
