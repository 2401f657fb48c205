// SPDX-License-Identifier: GPL-3.0-or-later
import KioskDisplay
import KioskInput
import KioskLibrary
import KioskModel
import KioskTestSupport
import Testing

@testable import KioskConfig
@testable import KioskCore

/// Exhibit mode in the player, on the fake engine and virtual time: the attract loop, clips on
/// button edges and cards, the return to the attract loop, the staff's volume.
@Suite struct ExhibitPlayerTests {
    static let dawn = "Alpha/First Light/01 Dawn.flac"

    static func rig(
        mode: ExhibitConfig.Mode = .oneShot, attract: Bool = true, edit: (inout ExhibitConfig) -> Void = { _ in }
    ) throws -> PlayerRig {
        try PlayerRig(volumes: [PlayerFixtures.main]) { config in
            var exhibit = ExhibitConfig()
            exhibit.clips = [
                .init(name: "dawn", input: .button("A"), play: .file(Self.dawn), mode: mode),
                .init(name: "wind", input: .card("04A1B2C3"), play: .collection("Second Wind"), mode: .oneShot),
            ]
            if attract {
                exhibit.attract = .init(play: .collection("First Light"), returnAfterSeconds: 5, fadeMs: 800)
            }
            exhibit.volume = .init(initial: 50, min: 30, max: 70, visitorIdleSeconds: 60)
            edit(&exhibit)
            config.exhibit = exhibit
        }
    }

    @Test func theAttractLoopPlaysOnceTheStickIsScannedAndRepeats() throws {
        let rig = try Self.rig()
        #expect(rig.player.status == .playing)
        #expect(rig.player.queue.map(\.album) == ["First Light", "First Light", "First Light"])
        #expect(rig.player.repeatQueue && rig.player.exhibitClip == nil)
    }

    @Test func anAttractLoopBegunWhileTheStickWasScannedStartsOverWhenTheScanFoundAllOfIt() throws {
        let rig = try PlayerRig(volumes: []) { config in
            var exhibit = ExhibitConfig()
            exhibit.attract = .init(play: .collection("First Light"))
            config.exhibit = exhibit
        }
        (rig.library as? FakeLibrary)?.growingScans = true
        rig.library.addVolume(path: PlayerFixtures.main)
        var queues: [[String]] = []
        for _ in 0..<30 {
            try rig.idle(50)
            if queues.last != rig.player.queue.map(\.relativePath) {
                queues.append(rig.player.queue.map(\.relativePath))
            }
        }
        #expect(queues.count == 2, "a part, then the whole: \(queues)")
        #expect(queues.first.map { $0.count < 3 } == true, "the loop began with what was found")
        #expect(rig.player.queue.map(\.album) == ["First Light", "First Light", "First Light"])
        #expect(rig.player.currentTrack == rig.player.queue.first && rig.player.status == .playing, "from its start")
    }

    @Test func aPressPlaysItsClipAndTheAttractLoopReturnsAfterTheSilence() throws {
        let rig = try Self.rig()
        rig.player.exhibitEdge(source: "button A", down: true)
        rig.player.exhibitEdge(source: "button A", down: false)
        #expect(rig.player.exhibitClip == "dawn")
        #expect(rig.player.queue.map(\.relativePath) == [Self.dawn] && rig.player.status == .playing)
        // The 6 s clip ends; 5 s of silence; then the attract loop.
        #expect(try rig.run(seconds: 7) { rig.player.status == .stopped })
        #expect(rig.player.exhibitClip == nil)
        try rig.idle(4000)
        #expect(rig.player.status == .stopped, "still the silence after the clip")
        #expect(try rig.run(seconds: 2) { rig.player.status == .playing })
        #expect(rig.player.queue.count == 3 && rig.player.repeatQueue)
        #expect(rig.fake?.commands.contains("fadeIn 800") == true, "the attract loop rises over its fadeMs")
    }

    @Test func aOneShotClipIgnoresASecondPressWhileItPlays() throws {
        let rig = try Self.rig(mode: .oneShot)
        rig.player.exhibitEdge(source: "button A", down: true)
        try rig.idle(3000)
        let before = rig.player.positionFrames
        rig.player.exhibitEdge(source: "button A", down: false)
        rig.player.exhibitEdge(source: "button A", down: true)
        try rig.idle(100)
        #expect(rig.player.exhibitClip == "dawn" && rig.player.positionFrames >= before, "not started again")
    }

    @Test func aRetriggerClipStartsAgainOnASecondPress() throws {
        let rig = try Self.rig(mode: .retrigger)
        rig.player.exhibitEdge(source: "button A", down: true)
        try rig.idle(3000)
        rig.player.exhibitEdge(source: "button A", down: false)
        rig.player.exhibitEdge(source: "button A", down: true)
        #expect(rig.player.positionFrames == 0 && rig.player.exhibitClip == "dawn")
    }

