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
        session.playing = card
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
}
