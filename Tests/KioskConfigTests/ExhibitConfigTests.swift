// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem
import Testing

/// The `exhibit` object of config.json: the shape of the issue's example, and errors that name the key.
@Suite struct ExhibitConfigTests {
    static let example = #"""
        {"exhibit": {
           "clips": [
             {"name": "welcome", "input": {"button": "A"}, "play": "Clips/01 Welcome.flac", "mode": "oneShot"},
             {"name": "story", "input": {"card": "0004561234"}, "play": {"collection": "The Story"},
              "mode": "retrigger", "interrupts": "none"},
             {"name": "handset", "input": {"key": "KEY_1"}, "play": "Clips/03.flac", "mode": "holdToPlay", "interrupts": "all"}],
           "attract": {"play": {"collection": "Attract"}, "returnAfterSeconds": 5, "fadeMs": 800},
           "languages": [{"name": "English", "folder": "en"}, {"name": "Deutsch", "folder": "de"}],
           "hours": [{"days": "mon-fri", "open": "09:00", "close": "17:30"}, {"days": "sat,sun", "open": "10:00", "close": "18:00"}],
           "volume": {"default": 50, "min": 30, "max": 70, "visitorIdleSeconds": 60}}}
        """#

    @Test func theDocumentedExampleIsReadWhole() throws {
        let exhibit = try #require(try ConfigText.parse(Self.example).exhibit)
        #expect(exhibit.clips.map(\.name) == ["welcome", "story", "handset"])
        #expect(exhibit.clips[0].input == .button("A") && exhibit.clips[0].play == .file("Clips/01 Welcome.flac"))
        #expect(exhibit.clips[1].input == .card("0004561234") && exhibit.clips[1].play == .collection("The Story"))
        #expect(exhibit.clips[1].mode == .retrigger && exhibit.clips[1].interrupts == .none)
        #expect(exhibit.clips[2].input == .key("KEY_1") && exhibit.clips[2].mode == .holdToPlay)
        #expect(exhibit.attract == .init(play: .collection("Attract"), returnAfterSeconds: 5, fadeMs: 800))
        #expect(exhibit.languages.map(\.folder) == ["en", "de"])
        #expect(
            exhibit.hours.count == 2 && exhibit.hours[0].days == [1, 2, 3, 4, 5] && exhibit.hours[1].days == [0, 6])
        #expect(exhibit.hours[0].open == 9 * 60 && exhibit.hours[0].close == 17 * 60 + 30)
        #expect(exhibit.volume.initial == 50 && exhibit.volume.min == 30 && exhibit.volume.max == 70)
    }

    @Test func aClipDefaultsToOneShotInterruptingAll() throws {
        let exhibit = try #require(
            try ConfigText.parse(
                #"{"exhibit": {"clips": [{"name": "a", "input": {"button": "A"}, "play": "a.flac"}]}}"#
            ).exhibit)
        #expect(exhibit.clips[0].mode == .oneShot && exhibit.clips[0].interrupts == .all)
        #expect(try ConfigText.parse("{}").exhibit == nil, "off unless configured")
    }

    @Test func aClipOrTheAttractLoopMayPlayAWholeFolder() throws {
        let exhibit = try #require(
            try ConfigText.parse(#"{"exhibit": {"attract": {"play": {"folder": "Attract loop"}}}}"#).exhibit)
        #expect(exhibit.attract?.play == .folder("Attract loop"))
        #expect(
            ConfigText.error(#"{"exhibit": {"attract": {"play": {"folder": "/etc"}}}}"#)
                == #"config.json: exhibit.attract.play.folder: "/etc" must be a path inside the stick (relative, no "..")"#
        )
    }

    @Test func aSticksStationNeedsClipsAndKeepsTheConfigsHoursAndVolume() throws {
        var base = ExhibitConfig()
        base.hours = [OpeningHours(days: [1], open: 600, close: 700)]
        base.volume.max = 60
        let station = try ExhibitConfig.stickStation(
            JSONReader.parse(
                Array(#"{"clips": [{"name": "a", "input": {"button": "A"}, "play": "a.flac"}]}"#.utf8),
                file: "/media/x/exhibit.json"),
            over: base)
        #expect(station.clips.count == 1 && station.hours == base.hours && station.volume.max == 60)
        do {
            _ = try ExhibitConfig.stickStation(
                JSONReader.parse(Array(#"{"clips": []}"#.utf8), file: "/media/x/exhibit.json"), over: base)
            Issue.record("a station without clips was taken")
        } catch {
            #expect(error.description == "/media/x/exhibit.json: clips: a station needs at least one clip")
        }
    }

    @Test func theScreenShowsTheLayoutUnlessSetToNoneAndTheCuratorsPrompt() throws {
        #expect(
            try ConfigText.parse(#"{"exhibit": {}}"#).exhibit?.screen == .init(show: .layout, prompt: "Press a button"))
        #expect(
            try ConfigText.parse(#"{"exhibit": {"screen": "none"}}"#).exhibit?.screen.show
                == ExhibitConfig.Screen.Show.none)
        let exhibit = try #require(
            try ConfigText.parse(
                #"{"exhibit": {"screen": {"prompt": "Drück einen Knopf"}, "languages": [{"name": "English", "folder": "en", "prompt": "Press any button"}]}}"#
            ).exhibit)
        #expect(exhibit.screen == .init(show: .layout, prompt: "Drück einen Knopf"))
        #expect(exhibit.languages[0].prompt == "Press any button")
    }

    @Test func aPromptTooLongForAScreenNamesItsKey() {
        let long = String(repeating: "Press ", count: 25)
        #expect(
            ConfigText.error(#"{"exhibit": {"screen": {"prompt": "\#(long)"}}}"#)
                == "config.json: exhibit.screen.prompt: 150 characters is too long for the screen (at most 120)")
        #expect(
            ConfigText.error(#"{"exhibit": {"screen": {"promt": "Hello"}}}"#)?.hasPrefix(
                "config.json: exhibit.screen.promt: unknown key") == true)
    }

    @Test(arguments: [
        (
            #"{"exhibit": {"clips": [{"name": "a", "input": {"button": "A"}, "play": "a.flac", "mode": "loop"}]}}"#,
            #"config.json: exhibit.clips[0].mode: expected one of "oneShot", "retrigger", "holdToPlay", "toggle", got "loop""#
        ),
        (
            #"{"exhibit": {"clips": [{"name": "a", "input": {"button": "A"}, "play": "../etc/passwd"}]}}"#,
            #"config.json: exhibit.clips[0].play: "../etc/passwd" must be a path inside the stick (relative, no "..")"#
        ),
        (
            #"{"exhibit": {"clips": [{"name": "a", "input": {"button": "A"}, "play": "a.flac"}, {"name": "b", "input": {"button": "A"}, "play": "b.flac"}]}}"#,
            #"config.json: exhibit.clips[1].input: button A already plays "a""#
        ),
        (
            #"{"exhibit": {"clips": [{"name": "a", "input": {"button": "A"}, "play": "a.flac", "interrupts": ["c"]}]}}"#,
            #"config.json: exhibit.clips[0].interrupts: no clip is named "c""#
        ),
        (
            #"{"exhibit": {"clips": [{"name": "a", "input": {"button": "A", "key": "KEY_1"}, "play": "a.flac"}]}}"#,
            #"config.json: exhibit.clips[0].input.button: expected exactly one of "button", "key" or "card""#
        ),
        (
            #"{"exhibit": {"hours": [{"days": "mon-fry", "open": "09:00", "close": "17:00"}]}}"#,
            #"config.json: exhibit.hours[0].days: expected days such as "mon-fri", "sat,sun" or "daily", got "mon-fry""#
        ),
        (
            #"{"exhibit": {"hours": [{"days": "daily", "open": "9:00", "close": "17:00"}]}}"#,
            #"config.json: exhibit.hours[0].open: expected a time "HH:MM" (00:00…23:59)"#
        ),
        (
            #"{"exhibit": {"volume": {"default": 80, "min": 30, "max": 70}}}"#,
            "config.json: exhibit.volume.default: 80 is outside min…max (30…70)"
        ),
        (
            #"{"exhibit": {"restartAt": "4:00"}}"#,
            #"config.json: exhibit.restartAt: expected a time "HH:MM" (00:00…23:59), got "4:00""#
        ),
        (
            #"{"exhibit": {"attract": {"returnAfterSeconds": 5}}}"#,
            #"config.json: exhibit.attract.play: the attract loop needs "play""#
        ),
        (
            #"{"exhibit": {"screen": "off"}}"#,
            #"config.json: exhibit.screen: expected one of "layout", "none", got "off""#
        ),
        (
            #"{"exhibit": {"screen": true}}"#,
            #"config.json: exhibit.screen: expected "layout", "none" or {"show": …, "prompt": …}, got true"#
        ),
        (
            #"{"exhibit": {"screen": {"show": "dark"}}}"#,
            #"config.json: exhibit.screen.show: expected one of "layout", "none", got "dark""#
        ),
        (
            #"{"exhibit": {"screen": {"prompt": "   "}}}"#,
            "config.json: exhibit.screen.prompt: expected text to show, got only spaces"
        ),
        (
            #"{"exhibit": {"screen": {"prompt": 5}}}"#,
            "config.json: exhibit.screen.prompt: expected a string, got 5"
        ),
        (
            #"{"exhibit": {"languages": [{"name": "A", "folder": "a"}, {"name": "B", "folder": "b", "prompt": ""}]}}"#,
            "config.json: exhibit.languages[1].prompt: expected a non-empty string"
        ),
    ])
    func aBadExhibitConfigNamesTheKey(text: String, message: String) {
        #expect(ConfigText.error(text) == message)
    }
}

/// Opening hours on local wall-clock time (weekday 0 = Sunday, minutes since midnight).
@Suite struct OpeningHoursTests {
    static let weekdays = OpeningHours(days: [1, 2, 3, 4, 5], open: 9 * 60, close: 17 * 60 + 30)

    @Test func openFromTheOpeningMinuteUntilJustBeforeClosingOnItsDays() {
        #expect(!Self.weekdays.isOpen(weekday: 1, minute: 9 * 60 - 1))
        #expect(Self.weekdays.isOpen(weekday: 1, minute: 9 * 60))
        #expect(Self.weekdays.isOpen(weekday: 5, minute: 17 * 60 + 29))
        #expect(!Self.weekdays.isOpen(weekday: 5, minute: 17 * 60 + 30))
        #expect(!Self.weekdays.isOpen(weekday: 6, minute: 12 * 60), "not on Saturday")
    }

    @Test func hoursPastMidnightBelongToTheDayTheyBegan() {
        let friday = OpeningHours(days: [5], open: 18 * 60, close: 2 * 60)
        #expect(friday.isOpen(weekday: 5, minute: 23 * 60))
        #expect(friday.isOpen(weekday: 6, minute: 60), "Saturday 01:00 is Friday night")
        #expect(!friday.isOpen(weekday: 6, minute: 2 * 60))
        #expect(!friday.isOpen(weekday: 5, minute: 60), "Friday 01:00 is Thursday night: closed")
    }

    @Test func noHoursMeansAlwaysOpenAndAnyLineOpens() {
        #expect(OpeningHours.isOpen([], weekday: 0, minute: 0))
        let weekend = OpeningHours(days: [0, 6], open: 10 * 60, close: 18 * 60)
        #expect(OpeningHours.isOpen([Self.weekdays, weekend], weekday: 0, minute: 11 * 60))
        #expect(!OpeningHours.isOpen([Self.weekdays, weekend], weekday: 0, minute: 9 * 60))
    }
}
