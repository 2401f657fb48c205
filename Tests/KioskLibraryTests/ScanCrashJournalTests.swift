// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

/// A file that crashes the scan (a bug in a parser or a library) costs one restart, not a box that
/// dies at every start. The crash is real: an LD_PRELOAD library (Tests/Preload/crash_on_open.c)
/// traps or SIGKILLs the process when the reader opens one file; `kiosk-player scan --state-dir`
/// is the scan `run` does, with the index and its journal in the state directory.
@Suite(.tags(.integration), .serialized, .enabled(if: which("cc") != nil, "needs a C compiler for the crash library"))
struct ScanCrashJournalTests {
    private struct Stick {
        let library: TestLibrary
        let state: TemporaryDirectory
        let preload: String

        init() throws {
            library = try TestLibrary("kiosk-crash")
            state = try TemporaryDirectory("kiosk-crash-state")
            preload = state.file("libcrash.so")
            let build = run(
                which("cc")!,
                [
                    "-O1", "-shared", "-fPIC", "-o", preload, TestPaths.repository + "/Tests/Preload/crash_on_open.c",
                    "-ldl",
                ])
            #expect(build.status == 0, "\(build.errors)")
            // Enough files for the scan's helper threads to read alongside the crash.
            for n in 0..<96 { try library.flac("Album/\(n).flac", [("TITLE", "Song \(n)")]) }
            try library.flac("Album/bomb.flac", [("TITLE", "Bomb")])
        }

        func scan(crash how: String) -> ProcessResult {
            var environment = currentEnvironment()
            environment["LD_PRELOAD"] = preload
            environment["KIOSK_CRASH_ON"] = "/bomb.flac"
            environment["KIOSK_CRASH_HOW"] = how
            return run(
                TestPaths.playerBinary, ["scan", library.root, "--state-dir", state.path], environment: environment,
                timeoutSeconds: 120)
        }
    }

    @Test("a file that crashes a reader stops one scan; the next skips it, names it, and lists the rest")
    func trapInAReader() throws {
        let stick = try Stick()
        let first = stick.scan(crash: "trap")
        #expect(first.status == 128 + SIGILL || first.status == 128 + SIGTRAP, "\(first.status) \(first.errors)")
        for _ in 0..<2 {
            let next = stick.scan(crash: "trap")
            #expect(next.status == 0, "\(next.errors)")
            #expect(next.output.contains("Tracks: 96"), "\(next.output)")
            #expect(next.output.contains("Album/bomb.flac: " + VolumeScanner.crashedReason), "\(next.output)")
        }
    }

    @Test("files in flight when the player is killed are read alone next time; a second death names the one file")
    func killedWhileReading() throws {
        let stick = try Stick()
        #expect(stick.scan(crash: "kill").status == 128 + SIGKILL)
        #expect(stick.scan(crash: "kill").status == 128 + SIGKILL)
        let third = stick.scan(crash: "kill")
        #expect(third.status == 0, "\(third.errors)")
        #expect(third.output.contains("Tracks: 96"), "\(third.output)")
        #expect(third.output.contains("Left out: 1"), "only the one file is left out: \(third.output)")
        #expect(third.output.contains("Album/bomb.flac: " + VolumeScanner.crashedReason), "\(third.output)")
    }

    @Test("a crashed file that changes is read again")
    func changedFileIsReadAgain() throws {
        let stick = try Stick()
        #expect(stick.scan(crash: "trap").status != 0)
        #expect(stick.scan(crash: "trap").status == 0)
        try stick.library.flac("Album/bomb.flac", [("TITLE", "Bomb, fixed")], seconds: 0.1)
        let fixed = run(TestPaths.playerBinary, ["scan", stick.library.root, "--state-dir", stick.state.path])
        #expect(fixed.status == 0, "\(fixed.errors)")
        #expect(fixed.output.contains("Tracks: 97"), "\(fixed.output)")
    }
}
