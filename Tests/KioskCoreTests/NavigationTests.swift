// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import Testing

@testable import KioskCore

/// The navigation part on its own, no loop, no engine and no catalog: what each action does on
/// each screen, as the screen it moves to and what the player must do (`PlayerEffect`).
struct NavigationTests {
    private static func press(_ action: Action, steps: Int = 1) -> ActionEvent {
        ActionEvent(action: action, steps: steps, source: "button A", timestampNs: 0)
    }

    /// A navigation on screen `mode`.
    private static func on(_ mode: PlayerMode) -> Navigation {
        var navigation = Navigation()
        _ = navigation.handle(.show(mode))
        return navigation
    }

    /// The menu of a box whose doctor found nothing: seven entries (output, repeat, shuffle, sleep,
    /// help, cards, close).
    private let context = Navigation.Context()

    // MARK: - now playing

    @Test func nowPlayingNextAndPreviousAreTheButtonsCommands() {
        var navigation = Self.on(.nowPlaying)
        #expect(navigation.handle(.action(Self.press(.next), context)) == [.command(.next)])
        #expect(navigation.handle(.action(Self.press(.previous), context)) == [.command(.previous)])
        #expect(navigation.mode == .nowPlaying)
    }

    @Test func nowPlayingPlayPauseTogglesOnEveryScreenAlike() {
        var navigation = Self.on(.nowPlaying)
        #expect(navigation.handle(.action(Self.press(.playPause), context)) == [.command(.togglePause)])
    }

    @Test func aHeldNextOnNowPlayingSeeks() {
        var navigation = Self.on(.nowPlaying)
        let held = ActionEvent(action: .seekForward, repeatCount: 2, source: "button A", timestampNs: 9)
        #expect(navigation.handle(.action(held, context)) == [.seekByHold(held)])
    }

    @Test func selectOnNowPlayingOpensTheBrowseListWithoutAMoveToSay() {
        var navigation = Self.on(.nowPlaying)
        #expect(navigation.handle(.action(Self.press(.select), context)) == [.browseArtwork])
        #expect(navigation.mode == .browse)
    }

    @Test func downOnNowPlayingOpensTheBrowseListAndSaysTheMove() {
        var navigation = Self.on(.nowPlaying)
        #expect(navigation.handle(.action(Self.press(.down), context)) == [.noteMove, .browseArtwork])
        #expect(navigation.mode == .browse)
    }

    @Test func playFromStartOnNowPlayingStartsTheQueueAgain() {
        var navigation = Self.on(.nowPlaying)
        #expect(navigation.handle(.action(Self.press(.playFromStart), context)) == [.playFromStart])
    }

    @Test func aCategoryChangeWithNothingToBrowseStaysOnNowPlaying() {
        var navigation = Self.on(.nowPlaying)
        #expect(navigation.handle(.action(Self.press(.nextCategory), context)).isEmpty)
        #expect(navigation.mode == .nowPlaying)
    }

    // MARK: - browse

    @Test func selectInBrowsePlaysTheSelectionWhereItsBookmarkLeftIt() {
        var navigation = Self.on(.browse)
        #expect(navigation.handle(.action(Self.press(.select), context)) == [.playSelection(fromStart: false)])
    }

    @Test func playFromStartInBrowsePlaysTheSelectionFromItsStart() {
        var navigation = Self.on(.browse)
        #expect(navigation.handle(.action(Self.press(.playFromStart), context)) == [.playSelection(fromStart: true)])
    }

    @Test func aHeldNextInBrowseMovesTheSelection() {
        var navigation = Self.on(.browse)
        #expect(navigation.handle(.action(Self.press(.seekForward), context)) == [.noteMove, .browseArtwork])
    }

    @Test func backInBrowseReturnsToNowPlaying() {
        var navigation = Self.on(.browse)
        #expect(navigation.handle(.action(Self.press(.back), context)).isEmpty)
        #expect(navigation.mode == .nowPlaying)
    }

    // MARK: - help

