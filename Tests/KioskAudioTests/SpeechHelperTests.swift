// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskAudio

/// What the `Speaker` says next on `loop`: waits for the outcome of one `say`.
private final class SpeechRig {
    let loop: EventLoop
    var outcomes: [Result<SpokenPCM, SpeechError>] = []
    var speaker: Speaker!

    init(loop: EventLoop? = nil, timeoutMilliseconds: Int = 15_000) throws {
        self.loop = try loop ?? EventLoop()
        speaker = try Speaker(
            loop: self.loop, helper: .binary(TestPaths.playerBinary), timeoutMilliseconds: timeoutMilliseconds
        ) { [unowned self] in self.outcomes.append($0) }
    }

    /// Starts the helper: one prompt spoken (its outcome, through the loop, comes after the pid is known).
    func startHelper() throws {
        _ = try #require(try say("Ready")).get()
    }

    func say(_ text: String, voice: String = "en") throws -> Result<SpokenPCM, SpeechError>? {
        let before = outcomes.count
        speaker.say(text, voice: voice)
        try loop.run(until: { self.outcomes.count > before }, timeoutNanoseconds: 60_000_000_000)
        return outcomes.count > before ? outcomes.last : nil
    }

    func message(_ outcome: Result<SpokenPCM, SpeechError>?) -> String? {
        if case .failure(let error) = outcome { return error.message }
        return nil
    }
}

/// espeak-ng runs in the speech helper process (`kiosk-player speak`): whatever a text does to the
/// library, the player loses that prompt at most.
@Suite(.tags(.integration)) struct SpeechHelperTests {
    /// Texts of the shapes that abort libespeak-ng 1.51 (Debian 12) or grow its memory, made here.
    static let hostileTexts: [String] = [
        String(repeating: "a.", count: 100),
        "http://" + String(repeating: "a.", count: 100),
        "www." + String(repeating: "a.", count: 100),
        "x@" + String(repeating: "a.", count: 100),
        String(repeating: "Gruffalo ", count: 2300),
        String(repeating: "\u{1}\u{7f}\u{200b}!?.", count: 500),
    ]

    @Test(arguments: hostileTexts)
    func aHostileTextCostsAtMostItsPromptAndTheNextPromptSpeaks(text: String) throws {
        let rig = try SpeechRig()
        defer { rig.speaker.stop() }
        let hostile = try rig.say(text)
        if let message = rig.message(hostile) {
            #expect(message.contains("speech helper"), "\(message)")
        }
        let next = try #require(try rig.say("Insert a USB stick with music")).get()
        #expect(next.samples.count > next.sampleRate / 2)
    }

    @Test func aTextTheHelperHungOnIsKilledAfterTheTimeoutAndNotTriedAgain() throws {
        let rig = try SpeechRig(timeoutMilliseconds: 1000)
        defer { rig.speaker.stop() }
        try rig.startHelper()
        let hung = rig.speaker.helperProcess
        kill(hung, SIGSTOP)
        let first = rig.message(try rig.say("The Gruffalo"))
        #expect(first?.contains("took more than 1000 ms") == true, "\(first ?? "spoken")")
        #expect(first?.contains("\"The Gruffalo\"") == true)
        let again = rig.message(try rig.say("The Gruffalo"))
        #expect(again == "speech: not trying \"The Gruffalo\" again: it stopped the speech helper")
        #expect(rig.speaker.helperStarts == 1, "a text not tried again starts no helper")
        let other = try #require(try rig.say("Room on the Broom")).get()
        #expect(!other.samples.isEmpty)
        #expect(rig.speaker.helperStarts == 2)
        #expect(rig.speaker.helperProcess != hung)
    }

    @Test func stoppingTheSpeakerDoesNotWaitForAHungHelper() throws {
        let rig = try SpeechRig(timeoutMilliseconds: 600_000)
        try rig.startHelper()
        let hung = rig.speaker.helperProcess
        kill(hung, SIGSTOP)
        rig.speaker.say("The Gruffalo", voice: "en")
        // The worker takes the prompt and waits for the stopped helper (its timeout is 10
        // minutes) until stop ends the wait: without that, this test would not end.
        try rig.loop.run(forNanoseconds: 300_000_000)
        rig.speaker.stop()
        var status: Int32 = 0
        #expect(waitpid(hung, &status, WNOHANG) == -1, "the helper was reaped")
        #expect(rig.speaker.helperProcess == 0)
    }

    @Test func aHelperKilledMidPromptCostsThatPromptAndTheTrackGoesOnBitExact() throws {
        let dir = try TemporaryDirectory("kiosk-helper-kill")
        defer { dir.remove() }
        let cd = PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16)
        let track = try Fixtures.makeTrack(dir.file("a.flac"), format: cd, frames: 88200)
        let device = CapturingOutput()
        device.paced = true
        let run = try EngineRun(capturingTo: device)
        let rig = try SpeechRig(loop: run.loop)
        defer { rig.speaker.stop() }
        try rig.startHelper()
        var spoken = 0
        run.engine.setQueue([TrackRequest(id: 1, path: dir.file("a.flac"))], startAt: 0, startFrame: 0)
        run.engine.play()
        try run.run { device.framesTaken.load(ordering: .relaxed) > 22050 }
        // Stopped, it cannot answer before the kill: the prompt is under way when it dies.
        let helper = rig.speaker.helperProcess
        let before = rig.outcomes.count
        kill(helper, SIGSTOP)
        rig.speaker.say("New card. Hold Select to link it to The Gruffalo", voice: "en")
        run.loop.schedule(afterMilliseconds: 200) { kill(helper, SIGKILL) }
        #expect(try run.run(seconds: 60) { run.finished && rig.outcomes.count == before + 1 })
        if case .success(let pcm) = rig.outcomes.last {
            run.engine.speak(pcm, volume: 100) { _ in spoken += 1 }
        }
        run.shutdown()
        let message = rig.message(rig.outcomes.last)
        #expect(message?.contains("died (signal 9") == true, "\(message ?? "spoken")")
        #expect(spoken == 0)
        #expect(
            device.captured == Fixtures.bytes(track, width: 2), "the track played whole, bit-exact, nothing between")
    }

    @Test func whatTheHelperMakesStopsAtTheSamplesAsked() throws {
        let helper = try SpeechHelperProcess(launch: .binary(TestPaths.playerBinary), timeoutMilliseconds: 30_000)
        defer { helper.stop() }
        let outcome = helper.speak(String(repeating: "Gruffalo ", count: 20), voice: "en", maxSamples: 22050)
        #expect(outcome == .speech(samples: samplesOf(outcome), truncated: true))
        #expect(samplesOf(outcome).count == 22050)
    }

    @Test func anUnknownVoiceIsRefusedAndTheHelperGoesOn() throws {
        let helper = try SpeechHelperProcess(launch: .binary(TestPaths.playerBinary), timeoutMilliseconds: 30_000)
        defer { helper.stop() }
        guard case .refused(let message) = helper.speak("hello", voice: "xx-nowhere", maxSamples: 22050) else {
            Issue.record("an unknown voice was not refused")
            return
        }
        #expect(message.contains("no voice \"xx-nowhere\""))
        #expect(!samplesOf(helper.speak("hello", voice: "en", maxSamples: 22050)).isEmpty)
        #expect(helper.starts == 1)
    }

    /// `kiosk-player say` of each hostile text, as a box's tools would run it: it ends with a status
    /// (never a signal), and it and its helper stay under 150 MB resident together (each one's
    /// VmHWM, sampled until it ends: `wait4`'s `ru_maxrss` would count this test process, whose
    /// memory a spawned child's exec inherits as its high-water mark).
    @Test(arguments: hostileTexts + [String(repeating: "word ", count: 20_000)])
    func sayOfAnyTextEndsWithAStatusAndStaysUnder150MB(text: String) throws {
        let pid = try Syscalls.spawn(
            TestPaths.playerBinary, arguments: ["say", "--device", "none", text], stdout: .null(writing: true),
            stderr: .null(writing: true))
        var peaks: [Int32: Int] = [:]
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            for process in [pid] + childProcesses(of: pid) {
                peaks[process] = max(peaks[process] ?? 0, residentPeakKB(of: process))
            }
            Syscalls.sleep(nanoseconds: 10_000_000)
        }
        #expect(status & 0x7f == 0, "ended by signal \(status & 0x7f)")
        #expect([0, 1].contains((status >> 8) & 0xff))
        #expect((peaks[pid] ?? 0) > 0, "say's memory was sampled")
        // A helper that speaks lives as long as say; one that dies at once may go unsampled.
        if text.hasPrefix("word") { #expect(peaks.count == 2, "its helper's too: \(peaks)") }
        let total = peaks.values.reduce(0, +)
        #expect(total < 150 * 1024, "\(peaks) kB resident at most")
    }
}

