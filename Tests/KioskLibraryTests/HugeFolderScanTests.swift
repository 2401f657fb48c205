// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

/// A stick of a hundred thousand broken files costs the scan memory for the files, not for a
/// problem line or a read-ahead outcome per file.
@Suite(.tags(.integration), .serialized) struct HugeFolderScanTests {
    private func stick(emptyFiles count: Int, folders: Int = 1) throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory("kiosk-huge")
        for folder in 0..<folders { try makeEmptyFiles(count / folders, in: dir.file("f\(folder)")) }
        return dir
    }

    @Test("100 000 empty files: the scan lists their problems bounded and peaks under 64 MB (was 127 MB)")
    func emptyFilesBoundedMemory() throws {
        let dir = try stick(emptyFiles: 100_000)
        defer { dir.remove() }
        let result = run(TestPaths.playerBinary, ["scan", "--json", dir.path], timeoutSeconds: 120)
        #expect(result.status == 0, "\(result.errors)")
        let json = try JSONReader.parse(result.stdout, file: "scan output")
        let statistics = try #require(try json.object("statistics"))
        #expect(try statistics.int("musicFiles", range: 0...Int.max) == 100_000)
        let reasons = try (json.objects("problems") ?? []).compactMap { try $0.string("reason") }
        #expect(reasons.count == 101)
        #expect(reasons.last == "99900 more problems in this folder not listed")
        // The scan's own peak (VmHWM): the child's ru_maxrss would carry this test process's peak.
        let peak = try #require(try statistics.int("peakResidentBytes", range: 1...Int.max))
        #expect(peak < 64 << 20, "peak \(peak >> 10) kB")
    }

    @Test("problems are kept per folder up to their cap, then in all up to theirs, with counts of the rest")
    func problemCaps() {
        var limits = ScanLimits()
        limits.maxProblemsPerFolder = 2
        limits.maxProblems = 5
        var list = ProblemList(limits: limits)
        let volume = VolumeID(rawValue: "v")
        for folder in ["a", "b", "c"] {
            for n in 0..<4 {
                list.append(LibraryProblem(volume: volume, relativePath: "\(folder)/\(n).mp3", reason: "empty file"))
            }
        }
        let lines = list.finished().map(\.description)
        #expect(
            lines == [
                "a/0.mp3: empty file", "a/1.mp3: empty file", "a: warning: 2 more problems in this folder not listed",
                "b/0.mp3: empty file", "b/1.mp3: empty file", "(volume v): warning: 6 more problems not listed",
            ])
    }
}

@Suite(.serialized) struct LeftOutLogTests {
    @Test("a scan's problem files reach the log with their reasons, the first 20 of them, then a count")
    func leftOutLines() {
        let volume = VolumeID(rawValue: "stick")
        let problems =
            (0..<25).map { LibraryProblem(volume: volume, relativePath: "a/\($0).mp3", reason: "empty file") }
            + [LibraryProblem(volume: volume, relativePath: "b.flac", reason: "odd tag", severity: .warning)]
        let lines = Locked<[String]>([])
        let token = Log.addObserver { level, message in
            if level == .notice && message.hasPrefix("library: ") { lines.withLock { $0.append(message) } }
        }
        Library.logLeftOut(problems, volume: volume)
        Log.removeObserver(token)
        let logged = lines.withLock { $0 }
        #expect(logged.count == 21)
        #expect(logged.first == "library: left out stick: a/0.mp3: empty file")
        #expect(logged.last == "library: stick: 6 more problems (kiosk-player scan lists them all)")
    }
}
