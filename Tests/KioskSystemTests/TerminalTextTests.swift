// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import Testing

@Suite struct TerminalTextTests {
    @Test("control characters are escaped; everything else, backslashes included, is kept")
    func escapes() {
        #expect(TerminalText.escaped("Café – Ünïcode \\ plain") == "Café – Ünïcode \\ plain")
        #expect(TerminalText.escaped("a\u{1B}]0;title\u{07}b") == "a\\x1B]0;title\\x07b")
        #expect(TerminalText.escaped("one\ntwo\tthree\r") == "one\\ntwo\\tthree\\r")
        #expect(TerminalText.escaped("\u{7F}\u{9B}31m") == "\\x7F\\u{9B}31m")
        #expect(TerminalText.escaped("\u{0}") == "\\x00")
    }
}