    @Test func aHoldToPlayClipStopsAtTheRelease() throws {
        let rig = try Self.rig(mode: .holdToPlay)
        rig.player.exhibitEdge(source: "button A", down: true)
        try rig.idle(2000)
        #expect(rig.player.status == .playing && rig.player.exhibitClip == "dawn")
        rig.player.exhibitEdge(source: "button A", down: false)
        #expect(rig.player.status == .stopped && rig.player.exhibitClip == nil)
    }

    @Test func aCardBoundToAClipPlaysItsCollection() throws {
        let rig = try Self.rig()
        rig.player.handle(CardEvent(.presented, uid: CardUID("04A1B2C3")!, source: "test", timestampNs: 0))
        #expect(rig.player.exhibitClip == "wind")
        #expect(rig.player.queue.map(\.album) == ["Second Wind", "Second Wind"])
    }

    @Test func withTheScreenOffAMissingClipStillBlinksTheErrorLight() throws {
        let rig = try Self.rig { exhibit in
            exhibit.clips[0].play = .file("Nowhere/gone.flac")
            exhibit.screen.show = .none
        }
        rig.player.exhibitEdge(source: "button A", down: true)
        #expect(rig.player.view.screen == .off, "the screen stays dark")
        #expect(rig.player.currentLightState == .error)
    }

    @Test func aClipWhoseFileIsMissingSaysSoAndTheAttractLoopGoesOn() throws {
        let rig = try Self.rig { $0.clips[0].play = .file("Nowhere/none.flac") }
        rig.player.exhibitEdge(source: "button A", down: true)
        guard case .message(let message) = rig.player.screenState() else {
            Issue.record("no message: \(rig.player.screenState())")
            return
        }
        #expect(message.title == "Clip missing" && (message.detail ?? "").contains("Nowhere/none.flac"))
        #expect(rig.player.exhibitClip == nil)
        #expect(rig.player.status == .playing && rig.player.queue.count == 3, "the attract loop never stopped")
    }

    @Test func theVisitorsVolumeStaysInTheStaffsRangeAndGoesBackAfterTheyLeave() throws {
        let rig = try Self.rig()
        #expect(rig.player.volume == 50)
        for _ in 0..<10 { try rig.press(.volumeUp) }
        #expect(rig.player.volume == 70, "the staff's ceiling")
        try rig.idle(59_000)
        #expect(rig.player.volume == 70)
        try rig.idle(1500)
        #expect(rig.player.volume == 50, "back to the staff's default a minute after the last press")
    }

    /// Clips are looked up in the language's folder first; its button cycles the languages, and
    /// they go back to the first once the visitor has left.
    @Test func theLanguageButtonSwitchesTheClipSetAndItGoesBackAfterTheVisitorLeft() throws {
        let rig = try Self.rig { exhibit in
            exhibit.clips[0].play = .file("First Light/01 Dawn.flac")
            exhibit.languages = [.init(name: "Alpha", folder: "Alpha"), .init(name: "Beta", folder: "Beta")]
            exhibit.languageInput = .button("D")
        }
        rig.player.exhibitEdge(source: "button A", down: true)
        rig.player.exhibitEdge(source: "button A", down: false)
        #expect(rig.player.queue.map(\.relativePath) == [Self.dawn], "found in the first language's folder")
        rig.player.exhibitEdge(source: "button D", down: true)
        rig.player.exhibitEdge(source: "button D", down: false)
        guard case .message(let message) = rig.player.screenState() else {
            Issue.record("the language is not shown")
            return
        }
        #expect(message.title == "Beta")
        try rig.idle(7000)
        rig.player.exhibitEdge(source: "button A", down: true)
        #expect(rig.player.exhibitClip == nil, "no such clip in Beta's folder")
        try rig.idle(61_000)
        rig.player.exhibitEdge(source: "button A", down: false)
        rig.player.exhibitEdge(source: "button A", down: true)
        #expect(rig.player.exhibitClip == "dawn", "back to the first language")
    }

    @Test func theStaffGetTheMenuThroughTheirChordOnly() throws {
        let rig = try Self.rig()
        rig.player.handle(ActionEvent(action: .menu, repeatCount: 0, source: "button A", timestampNs: 0))
        #expect(rig.player.mode == .nowPlaying)
        rig.player.handle(ActionEvent(action: .menu, repeatCount: 0, source: "chord A+D", timestampNs: 0))
        guard case .menu = rig.player.mode else {
            Issue.record("no menu: \(rig.player.mode)")
            return
        }
    }

    @Test func visitorsHaveNoBrowseOrMenu() throws {
        let rig = try Self.rig()
        try rig.press(.menu)
        try rig.press(.next)
        #expect(rig.player.mode == .nowPlaying)
        #expect(rig.player.queue.count == 3 && rig.player.queueIndex == 0, "the attract loop untouched")
    }
}
