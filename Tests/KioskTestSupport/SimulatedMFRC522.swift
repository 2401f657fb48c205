// SPDX-License-Identifier: GPL-3.0-or-later
import KioskHardware
import KioskSystem

/// An MFRC522 at register level behind an `SPIBus`, with ISO 14443A cards in its field: what the
/// driver's SPI bytes do to a real chip (the register file, the FIFO, CommandReg, ComIrqReg,
/// BitFramingReg's StartSend, the error and control registers) and how a card answers WUPA/REQA,
/// anticollision, select and HLTA at each cascade level. Every transfer is recorded, as a logic
/// analyser on the bus would show it. Faults: no chip (MISO floats high), a card that leaves after
/// some frames, a card whose replies are damaged.
///
/// Thread: any (a lock inside): the reader's worker transfers, the test changes the field.
public final class SimulatedMFRC522: SPIBus, @unchecked Sendable {
    /// A type A card.
    public struct Card: Sendable, Equatable {
        /// How the card's replies go wrong.
        public enum Fault: Sendable, Equatable {
            case none
            /// Stops answering after this many frames of each read (it left the field mid-read).
            case leavesAfter(frames: Int)
            /// The anticollision answer's BCC is wrong.
            case badBCC
            /// The SAK's CRC is wrong.
            case badCRC
            /// Every reply is these bytes instead.
            case garbage([UInt8])
            /// The chip flags a parity error on every reply.
            case parityError
        }

        public var uid: [UInt8]
        /// The SAK of the last level (0x08: MIFARE Classic 1K).
        public var sak: UInt8 = 0x08
        public var fault = Fault.none

        public init(uid: [UInt8], sak: UInt8 = 0x08, fault: Fault = .none) {
            self.uid = uid
            self.sak = sak
            self.fault = fault
        }

        /// The 4-byte parts of each cascade level, with the cascade tag where the UID goes on.
        var levels: [[UInt8]] {
            switch uid.count {
            case 4: return [uid]
            case 7: return [[0x88] + uid[0..<3], Array(uid[3..<7])]
            default: return [[0x88] + uid[0..<3], [0x88] + uid[3..<6], Array(uid[6..<10])]
            }
        }
    }

    private struct State {
        var registers = [UInt8](repeating: 0, count: 64)
        var fifo: [UInt8] = []
        var card: Card?
        var cardState = CardState.idle
        var framesThisRead = 0
        var transfers: [[UInt8]] = []
        var answers = true
        var failing: String?
    }

    private enum CardState { case idle, ready, active, halted }

    public let path: String
    public let version: UInt8
    private let state = Locked(State())

    public init(path: String = "/dev/spidev-sim", version: UInt8 = 0x92) {
        self.path = path
        self.version = version
        state.withLock { $0.registers[0x37] = version }
    }

    /// Puts a card in the field (nil: takes it away).
    public func place(_ card: Card?) {
        state.withLock { s in
            s.card = card
            s.cardState = .idle
        }
    }

    /// false: no chip answers (every byte on MISO reads 0xFF).
    public func setAnswers(_ answers: Bool) { state.withLock { $0.answers = answers } }

    /// Makes every transfer fail with `message` (the spidev device went away); nil: work again.
    public func fail(_ message: String?) { state.withLock { $0.failing = message } }

    /// Every transfer so far.
    public var transfers: [[UInt8]] { state.withLock { $0.transfers } }

    /// A register's value now.
    public func register(_ address: UInt8) -> UInt8 { state.withLock { $0.registers[Int(address)] } }

    public func transfer(_ bytes: [UInt8]) throws(HardwareError) -> [UInt8] {
        let result: Result<[UInt8], HardwareError> = state.withLock { s in
            if let message = s.failing { return .failure(HardwareError(message: message)) }
            s.transfers.append(bytes)
            guard s.answers else { return .success([UInt8](repeating: 0xFF, count: bytes.count)) }
            guard let first = bytes.first else { return .success([]) }
            var received = [UInt8](repeating: 0, count: bytes.count)
            let address = Int(first >> 1 & 0x3F)
            if first & 0x80 != 0 {
                for i in 1..<bytes.count { received[i] = Self.read(&s, Int(bytes[i - 1] >> 1 & 0x3F)) }
            } else {
                for value in bytes.dropFirst() { Self.write(&s, address, value) }
            }
            return .success(received)
        }
        return try result.get()
    }

    private static func read(_ s: inout State, _ register: Int) -> UInt8 {
        switch register {
        case 0x09: return s.fifo.isEmpty ? 0 : s.fifo.removeFirst()
        case 0x0A: return UInt8(min(64, s.fifo.count))
        default: return s.registers[register]
        }
    }

