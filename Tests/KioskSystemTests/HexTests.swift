// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import Testing

/// Bytes as hexadecimal and back (`Hex`): every byte value survives, and what is not two digits a
/// byte is refused rather than guessed.
struct HexTests {
    @Test func everyByteGoesThereAndBack() {
        let all = (0...255).map { UInt8($0) }
        let text = Hex.encode(all)
        #expect(text.hasPrefix("000102") && text.hasSuffix("fdfeff") && text.utf8.count == 512)
        #expect(Hex.decode(text.utf8) == all)
        #expect(Hex.decode("0aFF".utf8) == [0x0A, 0xFF], "either case")
    }

    @Test func anOddCountOrANonDigitIsRefused() {
        #expect(Hex.decode("abc".utf8) == nil)
        #expect(Hex.decode("7g".utf8) == nil)
        #expect(Hex.decode(" 7".utf8) == nil)
        #expect(Hex.decode("".utf8) == [])
    }
}
