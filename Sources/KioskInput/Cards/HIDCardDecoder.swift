// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import KioskModel

/// Turns the keystrokes of a USB card reader that acts as a keyboard into card numbers: it types
/// the number (digits, and for hex readers the letters A–F) and then Enter. Shift, Caps Lock and
/// other keys are ignored; a number longer than `CardUID.maxLength` is dropped at its Enter; a
/// partial number older than `staleNanoseconds` (a reader unplugged mid-card, a stray key) is
/// forgotten before the next key.
///
/// Thread: a value; one thread at a time.
public struct HIDCardDecoder: Sendable {
    /// What a finished line of keys was.
    public enum Result: Sendable, Equatable {
        case card(CardUID)
        /// Enter after nothing usable, or after too many characters: the text says which.
        case refused(String)
    }

    public static let staleNanoseconds: UInt64 = 1_000_000_000

    private var typed: [UInt8] = []
    private var overflowed = false
    private var lastKeyNs: UInt64?

    public init() {}

    /// The character of a key (top row, keypad, letters), nil for keys that are not part of a number.
    static func character(code: UInt16) -> UInt8? {
        if let i = digitRow.firstIndex(of: code) { return UInt8(ascii: "0") + UInt8(i) }
        if let i = keypad.firstIndex(of: code) { return UInt8(ascii: "0") + UInt8(i) }
        if let i = letters.firstIndex(of: code) { return UInt8(ascii: "A") + UInt8(i) }
        return nil
    }

    private static let digitRow: [UInt16] = [
        KEY_0, KEY_1, KEY_2, KEY_3, KEY_4, KEY_5, KEY_6, KEY_7, KEY_8, KEY_9,
    ].map { UInt16($0) }
    private static let keypad: [UInt16] = [
        KEY_KP0, KEY_KP1, KEY_KP2, KEY_KP3, KEY_KP4, KEY_KP5, KEY_KP6, KEY_KP7, KEY_KP8, KEY_KP9,
    ].map { UInt16($0) }
    private static let letters: [UInt16] = [
        KEY_A, KEY_B, KEY_C, KEY_D, KEY_E, KEY_F, KEY_G, KEY_H, KEY_I, KEY_J, KEY_K, KEY_L, KEY_M,
        KEY_N, KEY_O, KEY_P, KEY_Q, KEY_R, KEY_S, KEY_T, KEY_U, KEY_V, KEY_W, KEY_X, KEY_Y, KEY_Z,
    ].map { UInt16($0) }

    /// One EV_KEY event (value 1 down, 0 up, 2 autorepeat); returns a result at Enter's press.
    public mutating func key(code: UInt16, value: Int32, at t: UInt64) -> Result? {
        guard value == 1 else { return nil }
        if let last = lastKeyNs, t > last, t - last > Self.staleNanoseconds {
            typed.removeAll()
            overflowed = false
        }
        lastKeyNs = t
        if code == UInt16(KEY_ENTER) || code == UInt16(KEY_KPENTER) {
            defer {
                typed.removeAll()
                overflowed = false
            }
            if overflowed { return .refused("more than \(CardUID.maxLength) characters before Enter") }
            let text = String(decoding: typed, as: UTF8.self)
            guard let uid = CardUID(text) else { return .refused("Enter with no card number before it") }
            return .card(uid)
        }
        guard let c = Self.character(code: code) else { return nil }
        if typed.count < CardUID.maxLength { typed.append(c) } else { overflowed = true }
        return nil
    }
}
