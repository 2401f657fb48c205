// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import KioskTestSupport
import Testing

/// The rule of docs/architecture.md: every system call goes through `Syscalls` (its EINTR retry,
/// its typed `Errno`, one place to read and fake). This reads the sources and fails on a raw
/// `Glibc.` call in a file not on the allow-list below, whose every entry says why.
@Suite struct SyscallSeamTests {
    /// Files (under Sources/) allowed to call `Glibc.` directly, and why.
    static let allowed: [(file: String, why: String)] = [
        ("KioskSystem/Syscalls.swift", "the seam itself"),
        ("KioskSystem/Sockets.swift", "an extension of Syscalls: its socket wrappers (send with MSG_NOSIGNAL)"),
        ("KioskSystem/Directory.swift", "an extension of Syscalls: its directory wrappers (rmdir)"),
    ]

    /// The raw calls in `text` (the source of `file`, relative to Sources/) the allow-list does not
    /// cover, as "file:line: text".
    static func violations(in text: String, file: String) -> [String] {
        if allowed.contains(where: { $0.file == file }) { return [] }
        var found: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let code = line.drop { $0 == " " }
            if code.hasPrefix("//") { continue }
            if code.contains("Glibc.") { found.append("\(file):\(number + 1): \(code)") }
        }
        return found
    }

    @Test func noRawGlibcCallOutsideSyscallsUnlessAllowed() throws {
        let (files, found) = try SourceFiles.findings(under: TestPaths.repository + "/Sources", Self.violations)
        #expect(files > 100, "the sources were found")
        #expect(
            found.isEmpty,
            "call it through Syscalls (add a wrapper there), or add the file to the allow-list saying why:\n\(found.joined(separator: "\n"))"
        )
    }

    @Test func aRawReadInADecoderIsFound() {
        let source = """
            // Glibc.pread in a comment is not a call.
            let n = buffer.withUnsafeMutableBytes { Glibc.pread(fd, $0.baseAddress, $0.count, 0) }
            """
        #expect(Self.violations(in: source, file: "KioskAudio/OggLinks.swift").count == 1)
        #expect(Self.violations(in: source, file: "KioskSystem/Syscalls.swift").isEmpty)
    }

    @Test func everyAllowedFileStillCallsGlibc() throws {
        let root = TestPaths.repository + "/Sources"
        for entry in Self.allowed {
            let text = String(decoding: try Syscalls.readFile(root + "/" + entry.file), as: UTF8.self)
            #expect(text.contains("Glibc."), "\(entry.file) no longer calls Glibc: take it off the allow-list")
        }
    }
}
