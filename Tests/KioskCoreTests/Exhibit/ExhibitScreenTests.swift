// SPDX-License-Identifier: GPL-3.0-or-later
import KioskDisplay
import KioskInput
import KioskLibrary
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskConfig
@testable import KioskCore

/// What exhibit mode puts on the screen: the attract card, the clip playing, the language, dark
/// outside opening hours or with `screen: "none"`, the staff's menu behind its chord. On the fake
/// engine and virtual time (the rigs of `ExhibitPlayerTests` and `ExhibitHoursTests`).
@Suite struct ExhibitScreenTests {
    /// The exhibit screen now, or a recorded issue naming what shows instead.
    static func exhibitScreen(_ rig: PlayerRig, sourceLocation: SourceLocation = #_sourceLocation)
        -> ExhibitScreenState?
    {
        guard case .exhibit(let screen) = rig.player.screenState() else {
            Issue.record("not the exhibit screen: \(rig.player.screenState())", sourceLocation: sourceLocation)
            return nil
        }
        return screen
    }

    @Test func theAttractCardInvitesAPressWhileTheAttractLoopPlays() throws {
        let rig = try ExhibitPlayerTests.rig()
        #expect(rig.player.status == .playing)
        let screen = try #require(Self.exhibitScreen(rig))
        #expect(screen.clipTitle == nil && screen.prompt == "Press a button")
        #expect(screen.language == nil, "one clip set: no language to tell apart")
    }

    @Test func theAttractCardAlsoShowsInTheSilenceOfAnExhibitWithoutAnAttractLoop() throws {
        let rig = try ExhibitPlayerTests.rig(attract: false)
        #expect(rig.player.status == .stopped)
        #expect(Self.exhibitScreen(rig)?.clipTitle == nil)
    }

    @Test func aClipPlayingShowsItsTitleTagAndProgressThenTheCardComesBack() throws {
        let rig = try ExhibitPlayerTests.rig()
        rig.player.exhibitEdge(source: "button A", down: true)
        let start = try #require(Self.exhibitScreen(rig))
        #expect(start.clipTitle == "Dawn", "the track's TITLE, not the clip's name \"dawn\"")
        #expect(start.totalSeconds == 6 && start.elapsedSeconds < 0.5)
        try rig.idle(3000)
        let later = try #require(Self.exhibitScreen(rig))
        #expect(later.elapsedSeconds >= 2.5 && later.elapsedSeconds <= 3.5, "elapsed \(later.elapsedSeconds)")
        #expect(try rig.run(seconds: 5) { rig.player.exhibitClip == nil })
        let after = try #require(Self.exhibitScreen(rig))
        #expect(after.clipTitle == nil && after.totalSeconds == nil, "the card again once the clip ended")
    }

    @Test func aClipWhoseFileHasNoTitleTagShowsTheClipsName() throws {
        let stick = try TemporaryDirectory("kiosk-exhibit-untagged")
        defer { stick.remove() }
        try SyntheticLibrary.writeFLAC(path: stick.file("Talks/keeper-v2.flac"), tags: [], seconds: 2)
        let rig = try PlayerRig(volumes: [stick.path]) { config in
            var exhibit = ExhibitConfig()
            exhibit.clips = [
                .init(name: "The Lighthouse Keeper", input: .button("A"), play: .file("Talks/keeper-v2.flac"))
            ]
            config.exhibit = exhibit
        }
        rig.player.exhibitEdge(source: "button A", down: true)
        #expect(rig.player.exhibitClip == "The Lighthouse Keeper")
        #expect(Self.exhibitScreen(rig)?.clipTitle == "The Lighthouse Keeper")
    }

    @Test func theLanguageShowsOnlyWhenThereAreSeveral() throws {
        let one = try ExhibitPlayerTests.rig { $0.languages = [.init(name: "Alpha", folder: "Alpha")] }
        #expect(Self.exhibitScreen(one)?.language == nil)
        let two = try ExhibitPlayerTests.rig { exhibit in
            exhibit.languages = [.init(name: "Alpha", folder: "Alpha"), .init(name: "Beta", folder: "Beta")]
        }
        #expect(Self.exhibitScreen(two)?.language == "Alpha")
        two.player.exhibitEdge(source: "button A", down: true)
        #expect(Self.exhibitScreen(two)?.language == "Alpha", "and while a clip plays")
    }

    /// The card speaks the visitor's language: a language's own prompt replaces the exhibit's.
    @Test func theLanguageButtonSwitchesTheCardsLanguageAndPrompt() throws {
        let rig = try ExhibitPlayerTests.rig { exhibit in
            exhibit.screen.prompt = "Press a button"
            exhibit.languages = [
                .init(name: "English", folder: "Alpha"),
                .init(name: "Deutsch", folder: "Beta", prompt: "Drück einen Knopf"),
            ]
            exhibit.languageInput = .button("D")
        }
        #expect(Self.exhibitScreen(rig)?.prompt == "Press a button")
        rig.player.exhibitEdge(source: "button D", down: true)
        try rig.idle(2100)
        let screen = try #require(Self.exhibitScreen(rig))
        #expect(screen.language == "Deutsch" && screen.prompt == "Drück einen Knopf")
    }

    @Test func theVisitorsVolumeShowsOverTheCardWithTheStaffsRange() throws {
        let rig = try ExhibitPlayerTests.rig()
        try rig.press(.volumeUp)
        let screen = try #require(Self.exhibitScreen(rig))
        #expect(screen.volumeOverlay == 55 && screen.volumeRange == 30...70)
    }

    @Test func visitorsNeverSeeBrowseOrTheMenu() throws {
        let rig = try ExhibitPlayerTests.rig()
        try rig.press(.menu)
        try rig.press(.nextCategory)
        #expect(Self.exhibitScreen(rig) != nil)
    }

    @Test func theStaffsChordStillShowsTheMenuAndLeavingItShowsTheCard() throws {
        let rig = try ExhibitPlayerTests.rig()
        rig.player.handle(ActionEvent(action: .menu, repeatCount: 0, source: "chord A+D", timestampNs: 0))
        guard case .browse(let menu) = rig.player.screenState() else {
            Issue.record("no menu: \(rig.player.screenState())")
            return
        }
        #expect(menu.categoryLabel == "Menu")
        try rig.press(.back)
        #expect(Self.exhibitScreen(rig) != nil)
    }

    @Test func withScreenNoneTheScreenStaysDarkButTheStaffStillGetTheMenu() throws {
        let rig = try ExhibitPlayerTests.rig { $0.screen.show = .none }
        #expect(rig.player.screenState() == .off)
        rig.player.exhibitEdge(source: "button A", down: true)
        #expect(rig.player.exhibitClip == "dawn" && rig.player.screenState() == .off, "a clip plays in the dark")
        rig.player.handle(ActionEvent(action: .menu, repeatCount: 0, source: "chord A+D", timestampNs: 0))
        guard case .browse(let menu) = rig.player.screenState() else {
            Issue.record("no menu: \(rig.player.screenState())")
            return
        }
        #expect(menu.categoryLabel == "Menu")
    }

    @Test func outsideOpeningHoursTheScreenIsOffAndComesBackAtOpening() throws {
        let wall = TestWallClock()
        wall.minute.store(8 * 60 + 59, ordering: .relaxed)
        let rig = try ExhibitHoursTests.rig(wall, hours: [ExhibitHoursTests.weekdays9to17])
        rig.player.exhibitClock = wall.clock
        try ExhibitHoursTests.scan(rig)
        // "Closed" for a moment, then dark.
        try rig.idle(10_500)
        #expect(rig.player.screenState() == .off, "closed at 08:59")
        wall.minute.store(9 * 60, ordering: .relaxed)
        try rig.idle(61_000)
        #expect(Self.exhibitScreen(rig)?.clipTitle == nil, "the attract card at 09:00")
        wall.minute.store(17 * 60, ordering: .relaxed)
        // Within the minute the hours are looked at again.
        _ = try rig.run(seconds: 61) { rig.player.status == .stopped }
        guard case .message(let closing) = rig.player.screenState() else {
            Issue.record("no closing message: \(rig.player.screenState())")
            return
        }
        #expect(closing.title == "Closed")
        try rig.idle(10_500)
        #expect(rig.player.screenState() == .off, "dark again after 17:00")
    }
}
