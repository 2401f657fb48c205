// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import KioskHardware
import KioskInput
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// Card readers through the input manager: the RC522 polled on its thread against a simulated chip,
/// USB readers' keys replayed as recorded, cards from scripts, the profile entries and their errors.
@Suite struct CardReaderTests {
    /// A board with a button, a keypad on evdev, a USB reader and an RC522.
    static let profile = """
        {"buttons": [{"name": "A", "line": 5, "press": "play-pause", "longPress": "play-from-start"}],
         "evdev": [{"device": "kiosk-test-keypad", "keys": {"KEY_1": "next", "KEY_ENTER": "select"}}],
         "cardReaders": [{"type": "usb", "device": "kiosk-test-usb-reader"},
                         {"type": "rc522", "spiBus": 0, "spiCS": 1, "pollMs": 50}]}
        """

    final class Cards {
        var events: [CardEvent] = []
        var summary: [String] { events.map { "\($0.kind == .presented ? "+" : "-")\($0.uid)" } }
    }

    private func harness(_ sim: SimulatedMFRC522? = nil) throws -> (ManagerHarness, Cards) {
        let h = try ManagerHarness(Self.profile)
        let cards = Cards()
        h.manager.onCard = { cards.events.append($0) }
        h.manager.evdevDirectory = "/nonexistent-kiosk-test"
        h.manager.evdevRetryMs = 60_000
        if let sim { h.manager.openRC522Bus = { @Sendable () throws(HardwareError) -> any SPIBus in sim } }
        return (h, cards)
    }

    @Test(.tags(.integration)) func anRC522CardIsPresentedWhenPutOnAndRemovedWhenTakenOff() throws {
        let sim = SimulatedMFRC522()
        let (h, cards) = try harness(sim)
        h.manager.startCardReaders()
        try h.loop.run(
            until: { h.raw.contains { $0.contains("connected (version 0x92)") } }, timeoutNanoseconds: 5_000_000_000)
        sim.place(.init(uid: [0x04, 0xA2, 0xB3, 0xC4, 0xD5, 0xE6, 0xF7]))
        try h.loop.run(until: { !cards.events.isEmpty }, timeoutNanoseconds: 5_000_000_000)
        // It stays: no second presentation over several polls.
        try h.loop.run(forNanoseconds: 300_000_000)
        #expect(cards.summary == ["+04A2B3C4D5E6F7"])
        #expect(cards.events.first?.source == "rc522 /dev/spidev0.1")
        sim.place(nil)
        try h.loop.run(until: { cards.events.count == 2 }, timeoutNanoseconds: 5_000_000_000)
        #expect(cards.summary == ["+04A2B3C4D5E6F7", "-04A2B3C4D5E6F7"])
        #expect(h.raw.contains("rc522 /dev/spidev0.1: card 04A2B3C4D5E6F7 presented"))
        #expect(h.actions.isEmpty)
    }

    @Test(.tags(.integration)) func aGarbledReplyOnceDoesNotRemoveTheCard() throws {
        let sim = SimulatedMFRC522()
        let (h, cards) = try harness(sim)
        h.manager.startCardReaders()
        sim.place(.init(uid: [1, 2, 3, 4]))
        try h.loop.run(until: { !cards.events.isEmpty }, timeoutNanoseconds: 5_000_000_000)
        sim.place(.init(uid: [1, 2, 3, 4], fault: .garbage([0x13, 0x37])))
        try h.loop.run(forNanoseconds: 70_000_000)
        sim.place(.init(uid: [1, 2, 3, 4]))
        try h.loop.run(forNanoseconds: 300_000_000)
        #expect(cards.summary == ["+01020304"])
        #expect(h.raw.contains { $0.contains("unreadable card") })
    }

    @Test func aMissingRC522IsReportedByNameAndTheOtherInputsWork() throws {
        let sim = SimulatedMFRC522(path: "/dev/spidev0.1")
        sim.setAnswers(false)
        let (h, cards) = try harness(sim)
        h.manager.startCardReaders()
        try h.loop.run(until: { h.manager.problems.count == 2 }, timeoutNanoseconds: 5_000_000_000)
        #expect(h.manager.problems.contains { $0.contains("no MFRC522 answers on /dev/spidev0.1") })
        #expect(h.manager.problems.contains { $0.contains("the usb reader") || $0.contains("kiosk-test-usb-reader") })
        h.manager.inject(.line(offset: 5, active: true), at: Recording.ns(0))
        h.manager.inject(.line(offset: 5, active: false), at: Recording.ns(50))
        h.manager.advance(to: Recording.ns(200))
        #expect(h.actions.map(\.action) == [.playPause])
        // Wired again: found at the next retry (5 s; not waited for here), and cards come.
        #expect(cards.events.isEmpty)
    }