    private static func write(_ s: inout State, _ register: Int, _ value: UInt8) {
        switch register {
        case 0x01:  // CommandReg
            if value & 0x0F == 0x0F {  // SoftReset: registers to their reset values
                let version = s.registers[0x37]
                s.registers = [UInt8](repeating: 0, count: 64)
                s.registers[0x37] = version
                s.fifo = []
            } else {
                s.registers[0x01] = value & 0x0F
            }
        case 0x04:  // ComIrqReg: Set1 sets the marked bits, else clears them
            if value & 0x80 != 0 { s.registers[0x04] |= value & 0x7F } else { s.registers[0x04] &= ~value }
        case 0x09:
            if s.fifo.count < 64 { s.fifo.append(value) }
        case 0x0A:
            if value & 0x80 != 0 { s.fifo = [] }
        case 0x0D:  // BitFramingReg
            s.registers[0x0D] = value
            if value & 0x80 != 0 && s.registers[0x01] == 0x0C { exchange(&s, lastBits: Int(value & 7)) }
        default:
            s.registers[register] = value
        }
    }

    /// The frame in the FIFO goes out; the card's reply (or silence) comes back.
    private static func exchange(_ s: inout State, lastBits: Int) {
        let frame = s.fifo
        s.fifo = []
        s.registers[0x06] = 0
        s.registers[0x0C] = 0
        let antennaOn = s.registers[0x14] & 0x03 == 0x03
        guard antennaOn, let reply = respond(&s, frame, lastBits: lastBits) else {
            s.registers[0x04] |= 0x40 | 0x01  // TxIRq, TimerIRq: nothing came back
            return
        }
        s.fifo = reply.bytes
        s.registers[0x0C] = UInt8(reply.lastBits % 8)
        if s.card?.fault == .parityError { s.registers[0x06] = 0x02 }
        s.registers[0x04] |= 0x40 | 0x20  // TxIRq, RxIRq
    }

    private static func respond(_ s: inout State, _ frame: [UInt8], lastBits: Int) -> (bytes: [UInt8], lastBits: Int)? {
        guard let card = s.card else { return nil }
        if lastBits == 7 && frame.count == 1 {
            // WUPA wakes a halted card too; REQA only an idle one.
            let wakes = frame[0] == 0x52 ? s.cardState != .active : s.cardState == .idle
            guard frame[0] == 0x52 || frame[0] == 0x26, wakes else { return nil }
            s.cardState = .ready
            s.framesThisRead = 0
        }
        s.framesThisRead += 1
        if case .leavesAfter(let frames) = card.fault, s.framesThisRead > frames { return nil }
        if case .garbage(let bytes) = card.fault { return (bytes, 8) }
        if lastBits == 7 {
            return (card.uid.count == 4 ? [0x04, 0x00] : card.uid.count == 7 ? [0x44, 0x00] : [0x84, 0x00], 8)
        }
        guard frame.count >= 2 else { return nil }
        if frame[0] == 0x50 {
            s.cardState = .halted
            return nil
        }
        guard let level = [UInt8(0x93), 0x95, 0x97].firstIndex(of: frame[0]), level < card.levels.count,
            s.cardState == .ready
        else { return nil }
        let part = card.levels[level]
        let bcc = part.reduce(0, ^)
        if frame[1] == 0x20 {
            return (part + [card.fault == .badBCC ? bcc ^ 0x5A : bcc], 8)
        }
        guard frame[1] == 0x70, frame.count == 9, Array(frame[2..<6]) == part, frame[6] == bcc,
            Array(frame[7..<9]) == Self.crc(Array(frame[0..<7]))
        else { return nil }
        let last = level == card.levels.count - 1
        let sak: UInt8 = last ? card.sak : 0x04
        var crc = Self.crc([sak])
        if card.fault == .badCRC { crc[0] ^= 0xFF }
        if last { s.cardState = .active }
        return ([sak] + crc, 8)
    }

    /// CRC_A written out from ISO/IEC 14443-3 annex B, bit by bit (independent of the driver's).
    public static func crc(_ bytes: [UInt8]) -> [UInt8] {
        var crc: UInt16 = 0x6363
        for byte in bytes {
            var b = UInt16(byte)
            for _ in 0..<8 {
                let mix = (crc ^ b) & 1
                crc >>= 1
                if mix != 0 { crc ^= 0x8408 }
                b >>= 1
            }
        }
        return [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }
}
