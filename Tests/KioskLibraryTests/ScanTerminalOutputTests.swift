// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

/// `kiosk-player scan DIR` prints names from the stick: an escape sequence in a name must not
/// reach the terminal, and a newline must not forge a line of the report.
@Suite(.tags(.integration)) struct ScanTerminalOutputTests {
    @Test("names with ESC, OSC and newlines are printed escaped, on their own line")
    func escapedNames() throws {
        let dir = try TemporaryDirectory("kiosk-names")
        defer { dir.remove() }
        let name = "a\u{1B}]0;pwned\u{07}\u{1B}[2J\nLeft out: 0.mp3"
        try dir.write(name, [UInt8]())
        let result = run(TestPaths.playerBinary, ["scan", dir.path], timeoutSeconds: 60)
        #expect(result.status == 0, "\(result.errors)")
        #expect(!result.stdout.contains(0x1B) && !result.stdout.contains(0x07), "\(result.output)")
        #expect(
            result.output.contains("  a\\x1B]0;pwned\\x07\\x1B[2J\\nLeft out: 0.mp3: empty file\n"), "\(result.output)")
        #expect(result.output.split(separator: "\n").filter { $0.hasPrefix("Left out") } == ["Left out: 1"])
    }
}
