// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import KioskInput
import KioskModel
import Testing

/// USB readers type a card's number and Enter: the decoder turns the keys into card numbers.
@Suite struct HIDCardDecoderTests {
    /// Key presses and releases of `text` then Enter, 2 ms apart from `startMs`, as a reader types.
    private func typed(_ text: String, startMs: UInt64 = 0, enter: UInt16 = UInt16(KEY_ENTER)) -> [(
        UInt16, Int32, UInt64
    )] {
        var events: [(UInt16, Int32, UInt64)] = []
        var t = startMs * 1_000_000
        let codes = text.map { c -> UInt16 in
            switch c {
            case "0": UInt16(KEY_0)
            case "1"..."9": UInt16(KEY_1) + UInt16(c.asciiValue! - 49)
            case "A": UInt16(KEY_A)
            case "B": UInt16(KEY_B)
            case "C": UInt16(KEY_C)
            case "D": UInt16(KEY_D)
            case "E": UInt16(KEY_E)
            default: UInt16(KEY_F)
            }
        }
        for code in codes + [enter] {
            events.append((code, 1, t))
            events.append((code, 0, t + 1_000_000))
            t += 2_000_000
        }
        return events
    }

    private func decode(_ events: [(UInt16, Int32, UInt64)]) -> [HIDCardDecoder.Result] {
        var decoder = HIDCardDecoder()
        return events.compactMap { decoder.key(code: $0.0, value: $0.1, at: $0.2) }
    }

    @Test func digitsThenEnterAreOneCard() {
        #expect(decode(typed("0004561234")) == [.card(CardUID("0004561234")!)])
    }

    @Test func hexReadersLettersCount() {
        #expect(decode(typed("04A2B3C4")) == [.card(CardUID("04A2B3C4")!)])
    }

    @Test func theKeypadsDigitsAndEnterCountToo() {
        var decoder = HIDCardDecoder()
        _ = decoder.key(code: UInt16(KEY_KP4), value: 1, at: 0)
        _ = decoder.key(code: UInt16(KEY_KP2), value: 1, at: 1_000_000)
        #expect(decoder.key(code: UInt16(KEY_KPENTER), value: 1, at: 2_000_000) == .card(CardUID("42")!))
    }

    @Test func shiftAndAutorepeatAreIgnored() {
        var events = typed("12")
        events.insert((UInt16(KEY_LEFTSHIFT), 1, 0), at: 0)
        events.insert((UInt16(KEY_1), 2, 500_000), at: 2)
        #expect(decode(events) == [.card(CardUID("12")!)])
    }

    @Test func aStalePartialNumberIsForgotten() {
        // "99" and no Enter (a reader unplugged mid-card), then a whole card two seconds later.
        let events = Array(typed("99").dropLast(2)) + typed("123", startMs: 2_000)
        #expect(decode(events) == [.card(CardUID("123")!)])
    }

    @Test func tooLongANumberIsRefusedAtItsEnter() {
        #expect(decode(typed(String(repeating: "1", count: 40))) == [.refused("more than 32 characters before Enter")])
    }

    @Test func enterAloneIsRefused() {
        #expect(decode(typed("")) == [.refused("Enter with no card number before it")])
    }

    @Test func twoCardsInARowAreTwoCards() {
        #expect(decode(typed("11") + typed("22", startMs: 100)) == [.card(CardUID("11")!), .card(CardUID("22")!)])
    }
}