/// The children of `pid`, whichever of its threads started them (`/proc/PID/task/TID/children`: the
/// helper is the speech worker's child, not the main thread's).
private func childProcesses(of pid: Int32) -> [Int32] {
    listDirectory("/proc/\(pid)/task").flatMap { thread -> [Int32] in
        guard let bytes = try? Syscalls.readFile("/proc/\(pid)/task/\(thread)/children", limit: 4096) else {
            return []
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: " ").compactMap { Int32($0) }
    }
}

/// `pid`'s peak resident set (VmHWM) in kB; 0 when it is gone.
private func residentPeakKB(of pid: Int32) -> Int {
    guard let bytes = try? Syscalls.readFile("/proc/\(pid)/status", limit: 16_384),
        let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first(where: {
            $0.hasPrefix("VmHWM:")
        })
    else { return 0 }
    return Int(line.filter(\.isNumber)) ?? 0
}

private func samplesOf(_ outcome: SpeechHelperProcess.Outcome) -> [Int16] {
    if case .speech(let samples, _) = outcome { return samples }
    return []
}

/// The text every prompt becomes before the helper sees it.
@Suite struct SpokenTextTests {
    @Test func controlCharactersAndLineBreaksBecomeSingleSpaces() {
        #expect(SpokenText.prepared("  The\nGruffalo\u{0}\t\u{1b}[2J  ") == "The Gruffalo [2J")
    }

    @Test func aRunOfOnePunctuationMarkIsSpokenAsOne() {
        #expect(SpokenText.prepared("Wow!!!!! Really...") == "Wow! Really.")
    }

    @Test func aLongTextIsCutAtAWordBefore240Characters() {
        let spoken = SpokenText.prepared(String(repeating: "Gruffalo ", count: 100_000))
        #expect(spoken.count <= SpokenText.maxCharacters)
        #expect(spoken.count > SpokenText.maxCharacters - 40)
        #expect(spoken.hasSuffix("Gruffalo"))
    }

    @Test func aLongWordIsCutAt240Characters() {
        #expect(SpokenText.prepared(String(repeating: "a.", count: 1_000_000)).count == SpokenText.maxCharacters)
    }
}
