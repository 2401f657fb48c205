// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskSystem
import KioskTestSupport
import Testing

private var playerBuilt: Bool { access(TestPaths.playerBinary, X_OK) == 0 }

/// `kiosk-player say`: the text through libespeak-ng and the engine to a device, then exit.
@Suite(
    .tags(.integration), .enabled(if: playerBuilt, "kiosk-player is not built next to the tests (swift build)"))
struct SayCommandTests {
    @Test func sayPlaysTheSpeechToTheDeviceAndExits() throws {
        let dir = try TemporaryDirectory("kiosk-say")
        defer { dir.remove() }
        let result = run(
            TestPaths.playerBinary,
            ["say", "Insert a USB stick", "--device", "file:'\(dir.file("out.raw"))',raw", "--volume", "100"],
            timeoutSeconds: 60)
        #expect(result.status == 0, "\(result.errors)")
        let bytes = try Syscalls.readFile(dir.file("out.raw"))
        // Opened for the prompt as synthesized: 22050 Hz mono S16, about a second and a quarter.
        let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let seconds = Double(samples.count) / 22050
        #expect(seconds > 0.6 && seconds < 3, "\(seconds) s")
        #expect(result.output.contains("\(samples.count * 1000 / 22050) ms of speech at 22050 Hz"), "\(result.output)")
        #expect(samples.contains { abs(Int($0)) > 4000 }, "audible")
    }

    @Test func anUnknownVoiceIsAClearError() {
        let result = run(TestPaths.playerBinary, ["say", "hello", "--language", "klingon-xx", "--device", "none"])
        #expect(result.status == 1)
        #expect(result.errors.contains(#"espeak-ng has no voice "klingon-xx""#), "\(result.errors)")
    }

    @Test func sayWithoutTextIsAUsageError() {
        let result = run(TestPaths.playerBinary, ["say"])
        #expect(result.status == 2)
        #expect(result.errors.contains("what to say?"))
    }
}
