// SPDX-License-Identifier: GPL-3.0-or-later
import KioskHardware
import KioskModel
import KioskSystem

/// An NXP MFRC522 (the "RC522" module) on SPI, at register level: soft reset and set-up, and the
/// ISO/IEC 14443-3 type A sequence that reads a card's UID — WUPA, then anticollision and select
/// for each cascade level (4-, 7- and 10-byte UIDs), then HLTA.
///
/// The chip's CRC coprocessor is not used: CRC_A is computed here (`ISO14443A.crc`), so every
/// frame on the wire is checked the same way, and a reply with a wrong BCC or CRC is refused with
/// a message saying so (noise on long jumper wires is common).
///
/// Thread: one thread at a time (the card reader's worker).
public final class MFRC522 {
    /// Registers (datasheet section 9.2).
    enum Register: UInt8 {
        case command = 0x01, comIEn = 0x02, comIrq = 0x04, divIrq = 0x05, error = 0x06, status2 = 0x08
        case fifoData = 0x09, fifoLevel = 0x0A, control = 0x0C, bitFraming = 0x0D, coll = 0x0E
        case mode = 0x11, txMode = 0x12, rxMode = 0x13, txControl = 0x14, txASK = 0x15
        case modWidth = 0x24, tMode = 0x2A, tPrescaler = 0x2B, tReloadHigh = 0x2C, tReloadLow = 0x2D
        case version = 0x37
    }

    /// Commands written to CommandReg.
    enum Command: UInt8 {
        case idle = 0x00, transceive = 0x0C, softReset = 0x0F
    }

    /// VersionReg values of chips that speak the MFRC522 register set: NXP 0.0/1.0/2.0, the
    /// FM17522 clone (0x88) and the common counterfeits (0x12, 0xB2).
    public static let knownVersions: Set<UInt8> = [0x88, 0x90, 0x91, 0x92, 0x12, 0xB2]

    /// ComIrqReg bits.
    static let timerIRq: UInt8 = 0x01
    static let idleIRq: UInt8 = 0x10
    static let rxIRq: UInt8 = 0x20
    /// ErrorReg bits that spoil a reply: buffer overflow, parity, protocol. CollErr (0x08) is a
    /// collision, reported as one.
    static let badReplyErrors: UInt8 = 0x13
    static let collisionError: UInt8 = 0x08

    /// How many times ComIrqReg is read before a transceive is given up: the chip's own timer
    /// (25 ms, set in `initialize`) ends a silent exchange long before.
    public var maxIRQReads = 2_000

    public let bus: any SPIBus
    /// The version register as read by `initialize`.
    public private(set) var version: UInt8 = 0

    public init(bus: any SPIBus) {
        self.bus = bus
    }

    // MARK: - registers

    /// One transfer; a failing bus becomes `CardReadError.bus`.
    private func transfer(_ bytes: [UInt8]) throws(CardReadError) -> [UInt8] {
        do throws(HardwareError) {
            let received = try bus.transfer(bytes)
            guard received.count == bytes.count else {
                throw HardwareError(message: "\(bus.path): \(received.count) bytes back for \(bytes.count) sent")
            }
            return received
        } catch {
            throw .bus(error.message)
        }
    }

    func write(_ register: Register, _ value: UInt8) throws(CardReadError) {
        _ = try transfer([register.rawValue << 1 & 0x7E, value])
    }

    func write(_ register: Register, _ values: [UInt8]) throws(CardReadError) {
        _ = try transfer([register.rawValue << 1 & 0x7E] + values)
    }

    func read(_ register: Register) throws(CardReadError) -> UInt8 {
        try transfer([0x80 | (register.rawValue << 1 & 0x7E), 0])[1]
    }

    /// Reads `count` bytes of one register (the FIFO) in one transfer: the address is sent again
    /// for every byte but the last.
    func read(_ register: Register, count: Int) throws(CardReadError) -> [UInt8] {
        guard count > 0 else { return [] }
        let address = 0x80 | (register.rawValue << 1 & 0x7E)
        let sent = [UInt8](repeating: address, count: count) + [0]
        return Array(try transfer(sent).dropFirst())
    }

    private func setBits(_ register: Register, _ mask: UInt8) throws(CardReadError) {
        try write(register, try read(register) | mask)
    }

