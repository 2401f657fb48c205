// SPDX-License-Identifier: GPL-3.0-or-later
import KioskHardware
import KioskInput
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// The RC522 driver against a register-level simulated chip: the ISO 14443A sequences for each UID
/// size, the checks on every reply, and what a missing chip, a card that leaves mid-read and
/// garbage on the bus give.
@Suite struct MFRC522Tests {
    private func chip(_ card: SimulatedMFRC522.Card?, version: UInt8 = 0x92) throws -> (MFRC522, SimulatedMFRC522) {
        let sim = SimulatedMFRC522(version: version)
        sim.place(card)
        let driver = MFRC522(bus: sim)
        try driver.initialize()
        return (driver, sim)
    }

    @Test func crcAMatchesTheStandardsExamples() {
        // ISO/IEC 14443-3 annex B: CRC_A of 00 00 is A0 1E; HLTA (50 00) is followed by 57 CD.
        #expect(ISO14443A.crc([0x00, 0x00]) == [0xA0, 0x1E])
        #expect(ISO14443A.crc([0x50, 0x00]) == [0x57, 0xCD])
        #expect(ISO14443A.crc([0x93, 0x70, 1, 2, 3, 4, 4]) == SimulatedMFRC522.crc([0x93, 0x70, 1, 2, 3, 4, 4]))
    }

    @Test func initializeResetsTheChipAndTurnsTheAntennaOn() throws {
        let (driver, sim) = try chip(nil)
        #expect(driver.version == 0x92)
        #expect(sim.transfers.first == [0x01 << 1, 0x0F], "a soft reset first")
        #expect(sim.register(0x14) & 0x03 == 0x03, "TX1 and TX2 drive the antenna")
        #expect(sim.register(0x15) == 0x40, "100 % ASK")
        #expect([sim.register(0x2C), sim.register(0x2D)] == [0x03, 0xE8], "a 25 ms reply timeout")
    }

    @Test(arguments: [
        [0x04, 0xA2, 0xB3, 0xC4] as [UInt8],
        [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66],
        [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99],
    ])
    func readsTheWholeUIDOfEachSize(uid: [UInt8]) throws {
        let (driver, sim) = try chip(.init(uid: uid))
        #expect(try driver.readCard() == uid)
        // Halted at the end, and woken again by the next read's WUPA: the card stays seen.
        #expect(try driver.readCard() == uid)
        let selects = sim.transfers.filter { $0.count == 10 && $0[0] == 0x09 << 1 && $0[2] == 0x70 }
        #expect(selects.count == 2 * (uid.count == 4 ? 1 : uid.count == 7 ? 2 : 3), "one select per cascade level")
    }

    @Test func noCardInTheFieldReadsAsNone() throws {
        let (driver, _) = try chip(nil)
        #expect(try driver.readCard() == nil)
    }

    @Test func aBusWithNoChipOnItIsNamedWithWhatToCheck() {
        let sim = SimulatedMFRC522(path: "/dev/spidev0.1")
        sim.setAnswers(false)
        #expect {
            try MFRC522(bus: sim).initialize()
        } throws: { error in
            guard let error = error as? CardReadError, case .noChip(let message) = error else { return false }
            return message.contains("/dev/spidev0.1") && message.contains("0xFF") && message.contains("MISO")
        }
    }

    @Test func aCardThatLeavesMidReadIsNotHalfRead() throws {
        let (driver, _) = try chip(.init(uid: [1, 2, 3, 4, 5, 6, 7], fault: .leavesAfter(frames: 2)))
        #expect(throws: CardReadError.cardLeft) { try driver.readCard() }
    }

    @Test(arguments: [
        SimulatedMFRC522.Card.Fault.badBCC, .badCRC, .garbage([0xDE, 0xAD, 0xBE]), .garbage([]), .parityError,
    ])
    func damagedRepliesAreRefusedWithTheReason(fault: SimulatedMFRC522.Card.Fault) throws {
        let (driver, _) = try chip(.init(uid: [0x04, 0xA2, 0xB3, 0xC4], fault: fault))
        #expect {
            try driver.readCard()
        } throws: { error in
            guard let error = error as? CardReadError, case .badReply = error else { return false }
            return "\(error)".hasPrefix("unreadable card: ")
        }
    }

    @Test func aBusThatFailsIsABusError() throws {
        let (driver, sim) = try chip(.init(uid: [1, 2, 3, 4]))
        sim.fail("/dev/spidev-sim: SPI transfer of 2 bytes failed: No such device")
        #expect(throws: CardReadError.bus("/dev/spidev-sim: SPI transfer of 2 bytes failed: No such device")) {
            try driver.readCard()
        }
    }
}

/// Cards on a polled reader: presented once, removed after two empty polls, replaced.
@Suite struct CardPresenceTests {
    private let a = CardUID("04A2B3C4")!
    private let b = CardUID("11223344")!

    @Test func aCardIsPresentedOnceWhileItStays() {
        var presence = CardPresence()
        #expect(presence.observe(a).map { "\($0.0) \($0.1)" } == ["presented 04A2B3C4"])
        #expect(presence.observe(a).isEmpty)
        #expect(presence.observe(a).isEmpty)
    }

    @Test func oneMissedPollIsNotARemoval() {
        var presence = CardPresence()
        _ = presence.observe(a)
        #expect(presence.observe(nil).isEmpty)
        #expect(presence.observe(a).isEmpty)
        #expect(presence.observe(nil).isEmpty)
        #expect(presence.observe(nil).map { "\($0.0) \($0.1)" } == ["removed 04A2B3C4"])
    }

    @Test func anotherCardReplacesTheFirst() {
        var presence = CardPresence()
        _ = presence.observe(a)
        #expect(presence.observe(b).map { "\($0.0) \($0.1)" } == ["removed 04A2B3C4", "presented 11223344"])
    }
}

/// Card numbers: normalised, and refused when they cannot be a key.
@Suite struct CardUIDTests {
    @Test func lettersAreUpperCaseAndSeparatorsDropped() {
        #expect(CardUID("04:a2:b3:c4")?.rawValue == "04A2B3C4")
        #expect(CardUID("0004561234")?.rawValue == "0004561234")
        #expect(CardUID(bytes: [0x04, 0xA2, 0x0B]).rawValue == "04A20B")
    }

    @Test(arguments: ["", "04A2/..", "ü123", String(repeating: "1", count: 33)])
    func anythingElseIsRefused(text: String) {
        #expect(CardUID(text) == nil)
    }
}