    @Test func anOptionalRC522ThatIsNotThereIsANoteNotAProblem() throws {
        let sim = SimulatedMFRC522(path: "/dev/spidev0.0")
        sim.setAnswers(false)
        let h = try ManagerHarness(
            #"{"cardReaders": [{"type": "rc522", "spiCS": 0, "pollMs": 50, "optional": true}]}"#)
        h.manager.openRC522Bus = { @Sendable () throws(HardwareError) -> any SPIBus in sim }
        h.manager.startCardReaders()
        try h.loop.run(
            until: { h.raw.contains { $0.hasPrefix("card reader (optional): ") } }, timeoutNanoseconds: 5_000_000_000)
        #expect(h.manager.problems.isEmpty)
        #expect(h.raw.contains { $0.contains("no MFRC522 answers on /dev/spidev0.0") })
    }

    @Test func aUSBReadersKeysAreCardNumbersAndNeverActions() throws {
        let (h, cards) = try harness()
        h.manager.startCardReaders()
        // A recorded swipe: "0004561234" and Enter, each key down and up 8 ms apart, with the
        // keypad's KEY_1 and KEY_ENTER among them, which the keypad maps to next and select.
        var script = ""
        var t = 0.0
        for key in [
            "KEY_0", "KEY_0", "KEY_0", "KEY_4", "KEY_5", "KEY_6", "KEY_1", "KEY_2", "KEY_3", "KEY_4", "KEY_ENTER",
        ] {
            script += "{\"t\": \(t), \"evdev\": \"\(key)\", \"value\": 1, \"device\": \"kiosk-test-usb-reader\"}\n"
            script += "{\"t\": \(t + 4), \"evdev\": \"\(key)\", \"value\": 0, \"device\": \"kiosk-test-usb-reader\"}\n"
            t += 8
        }
        let parsed = try EventScript.parse(Array(script.utf8), file: "swipe.jsonl", profile: h.manager.profile)
        #expect(parsed.events.allSatisfy { if case .cardReaderKey(reader: 0, _, _) = $0.kind { true } else { false } })
        var done = false
        h.manager.startScript(parsed) { done = true }
        try h.loop.run(until: { done }, timeoutNanoseconds: 5_000_000_000)
        h.manager.advance(to: Syscalls.monotonicNanoseconds() + 2_000_000_000)
        #expect(cards.summary == ["+0004561234"])
        #expect(h.actions.isEmpty, "the reader's keys reached actions: \(h.actions)")
    }

    @Test func scriptsPresentAndRemoveCards() throws {
        let (h, cards) = try harness()
        let script = """
            {"t": 0, "card": "04a2b3c4d5"}
            {"t": 10, "cardRemoved": true}
            {"t": 20, "card": "0001"}
            {"t": 30, "cardRemoved": "0001"}
            """
        var done = false
        try h.manager.startScript(EventScript.parse(Array(script.utf8), file: "s", profile: h.manager.profile)) {
            done = true
        }
        try h.loop.run(until: { done }, timeoutNanoseconds: 5_000_000_000)
        #expect(cards.summary == ["+04A2B3C4D5", "-04A2B3C4D5", "+0001", "-0001"])
        #expect(cards.events.allSatisfy { $0.source == "script" })
    }

    @Test(arguments: [
        (#"{"t": 0, "card": "x/y"}"#, "s:1: card: expected a card number"),
        (#"{"t": 0, "cardRemoved": 3}"#, "s:1: cardRemoved: expected a card number, or true"),
        (#"{"t": 0, "card": "1", "key": "n"}"#, "has both \"key\" and \"card\""),
    ])
    func badCardLinesOfAScriptAreNamed(line: String, message: String) throws {
        let profile = try InputProfile.parse(
            try JSONReader.parse(Array(Self.profile.utf8), file: "box.json"), settings: InputSettings())
        #expect {
            try EventScript.parse(Array(line.utf8), file: "s", profile: profile)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func theProfileDescribesItsReaders() throws {
        let profile = try InputProfile.parse(
            try JSONReader.parse(Array(Self.profile.utf8), file: "box.json"), settings: InputSettings())
        #expect(profile.cardReaders == [.usb(device: "kiosk-test-usb-reader"), .rc522(RC522Config.with(pollMs: 50))])
        let lines = profile.describe(settings: InputSettings())
        #expect(lines.contains("card reader usb \"kiosk-test-usb-reader\" (grabbed: its keys are card numbers only)"))
        #expect(lines.contains("card reader rc522 on /dev/spidev0.1 at 1000 kHz, polled every 50 ms"))
    }

    @Test(arguments: [
        (#"[{"type": "nfc"}]"#, "cardReaders[0].type"),
        (#"[{"type": "usb"}]"#, "cardReaders[0].device: required"),
        (#"[{"type": "rc522", "reset": 5}]"#, "line 5 is already used by button A"),
        (#"[{"type": "rc522"}, {"type": "rc522", "device": "/dev/spidev0.1"}]"#, "already used by the reader at"),
        (#"[{"type": "rc522", "pollMs": 5}]"#, "cardReaders[0].pollMs"),
        (#"[{"type": "usb", "device": "kiosk-test-keypad"}]"#, "is also an evdev input"),
    ])
    func badReaderEntriesAreNamed(readers: String, message: String) {
        let json = """
            {"buttons": [{"name": "A", "line": 5, "press": "play-pause"}],
             "evdev": [{"device": "kiosk-test-keypad", "keys": {"KEY_1": "next"}}], "cardReaders": \(readers)}
            """
        #expect {
            try InputProfile.parse(try JSONReader.parse(Array(json.utf8), file: "box.json"), settings: InputSettings())
        } throws: { error in
            "\(error)".contains(message)
        }
    }
}

extension RC522Config {
    static func with(pollMs: Int) -> RC522Config {
        var config = RC522Config()
        config.pollMs = pollMs
        return config
    }
}
