// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// The `bedtime` object of config.json: docs/configuration.md's example, what check-config prints,
/// and bad values refused with a message that names the key.
struct BedtimeConfigTests {
    static let example = #"""
        {"bedtime": {
          "windows": [{"days": "mon-fri", "open": "07:00", "close": "07:45"},
                      {"days": "mon-fri", "open": "16:00", "close": "19:30"},
                      {"days": "sat,sun", "open": "08:00", "close": "20:00"}],
          "wake": "06:30", "silentFrom": "21:00",
          "allowed": [{"folder": "Lullabies"}, {"card": "04A2B3C4"}],
          "dailyMinutes": 90, "resetAt": "04:00",
          "oneMore": "track", "warningMinutes": 2
        }}
        """#

    @Test func theDocumentedExampleParses() throws {
        let bedtime = try #require(try ConfigText.parse(Self.example).bedtime)
        #expect(bedtime.windows.count == 3 && bedtime.windows[2].days == [0, 6])
        #expect(bedtime.wake == 6 * 60 + 30 && bedtime.silentFrom == 21 * 60)
        #expect(bedtime.items == [.folder("Lullabies"), .card(CardUID("04A2B3C4")!)])
        #expect(bedtime.dailyMinutes == 90 && bedtime.resetAt == 4 * 60 && bedtime.oneMore == .track)
        #expect(bedtime.warningMinutes == 2 && bedtime.speak)
    }

    @Test func theSilentNightRunsPastMidnight() throws {
        let bedtime = try #require(try ConfigText.parse(Self.example).bedtime)
        #expect(bedtime.isSilent(minute: 21 * 60) && bedtime.isSilent(minute: 3 * 60))
        #expect(!bedtime.isSilent(minute: 6 * 60 + 30) && !bedtime.isSilent(minute: 20 * 60 + 59))
    }

    @Test func anAllowedFolderHoldsTheTracksUnderItOnly() {
        let folder = BedtimeConfig.Item.folder("Lullabies")
        #expect(folder.admits(relativePath: "Lullabies/Moon.flac"))
        #expect(!folder.admits(relativePath: "Lullabies and more/Moon.flac"))
        #expect(BedtimeConfig.Item.track("Stories/Moon.mp3").admits(relativePath: "Stories/Moon.mp3"))
    }

    @Test func oneMoreIsATrackOrMinutes() throws {
        #expect(try ConfigText.parse(#"{"bedtime": {"oneMore": {"minutes": 10}}}"#).bedtime?.oneMore == .minutes(10))
        #expect(
            ConfigText.error(#"{"bedtime": {"oneMore": 2}}"#)?.contains("bedtime.oneMore: expected \"track\"") == true)
    }

    @Test func badValuesAreRefusedNamingTheKey() {
        let cases: [(String, String)] = [
            (#"{"windows": [{"days": "mon-fri", "open": "7:00", "close": "19:30"}]}"#, "bedtime.windows[0].open:"),
            (#"{"windows": [{"days": "monday", "open": "07:00", "close": "19:30"}]}"#, "bedtime.windows[0].days:"),
            (#"{"windows": []}"#, "bedtime.windows: expected at least one window"),
            (#"{"wake": "25:00"}"#, "bedtime.wake: expected a time"),
            (#"{"silentFrom": "21:00"}"#, "bedtime.silentFrom: needs \"wake\""),
            (#"{"wake": "21:00", "silentFrom": "21:00"}"#, "bedtime.wake: the same as silentFrom"),
            (#"{"dailyMinutes": 0}"#, "bedtime.dailyMinutes:"),
            (#"{"resetAt": "noon"}"#, "bedtime.resetAt: expected a time"),
            (#"{"warningMinutes": 31}"#, "bedtime.warningMinutes:"),
            (#"{"allowed": [{"card": "not a card!"}]}"#, "bedtime.allowed[0].card: expected a card number"),
            (#"{"allowed": [{"folder": "../etc"}]}"#, "bedtime.allowed[0].folder:"),
            (#"{"allowed": [{"folder": "A", "track": "B"}]}"#, "bedtime.allowed[0].folder: expected exactly one"),
            (#"{"bedtimes": 1}"#, "bedtime.bedtimes: unknown key"),
        ]
        for (body, expected) in cases {
            let message = ConfigText.error(#"{"bedtime": "# + body + "}") ?? "no error"
            #expect(message.contains(expected), "\(body): \(message)")
        }
    }

    @Test func bedtimeRulesAreNotForAnExhibit() {
        let message = ConfigText.error(#"{"exhibit": {}, "bedtime": {"dailyMinutes": 30}}"#)
        #expect(message?.contains("bedtime: not with exhibit mode") == true)
    }

    @Test func checkConfigShowsTheRules() throws {
        let board = try BoardProfile.load(file: TestPaths.repository + "/boards/rpi4.json")
        let resolved = ResolvedConfig(config: try ConfigText.parse(Self.example), board: board).json()
        let text = try #require(resolved.object?.first { $0.key == "bedtime" }?.value).serialized(pretty: false)
        #expect(text.contains(#""days":"mon,tue,wed,thu,fri","open":"16:00","close":"19:30""#), "\(text)")
        #expect(text.contains(#""wake":"06:30","silentFrom":"21:00""#))
        #expect(text.contains(#""allowed":[{"folder":"Lullabies"},{"card":"04A2B3C4"}]"#))
        #expect(text.contains(#""oneMore":"track""#) && text.contains(#""dailyMinutes":90"#))
    }
}
