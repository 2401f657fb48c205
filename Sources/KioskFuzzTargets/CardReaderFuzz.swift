// SPDX-License-Identifier: GPL-3.0-or-later
import KioskHardware
import KioskInput
import KioskModel

/// The card readers' decoders fed arbitrary input. The first byte picks which: even, the MFRC522
/// driver reading a card while every byte the chip clocks back on MISO comes from the input (a
/// chip gone mad, noise on long wires, a counterfeit); odd, a USB reader's key events (code, value,
/// time step) through `HIDCardDecoder`. Either must return, with a card number that is a valid
/// `CardUID` or an error, never crash or spin.
///
/// Thread: the fuzzing thread.
enum CardReaderFuzz {
    static func run(_ data: [UInt8]) {
        guard let first = data.first else { return }
        let rest = Array(data.dropFirst())
        if first & 1 == 0 {
            let chip = MFRC522(bus: ReplayBus(rest))
            chip.maxIRQReads = 16
            if (try? chip.initialize()) != nil {
                for _ in 0..<4 { _ = try? chip.readCard() }
            }
        } else {
            var decoder = HIDCardDecoder()
            var t: UInt64 = 0
            var i = 0
            while i + 2 < rest.count {
                t += UInt64(rest[i + 2]) * 10_000_000
                if case .card(let uid)? = decoder.key(code: UInt16(rest[i]), value: Int32(rest[i + 1] % 3), at: t) {
                    precondition(CardUID(uid.rawValue) == uid, "a decoded card number is not a valid one")
                }
                i += 3
            }
        }
    }
}

/// A bus whose every received byte is the next byte of the input; past its end the chip reads as
/// timed out (ComIrqReg's TimerIRq), so exchanges end.
///
/// Thread: the fuzzing thread.
final class ReplayBus: SPIBus {
    private let bytes: [UInt8]
    private var next = 0
    let path = "/dev/spidev-fuzz"

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func transfer(_ sent: [UInt8]) throws(HardwareError) -> [UInt8] {
        sent.map { _ in
            defer { next += 1 }
            return next < bytes.count ? bytes[next] : 0x01
        }
    }
}