    @Test func helpPagesTurnAndStopAtTheLastPage() {
        var navigation = Self.on(.help(page: 0))
        var context = self.context
        context.helpPages = 2
        _ = navigation.handle(.action(Self.press(.next), context))
        #expect(navigation.mode == .help(page: 1))
        _ = navigation.handle(.action(Self.press(.next), context))
        #expect(navigation.mode == .help(page: 1))
    }

    @Test func stopOnHelpStopsPlaybackAndLeavesThePageOpen() {
        var navigation = Self.on(.help(page: 1))
        #expect(navigation.handle(.action(Self.press(.stop), context)) == [.command(.stop)])
        #expect(navigation.mode == .help(page: 1))
    }

    // MARK: - menu

    @Test func theMenuSelectionWrapsAtTheTop() {
        var navigation = Self.on(.menu(selected: 0))
        _ = navigation.handle(.action(Self.press(.previous), context))
        #expect(navigation.mode == .menu(selected: 6))
    }

    @Test func selectOnRepeatTogglesItAsTheButtonsDo() {
        var navigation = Self.on(.menu(selected: 1))
        var context = self.context
        context.repeatQueue = true
        #expect(navigation.handle(.action(Self.press(.select), context)) == [.command(.setRepeat(false))])
    }

    @Test func selectOnOutputShuffleAndSleepChoosesTheirNextSetting() {
        var navigation = Self.on(.menu(selected: 0))
        #expect(navigation.handle(.action(Self.press(.select), context)) == [.chooseNextOutput])
        _ = navigation.handle(.show(.menu(selected: 2)))
        #expect(navigation.handle(.action(Self.press(.select), context)) == [.cycleShuffle])
        _ = navigation.handle(.show(.menu(selected: 3)))
        #expect(navigation.handle(.action(Self.press(.select), context)) == [.cycleSleepTimer])
    }

    @Test func theSetupCheckEntryOpensItsPageOnlyWhenTheMenuHasIt() {
        var without = Self.on(.menu(selected: 6))
        _ = without.handle(.action(Self.press(.select), context))
        #expect(without.mode == .nowPlaying, "entry 6 is Close")
        var with = Self.on(.menu(selected: 6))
        var context = self.context
        context.hasSetupCheck = true
        _ = with.handle(.action(Self.press(.select), context))
        #expect(with.mode == .setupCheck(selected: 0))
    }

    // MARK: - cards

    @Test func holdingSelectOnACardUnlinksIt() {
        var navigation = Self.on(.cards(selected: 0))
        var context = self.context
        context.linkedCards = 2
        #expect(navigation.handle(.action(Self.press(.playFromStart), context)) == [.unlinkCard(row: 0)])
    }

    @Test func selectOnACardSaysHowToUnlinkIt() {
        var navigation = Self.on(.cards(selected: 0))
        var context = self.context
        context.linkedCards = 1
        #expect(
            navigation.handle(.action(Self.press(.select), context)) == [
                .overlays(.show(MessageState(title: "Hold Select to unlink this card"), seconds: 3))
            ])
    }

    @Test func selectOnCloseLeavesTheCardsScreen() {
        var navigation = Self.on(.cards(selected: 1))
        var context = self.context
        context.linkedCards = 1
        #expect(navigation.handle(.action(Self.press(.select), context)).isEmpty)
        #expect(navigation.mode == .nowPlaying)
    }

    @Test func backFromTheCardsScreenReturnsToItsMenuEntry() {
        var navigation = Self.on(.cards(selected: 0))
        _ = navigation.handle(.action(Self.press(.back), context))
        #expect(navigation.mode == .menu(selected: 5))
    }

    // MARK: - setup check

    @Test func playFromStartOnTheSetupCheckReturnsToItsMenuEntry() {
        var navigation = Self.on(.setupCheck(selected: 0))
        var context = self.context
        context.setupCheckEntries = 3
        _ = navigation.handle(.action(Self.press(.playFromStart), context))
        #expect(navigation.mode == .menu(selected: 6))
    }
}
