// SPDX-License-Identifier: GPL-3.0-or-later
import KioskDisplay
import KioskModel
import KioskSystem
import Testing

struct ScreenProfileTests {
    func profile(_ json: String) throws(ConfigError) -> ScreenProfile {
        try ScreenProfile.parse(profile: JSONReader.parse(Array(json.utf8), file: "boards/test.json"))
    }

    @Test func fullScreenSectionIsRead() throws {
        let p = try profile(
            """
            {"name": "x", "screen": {"type": "framebuffer", "fbName": "fb_st7789v", "device": "/dev/fb1",
             "rotation": 90, "panel": {"controller": "st7789", "width": 240, "height": 240, "dc": 9}}}
            """)
        #expect(p.type == .framebuffer && p.fbName == "fb_st7789v" && p.device == "/dev/fb1" && p.rotation == 90)
        #expect(p.panel?["controller"]?.string == "st7789")
        #expect(p.spiPanel?.controller == .st7789 && p.spiPanel?.dc == 9)
    }

    @Test func missingSectionGivesTheDefaults() throws {
        #expect(try profile(#"{"name": "x"}"#) == ScreenProfile())
        #expect(
            try profile(#"{"screen": {}}"#) == ScreenProfile(type: .auto, fbName: nil, device: "/dev/fb0", rotation: 0))
    }

    @Test func badValuesNameTheirKeyPath() {
        let cases: [(String, String)] = [
            (#"{"screen": {"rotation": 45}}"#, "boards/test.json: screen.rotation: expected 0, 90, 180 or 270, got 45"),
            (#"{"screen": {"type": "hdmi"}}"#, "boards/test.json: screen.type: expected one of"),
            (#"{"screen": {"devcie": "/dev/fb0"}}"#, "boards/test.json: screen.devcie: unknown key"),
            (#"{"screen": {"device": "fb0"}}"#, "screen.device: expected an absolute path"),
            (#"{"screen": {"panel": 3}}"#, "screen.panel: expected an object"),
            (#"{"screen": {"panel": {"controller": "st7789"}}}"#, "screen.panel.width: required"),
            (#"{"screen": {"type": "spi"}}"#, "screen.panel: required for a screen of type \"spi\""),
            (#"{"screen": []}"#, "screen: expected an object"),
        ]
        for (json, message) in cases {
            do {
                _ = try profile(json)
                Issue.record("\(json) should be refused")
            } catch {
                #expect(error.description.hasPrefix(message) || error.description.contains(message), "\(error)")
            }
        }
    }
}

struct StateJSONTests {
    func parse(_ screen: String, _ json: String?) throws(ConfigError) -> ScreenState {
        try ScreenState.parse(
            screen: screen,
            json.map { text throws(ConfigError) in try JSONReader.parse(Array(text.utf8), file: "--state") })
    }

    @Test func eachScreenParsesItsState() throws {
        let playing = try parse(
            "now-playing",
            #"{"title": "T", "artist": "A", "elapsedSeconds": 5, "totalSeconds": 60, "playback": "paused", "queuePosition": 2, "queueCount": 3, "volumeOverlay": 40}"#
        )
        #expect(
            playing
                == .nowPlaying(
                    NowPlayingState(
                        title: "T", artist: "A", elapsedSeconds: 5, totalSeconds: 60, playback: .paused,
                        queuePosition: 2,
                        queueCount: 3, volumeOverlay: 40)))
        let browse = try parse(
            "browse", #"{"categoryLabel": "Artists", "items": [{"title": "X", "subtitle": "Y"}], "selectedIndex": 0}"#)
        #expect(
            browse == .browse(BrowseState(categoryLabel: "Artists", items: [BrowseItem(title: "X", subtitle: "Y")])))
        let help = try parse("help", #"{"title": "Keys", "entries": [{"control": "A", "action": "Play"}], "page": 1}"#)
        #expect(help == .help(HelpState(title: "Keys", entries: [HelpEntry(control: "A", action: "Play")], page: 1)))
        #expect(
            try parse("message", #"{"title": "Hi", "kind": "error"}"#)
                == .message(MessageState(title: "Hi", kind: .error)))
        #expect(
            try parse(
                "exhibit", #"{"prompt": "Push", "clipTitle": "Keeper", "totalSeconds": 60, "language": "Deutsch"}"#)
                == .exhibit(
                    ExhibitScreenState(prompt: "Push", clipTitle: "Keeper", totalSeconds: 60, language: "Deutsch")))
        #expect(try parse("exhibit", nil) == .exhibit(SampleScreens.exhibitAttract))
        #expect(try parse("off", nil) == .off)
        #expect(try parse("now-playing", nil) == .nowPlaying(SampleScreens.nowPlaying))
    }

    @Test func mistakesNameTheKeyPath() {
        let cases: [(String, String?, String)] = [
            ("now-playing", #"{"titel": "x"}"#, "--state: titel: unknown key"),
            ("now-playing", #"{"playback": "spinning"}"#, "--state: playback: expected one of"),
            ("browse", #"{"items": [{"title": "a"}, {"subtitle": "b"}]}"#, "--state: items[1].title: required"),
            ("help", #"{"entries": [{"control": "A"}]}"#, "--state: entries[0].action: required"),
            ("message", #"{}"#, "--state: title: required"),
            ("exhibit", #"{"clip": "x"}"#, "--state: clip: unknown key"),
            ("clock", nil, "unknown screen \"clock\""),
        ]
        for (screen, json, message) in cases {
            do {
                _ = try parse(screen, json)
                Issue.record("\(screen) \(json ?? "") should be refused")
            } catch {
                #expect(error.description.hasPrefix(message), "\(error)")
            }
        }
    }
}
