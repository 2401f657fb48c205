// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// Settings a parent changes from the phone page (`Player.changeSettings`): checked by the config's
/// parser, kept as imported settings for the next start, the volume's limits in force at once.
@Suite final class PhoneSettingsTests {
    /// Where the config file is (removed after each test).
    let files: TemporaryDirectory

    init() throws { files = try TemporaryDirectory("kiosk-phone-settings") }
    deinit { files.remove() }

    /// A player whose config file says `volumeMax: max` (the settings are checked over the file).
    private func rig(max: Int = 100, volume: Int = 80) throws -> PlayerRig {
        try files.write("config.json", #"{"volumeMax": \#(max)}"#)
        let file = files.file("config.json")
        return try PlayerRig(volumes: []) {
            $0.file = file
            $0.volumeLimits = VolumeLimits(0...max)
            $0.volume = volume
        }
    }

    private func object(_ json: String) -> JSONValue { try! JSONValue.parse(json) }

    /// The settings the next start applies, from the state directory's imported settings.
    private func kept(_ rig: PlayerRig) throws -> JSONValue? {
        rig.player.flushSaves()
        let file = try Syscalls.readFile(rig.player.config.file)
        let (merged, outcome) = ImportedSettings.applying(toConfig: file, stateDirectory: rig.state.path)
        guard case .applied = outcome else { return nil }
        return try merged.map { try JSONValue.parse($0) }
    }

    /// What the player says when it refuses `json` (nil: it took it). `#expect(throws:)` returns the
    /// error only from Swift 6.1; Debian's 6.0.3 builds these tests too.
    private func refusal(_ rig: PlayerRig, _ json: String) -> String? {
        do throws(PhoneRequestError) {
            _ = try rig.player.changeSettings(object(json), by: "s")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func loweringTheVolumeLimitBringsTheVolumeDownAtOnce() throws {
        let rig = try rig(volume: 80)
        let outcome = try rig.player.changeSettings(object(#"{"volumeMax": 60}"#), by: "session 1")
        #expect(outcome.now == ["volumeMax"] && outcome.nextStart.isEmpty)
        #expect(rig.player.volume == 60 && rig.fake?.volume == 60)
        try rig.press(.volumeUp)
        #expect(rig.player.volume == 60, "the buttons stop at the new limit")
        #expect(rig.player.phoneSettings.first { $0.name == "volumemax" }?.value == "60")
    }

    @Test func theChangeIsKeptForTheNextStart() throws {
        let rig = try rig()
        _ = try rig.player.changeSettings(object(#"{"volumeMax": 60, "idlePowerOffMinutes": 30}"#), by: "s")
        let next = try #require(try kept(rig))
        let config = try Config.parse(Array(next.serialized().utf8), file: "next start")
        #expect(config.volumeLimits.range == 0...60 && config.idlePowerOffMinutes == 30)
    }

    @Test func aValueTheConfigRefusesChangesNothing() throws {
        let rig = try rig(max: 80, volume: 70)
        #expect(throws: PhoneRequestError.self) { try rig.player.changeSettings(object(#"{"volumeMax": 0}"#), by: "s") }
        #expect(refusal(rig, #"{"volumeMin": 90}"#)?.contains("volumeMin") == true)
        #expect(rig.player.volume == 70)
        #expect(try kept(rig) == nil, "nothing written")
    }

    @Test func onlyThePagesKeysAreTaken() throws {
        let rig = try rig()
        #expect(refusal(rig, #"{"board": "pirate-audio"}"#) == "board is not set from the phone")
    }

    @Test func speechMembersChangeOneByOneAndNullGoesBackToTheDefault() throws {
        let rig = try rig()
        let first = try rig.player.changeSettings(object(#"{"speech": {"mode": "off"}}"#), by: "s")
        #expect(first.now.isEmpty && first.nextStart == ["speech"])
        _ = try rig.player.changeSettings(object(#"{"speech": {"language": "de"}}"#), by: "s")
        #expect(try kept(rig) == object(#"{"volumeMax": 100, "speech": {"mode": "off", "language": "de"}}"#))
        _ = try rig.player.changeSettings(object(#"{"speech": {"mode": null}}"#), by: "s")
        #expect(try kept(rig) == object(#"{"volumeMax": 100, "speech": {"language": "de"}}"#))
    }

    /// A box playing Alpha's album at 20:00 on a Monday, its config file without bedtime rules.
    private func playingAtEight() throws -> (PlayerRig, RigWallClock) {
        try files.write("config.json", "{}")
        let file = files.file("config.json")
        let time = RigWallClock(start: TestZone.epoch(2026, 12, 7, 20, 0))
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], wallClock: time.clock) { $0.file = file }
        time.virtual = rig.clock
        try PlayerBedtimeTests.select(rig, album: "Second Wind")
        #expect(try rig.run { rig.player.status == .playing })
        return (rig, time)
    }

    @Test func bedtimeRulesFromThePageApplyAtOnceAndStopWhatTheyRefuse() throws {
        let (rig, _) = try playingAtEight()
        defer { rig.shutdown() }
        let outcome = try rig.player.changeSettings(
            object(#"{"bedtime": {"windows": [{"days": "daily", "open": "16:00", "close": "19:30"}]}}"#), by: "s")
        #expect(outcome.now == ["bedtime"] && outcome.nextStart.isEmpty)
        #expect(rig.player.status == .stopped, "20:00 is outside the new window")
        #expect(
            rig.player.screenState()
                == .message(MessageState(title: "Sleep time", detail: "The box plays again at 16:00")))
        try PlayerBedtimeTests.select(rig, album: "Second Wind")
        #expect(rig.player.status == .stopped, "a new start is refused too")
        let shown = try #require(rig.player.phoneSettings.first { $0.name == "bedtime" }?.value)
        #expect(shown.contains(#""open":"16:00""#) && shown.contains(#""close":"19:30""#))
    }

    @Test func bedtimeRulesSetToNullAreOffAtOnceAndForTheNextStart() throws {
        let (rig, _) = try playingAtEight()
        defer { rig.shutdown() }
        _ = try rig.player.changeSettings(
            object(#"{"bedtime": {"windows": [{"days": "daily", "open": "16:00", "close": "19:30"}]}}"#), by: "s")
        _ = try rig.player.changeSettings(object(#"{"bedtime": null}"#), by: "s")
        try PlayerBedtimeTests.select(rig, album: "Second Wind")
        #expect(try rig.run { rig.player.status == .playing })
        #expect(rig.player.phoneSettings.first { $0.name == "bedtime" }?.value == "null")
        let next = try #require(try kept(rig))
        #expect(try Config.parse(Array(next.serialized().utf8), file: "next start").bedtime == nil)
    }

    @Test func bedtimeRulesTheConfigRefusesChangeNothing() throws {
        let (rig, _) = try playingAtEight()
        defer { rig.shutdown() }
        let refused = refusal(
            rig, #"{"bedtime": {"windows": [{"days": "someday", "open": "16:00", "close": "19:30"}]}}"#)
        #expect(refused?.contains("bedtime.windows[0].days") == true, "\(refused ?? "taken")")
        #expect(rig.player.status == .playing)
        #expect(rig.player.phoneSettings.first { $0.name == "bedtime" }?.value == "null")
    }
}
