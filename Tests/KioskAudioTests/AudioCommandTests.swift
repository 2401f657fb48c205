// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

private var playerBuilt: Bool { access(TestPaths.playerBinary, X_OK) == 0 }

@Suite(
    .tags(.integration),
    .serialized, .enabled(if: Fixtures.hasFlac, "needs the flac tool (apt-get install flac)"),
    .enabled(if: playerBuilt, "kiosk-player is not built next to the tests (swift build)"))
struct AudioCommandTests {
    private let cd = PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16)

    @Test func playPlaysTheGoodFilesAndNamesTheOthers() throws {
        let dir = try TemporaryDirectory("kiosk-play")
        defer { dir.remove() }
        let a = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 20000, seed: 1)
        let b = try Fixtures.makeTrack(dir.file("b.flac"), format: cd, frames: 20000, seed: 2)
        try dir.write("bad.flac", Array("not audio at all".utf8))
        let result = run(
            TestPaths.playerBinary,
            [
                "play", dir.file("a.flac"), dir.file("missing.flac"), dir.file("bad.flac"), dir.file("b.flac"),
                "--device", "file:'\(dir.file("out.raw"))',raw", "--realtime", "off",
            ], timeoutSeconds: 60)
        #expect(!result.timedOut)
        #expect(result.status == 1)
        #expect(result.output.contains("[1/4] \(dir.file("a.flac"))"))
        #expect(result.output.contains("[4/4] \(dir.file("b.flac"))"))
        #expect(result.errors.contains("cannot play '\(dir.file("missing.flac"))': cannot open: No such file"))
        #expect(result.errors.contains("cannot play '\(dir.file("bad.flac"))'"))
        #expect(result.errors.contains("2 of 4 files could not be played"))
        expectSameSamples(try Syscalls.readFile(dir.file("out.raw")), Fixtures.bytes(a + b, width: 2))

        let good = run(
            TestPaths.playerBinary,
            ["play", dir.file("a.flac"), "--device", "none", "--realtime", "off"], timeoutSeconds: 60)
        #expect(good.status == 0, "\(good.errors)")
        #expect(good.output.contains("device none: S16_LE 44100 Hz 2 ch"))
    }

    @Test func playWithoutFilesIsAUsageError() {
        let result = run(TestPaths.playerBinary, ["play"])
        #expect(result.status == 2)
        #expect(result.errors.contains("which files?"))
    }

    @Test func unusableDeviceIsAClearError() throws {
        let dir = try TemporaryDirectory("kiosk-play")
        defer { dir.remove() }
        try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 2000)
        let result = run(
            TestPaths.playerBinary, ["play", dir.file("a.flac"), "--device", "nosuchpcm", "--realtime", "off"],
            timeoutSeconds: 60)
        #expect(result.status == 1)
        #expect(result.errors.contains("audio device failed: nosuchpcm"))
    }

    /// The audio threads' steady state, measured with the LD_PRELOAD counter of
    /// Benchmarks/kiosk_alloc_counter.c: no allocator call, no lock and no page fault, through ALSA
    /// (with ALSA's own per-PCM mutex off, as the hw plugin has it) and through the clock sink. The
    /// CD track is longer than the ring (2 s of it), so the decoder's steady state (after the ring's
    /// first lap) is reached on the clock sink too.
    @Test(
        .enabled(if: which("cc") != nil, "needs a C compiler for the allocation counter"), Sanitizer.countsAllocations)
    func audioThreadsNeitherAllocateNorLockInTheSteadyState() throws {
        let dir = try TemporaryDirectory("kiosk-alloc")
        defer { dir.remove() }
        let library = dir.file("libcounter.so")
        let build = run(
            which("cc")!,
            [
                "-O2", "-shared", "-fPIC", "-o", library, TestPaths.repository + "/Benchmarks/kiosk_alloc_counter.c",
                "-ldl",
            ])
        #expect(build.status == 0, "\(build.errors)")
        try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 176_400, seed: 1)
        try Fixtures.makeTrack(
            dir.file("b.flac"), format: PCMFormat(sampleRate: 96000, channels: 2, bitsPerSample: 24), frames: 96000)
        var environment = currentEnvironment()
        environment["LD_PRELOAD"] = library
        environment["LIBASOUND_THREAD_SAFE"] = "0"
        for (device, seconds) in [("null", "20"), ("none", "2")] {
            let result = run(
                TestPaths.benchBinary,
                [
                    "play", dir.file("a.flac"), dir.file("b.flac"), "--device", device, "--seconds", seconds,
                    "--no-compare",
                ],
                environment: environment, timeoutSeconds: 120)
            #expect(result.status == 0, "\(result.errors)")
            guard let line = result.output.split(separator: "\n").first(where: { $0.contains("steady state:") }) else {
                Issue.record("no steady-state line: \(result.output)")
                continue
            }
            let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            // decoder iterations, allocations, locks, faults; output iterations, allocations, locks,
            // faults; decoder total
            #expect(numbers.count == 9, "\(line)")
            guard numbers.count == 9 else { continue }
            #expect(numbers[0] > 10 && numbers[4] > 10, "steady state was reached: \(line)")
            #expect(numbers[1] == 0 && numbers[2] == 0 && numbers[3] == 0, "decoder thread: \(line)")
            #expect(numbers[5] == 0 && numbers[6] == 0 && numbers[7] == 0, "output thread: \(line)")
            #expect(numbers[8] > 0, "the counter sees the decoder thread's allocations when it opens files")
        }
    }
}