    private func clearBits(_ register: Register, _ mask: UInt8) throws(CardReadError) {
        try write(register, try read(register) & ~mask)
    }

    // MARK: - set-up

    /// Soft-resets the chip and sets it up for ISO 14443A at 106 kbit/s with a 25 ms reply
    /// timeout, antenna on. Throws when nothing MFRC522-like answers (the version register reads
    /// 0x00 or 0xFF: no chip, MISO or CS not wired).
    public func initialize() throws(CardReadError) {
        do {
            try write(.command, Command.softReset.rawValue)
            // The reset takes about 40 µs of the chip's oscillator start-up: wait until PowerDown clears.
            var settled = false
            for _ in 0..<50 {
                if try read(.command) & 0x10 == 0 {
                    settled = true
                    break
                }
                Syscalls.sleep(nanoseconds: 1_000_000)
            }
            version = try read(.version)
            guard Self.knownVersions.contains(version) else {
                throw CardReadError.noChip(
                    "no MFRC522 answers on \(bus.path) (its version register reads 0x\(CardUID.hex(version))): check the wiring of MISO, MOSI, SCK and SDA (chip select) and the reader's spiCS"
                )
            }
            guard settled else { throw CardReadError.noChip("the MFRC522 on \(bus.path) does not come out of reset") }
            try write(.txMode, 0x00)  // 106 kbit/s, no hardware CRC: CRC_A is added here
            try write(.rxMode, 0x00)
            try write(.modWidth, 0x26)
            // Timer: TAuto, prescaler 0x0A9 → 40 kHz (13.56 MHz / (2·169+1)), reload 1000 → 25 ms.
            try write(.tMode, 0x80)
            try write(.tPrescaler, 0xA9)
            try write(.tReloadHigh, 0x03)
            try write(.tReloadLow, 0xE8)
            try write(.txASK, 0x40)  // 100 % ASK, as type A needs
            try write(.mode, 0x3D)  // CRC preset 0x6363 (type A), in case the coprocessor is used
            try setBits(.txControl, 0x03)  // antenna drivers TX1 and TX2 on
        }
    }

    /// Turns the antenna off (no field, less power) until the next `initialize`.
    public func antennaOff() throws(CardReadError) {
        try clearBits(.txControl, 0x03)
    }

    // MARK: - exchanges

    /// A reply of the card: its bytes and the number of valid bits of the last one (8 for whole bytes).
    struct Reply: Equatable {
        var bytes: [UInt8]
        var lastBits: Int
    }

    /// Sends `frame` (its last byte `lastBits` long) and returns the card's reply; nil when the
    /// card said nothing before the chip's timer ran out.
    func transceive(_ frame: [UInt8], lastBits: Int = 8) throws(CardReadError) -> Reply? {
        do {
            try write(.command, Command.idle.rawValue)
            try write(.comIrq, 0x7F)  // clear every interrupt request
            try write(.fifoLevel, 0x80)  // flush the FIFO
            try write(.fifoData, frame)
            try write(.bitFraming, UInt8(lastBits & 7))
            try write(.command, Command.transceive.rawValue)
            try setBits(.bitFraming, 0x80)  // StartSend
            var irq: UInt8 = 0
            var reads = 0
            repeat {
                irq = try read(.comIrq)
                reads += 1
                if irq & (Self.rxIRq | Self.idleIRq) != 0 { break }
                if irq & Self.timerIRq != 0 {
                    try clearBits(.bitFraming, 0x80)
                    return nil
                }
            } while reads < maxIRQReads
            try clearBits(.bitFraming, 0x80)
            guard irq & (Self.rxIRq | Self.idleIRq) != 0 else {
                throw CardReadError.bus("the MFRC522 on \(bus.path) never finished an exchange")
            }
            let errors = try read(.error)
            if errors & Self.badReplyErrors != 0 {
                throw CardReadError.badReply("a damaged reply (error register 0x\(CardUID.hex(errors)))")
            }
            if errors & Self.collisionError != 0 { throw CardReadError.collision }
            let level = Int(try read(.fifoLevel) & 0x7F)
            let bytes = try read(.fifoData, count: level)
            let last = Int(try read(.control) & 0x07)
            return Reply(bytes: bytes, lastBits: last == 0 ? 8 : last)
        }
    }

