// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskCore
import KioskMPD
import Testing

/// The box's own commands the phone page uses for its settings and its box check, as a client on
/// the socket sees them.
@Suite(.tags(.integration), .serialized) struct PhoneCommandsTests {
    @Test func theBoxCheckSaysNothingUntilItFinishedThenEachProblemWithItsFix() throws {
        let h = try Harness()
        let before = try h.withClient { try $0.command("kioskproblems") }
        #expect(before == ["checked: 0", "OK"])
        h.player.setSetupProblems([
            .init(text: "sound: no card named Headphones", fix: "dtparam=audio=on in config.txt"),
            .init(text: "power: under-voltage seen", fix: nil),
        ])
        let after = try h.withClient { try $0.command("kioskproblems") }
        #expect(
            after == [
                "checked: 1", "problem: sound: no card named Headphones", "fix: dtparam=audio=on in config.txt",
                "problem: power: under-voltage seen", "OK",
            ])
    }

    @Test func aSettingTheConfigRefusesIsAnErrorNamingIt() throws {
        let h = try Harness()
        let refused = try h.withClient { try $0.command(#"kiosksettingsset "{\"volumeMax\": 0}" "session 1""#) }
        #expect(
            refused.count == 1 && refused[0].hasPrefix("ACK [2@0] {kiosksettingsset}")
                && refused[0].contains("volumeMax"))
        let taken = try h.withClient { try $0.command(#"kiosksettingsset "{\"volumeMax\": 55}" "session 1""#) }
        #expect(taken == ["now: volumeMax", "OK"])
        let settings = try h.withClient { try $0.pairs("kiosksettings") }
        #expect(settings["volumemax"] == "55")
        #expect(try h.withClient { try $0.pairs("kioskstate") }["volumemax"] == "55")
    }
}
