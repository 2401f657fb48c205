// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskCore
import KioskMPD
import KioskSystem
import Testing

/// The box's own commands the phone page uses for its settings and its box check, as a client on
/// the socket sees them.
@Suite(.tags(.integration), .serialized) struct PhoneCommandsTests {
    @Test func theBoxCheckSaysNothingUntilItFinishedThenEachProblemWithItsFixThenEveryLine() throws {
        let h = try Harness()
        let before = try h.withClient { try $0.command("kioskproblems") }
        #expect(before == ["checked: 0", "OK"])
        h.player.setSetupCheck([
            .init(group: "board", status: .pass, text: "Raspberry Pi 4 Model B", fix: nil),
            .init(
                group: "sound", status: .fail, text: "no card named Headphones", fix: "dtparam=audio=on in config.txt"),
            .init(group: "power", status: .fail, text: "under-voltage seen", fix: nil),
            .init(group: "usb", status: .info, text: "no stick", fix: "plug in a stick of music"),
        ])
        let after = try h.withClient { try $0.command("kioskproblems") }
        #expect(
            after == [
                "checked: 1", "problem: no card named Headphones", "fix: dtparam=audio=on in config.txt",
                "problem: under-voltage seen",
                "line: pass", "group: board", "text: Raspberry Pi 4 Model B",
                "line: fail", "group: sound", "text: no card named Headphones",
                "linefix: dtparam=audio=on in config.txt",
                "line: fail", "group: power", "text: under-voltage seen",
                "line: info", "group: usb", "text: no stick", "linefix: plug in a stick of music", "OK",
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

    /// `text` as `kiosksetpiece` lines of at most `bytes` bytes each, hexadecimal.
    static func pieces(_ text: String, bytes: Int = 3072) -> [String] {
        let all = Array(text.utf8)
        return stride(from: 0, to: all.count, by: bytes).map { start in
            "kiosksetpiece " + Hex.encode(all[start..<min(start + bytes, all.count)])
        }
    }

    static let stopCardSet = #"""
        {"format": "kiosk-player-set", "version": 1,
         "cards": {"0000000007": {"action": "stop"}, "0000000008": {"action": "next"}},
         "bookmarks": [], "settings": {"volumeMax": 70}}
        """#

    @Test func aSetGivenInPiecesIsCheckedWithoutChangingAnythingThenImported() throws {
        let h = try Harness()
        let checked = try h.withClient { c in
            for line in Self.pieces(Self.stopCardSet, bytes: 40) { #expect(try c.command(line) == ["OK"]) }
            return try c.command(#"kiosksetimport check "session 1""#)
        }
        #expect(checked == ["summary: 2 cards, 0 bookmarks, settings", "OK"])
        #expect(try h.withClient { try $0.command("kioskcards") } == ["OK"])

        let imported = try h.withClient { c in
            for line in Self.pieces(Self.stopCardSet) { _ = try c.command(line) }
            return try c.command(#"kiosksetimport import "session 1""#)
        }
        #expect(imported == ["summary: 2 cards, 0 bookmarks, settings", "OK"])
        let cards = try h.withClient { try $0.command("kioskcards") }
        #expect(cards.contains("card: 0000000007") && cards.contains("action: stop"))
        #expect(cards.contains("card: 0000000008") && cards.contains("action: next"))
    }

    @Test func theExportedSetIsTheStickFileAndAnotherBoxTakesItBack() throws {
        let first = try Harness()
        _ = try first.withClient { c in
            for line in Self.pieces(Self.stopCardSet) { _ = try c.command(line) }
            return try c.command(#"kiosksetimport import "session 1""#)
        }
        let answer = try first.withClient { try $0.command("kioskset") }
        #expect(answer.last == "OK" && answer.dropLast().allSatisfy { $0.hasPrefix("piece: ") })
        let text = answer.dropLast().map { String($0.dropFirst("piece: ".count)) }.joined()
        let set = try JSONValue.parse(Array(text.utf8))
        #expect(set.object?.first { $0.key == "format" }?.value == .string("kiosk-player-set"))

        let second = try Harness()
        let taken = try second.withClient { c in
            for line in Self.pieces(text) { _ = try c.command(line) }
            return try c.command(#"kiosksetimport import "session 2""#)
        }
        #expect(taken.first?.hasPrefix("summary: 2 cards, 0 bookmarks") == true)
        #expect(try second.withClient { try $0.command("kioskcards") }.contains("action: next"))
    }

    @Test func aBrokenSetIsRefusedNamingWhereAndNothingChanges() throws {
        let h = try Harness()
        let broken = try h.withClient { c in
            for line in Self.pieces(
                #"{"format": "kiosk-player-set", "version": 1, "cards": {"0000000007": {"action": "fly"}}}"#)
            {
                _ = try c.command(line)
            }
            return try c.command(#"kiosksetimport import "session 1""#)
        }
        #expect(
            broken.count == 1 && broken[0].hasPrefix("ACK [2@0] {kiosksetimport} the set from the phone: ")
                && broken[0].contains("cards.0000000007.action: unknown action"))
        #expect(try h.withClient { try $0.command("kioskcards") } == ["OK"])
        // The pieces were used up: an import with none given is refused.
        let none = try h.withClient { try $0.command(#"kiosksetimport import "session 1""#) }
        #expect(none.count == 1 && none[0].contains("no set given"))
    }

    @Test func piecesThatAreNotHexOrGrowPastTheLimitAreRefusedAndForgotten() throws {
        let h = try Harness()
        let notHex = try h.withClient { try $0.command("kiosksetpiece 7g") }
        #expect(notHex.count == 1 && notHex[0].contains("hexadecimal"))
        let tooMuch = try h.withClient { c -> [String] in
            let piece = "kiosksetpiece " + String(repeating: "20", count: 3072)
            var last: [String] = []
            for _ in 0...(Player.phoneSetLimit / 3072) {
                last = try c.command(piece)
                if last != ["OK"] { break }
            }
            let after = try c.command(#"kiosksetimport check "session 1""#)
            return last + after
        }
        #expect(
            tooMuch.count == 2 && tooMuch[0].contains("larger than 1024 KiB") && tooMuch[1].contains("no set given"))
    }
}