    // MARK: - ISO 14443-3 type A

    /// The UID of the card in the field, nil when there is none. A card halted by an earlier read
    /// answers too (WUPA, not REQA), so each poll sees a card that stays on the reader; it is
    /// halted again at the end.
    public func readCard() throws(CardReadError) -> [UInt8]? {
        guard let atqa = try transceive([ISO14443A.wupa], lastBits: 7) else { return nil }
        guard atqa.bytes.count == 2, atqa.lastBits == 8 else {
            throw .badReply("ATQA of \(atqa.bytes.count) bytes (\(atqa.lastBits) bits in the last), expected 2")
        }
        var uid: [UInt8] = []
        for level in ISO14443A.cascadeLevels {
            guard let answer = try transceive([level, 0x20]) else { throw .cardLeft }
            guard answer.bytes.count == 5, answer.lastBits == 8 else {
                throw .badReply("anticollision answer of \(answer.bytes.count) bytes, expected 5")
            }
            let part = Array(answer.bytes[0..<4])
            guard part.reduce(0, ^) == answer.bytes[4] else {
                throw .badReply("anticollision answer with a wrong BCC")
            }
            let select = ISO14443A.withCRC([level, 0x70] + answer.bytes)
            guard let sak = try transceive(select) else { throw .cardLeft }
            guard sak.bytes.count == 3, ISO14443A.crc(sak.bytes[0..<1]) == [sak.bytes[1], sak.bytes[2]] else {
                throw .badReply("SAK of \(sak.bytes.count) bytes or with a wrong CRC")
            }
            if sak.bytes[0] & 0x04 != 0 {
                // UID not complete: this level held the cascade tag and three bytes.
                guard part[0] == ISO14443A.cascadeTag else {
                    throw .badReply("SAK says the UID goes on but the answer has no cascade tag")
                }
                uid += part[1...]
            } else {
                uid += part
                _ = try? transceive(ISO14443A.withCRC([ISO14443A.hlta, 0x00]))
                return uid
            }
        }
        throw .badReply("the UID goes on past the third cascade level")
    }
}

/// Why a card could not be read. Thread: a value.
public enum CardReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing that speaks MFRC522 is on the bus, or it does not work.
    case noChip(String)
    /// The SPI bus failed (the device went away).
    case bus(String)
    /// The card's reply was malformed or failed its check (noise, a card at the edge of the field).
    case badReply(String)
    /// Two cards answered at once.
    case collision
    /// The card stopped answering in the middle of the exchange.
    case cardLeft

    public var description: String {
        switch self {
        case .noChip(let m), .bus(let m): m
        case .badReply(let m): "unreadable card: \(m)"
        case .collision: "two cards at once"
        case .cardLeft: "the card left during the read"
        }
    }
}

/// Frames and checks of ISO/IEC 14443-3 type A. Thread: any (pure).
public enum ISO14443A {
    /// WUPA and REQA: 7-bit short frames.
    public static let wupa: UInt8 = 0x52
    public static let reqa: UInt8 = 0x26
    /// HLTA: halt, then 0x00 and CRC_A.
    public static let hlta: UInt8 = 0x50
    /// SEL codes of cascade levels 1, 2, 3.
    public static let cascadeLevels: [UInt8] = [0x93, 0x95, 0x97]
    /// The cascade tag: the first byte of a level whose UID part goes on at the next level.
    public static let cascadeTag: UInt8 = 0x88

    /// CRC_A (ISO/IEC 14443-3 annex B): initial 0x6363, polynomial x¹⁶+x¹²+x⁵+1 taken LSB first;
    /// low byte first.
    public static func crc(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var crc: UInt16 = 0x6363
        for byte in bytes {
            var b = byte ^ UInt8(truncatingIfNeeded: crc)
            b ^= b << 4
            let w = UInt16(b)
            crc = (crc >> 8) ^ (w << 8) ^ (w << 3) ^ (w >> 4)
        }
        return [UInt8(truncatingIfNeeded: crc), UInt8(truncatingIfNeeded: crc >> 8)]
    }

    /// `frame` followed by its CRC_A.
    public static func withCRC(_ frame: [UInt8]) -> [UInt8] { frame + crc(frame) }
}
