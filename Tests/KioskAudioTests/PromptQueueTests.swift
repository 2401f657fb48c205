// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskAudio

/// `PromptQueue` makes each prompt's clip on its worker, never on the loop, and hands it over from
/// the loop, one prompt at a time.
@Suite struct PromptQueueTests {
    private func pcm(_ text: String, seconds: Double = 0.5) -> SpokenPCM {
        SpokenPCM(
            text: text, samples: (0..<Int(22050 * seconds)).map { Int16(truncatingIfNeeded: $0 &* 7) },
            sampleRate: 22050)
    }

    @Test func aClipIsMadeOffTheLoopAndHandedOverOnTheLoop() throws {
        let loop = try EventLoop()
        var handed: [(frames: Int, onLoop: Bool)] = []
        let queue = PromptQueue(loop: loop) { clip in handed.append((clip.frames, loop.inLoopThread)) }
        defer { queue.stop() }
        queue.deviceChanged(rate: 44100, channels: 2, encoding: .s16)
        queue.add(pcm("Volume limit"), volume: 80, duckGain: nil) { _ in }
        #expect(handed.isEmpty, "add returns before the clip is made")
        #expect(!queue.isIdle)
        try loop.run(until: { !handed.isEmpty }, timeoutNanoseconds: 30_000_000_000)
        #expect(handed.count == 1)
        #expect(handed.first?.onLoop == true)
        // 0.5 s at 22 050 Hz made for a 44 100 Hz device: twice the frames, give or take libsoxr's flush.
        #expect(abs((handed.first?.frames ?? 0) - 22050) < 64)
    }

    @Test func whileAClipIsMadeOnlyTheNewestPromptWaitsAndPlaysNext() throws {
        let loop = try EventLoop()
        var handed = 0
        var finished: [String: String?] = [:]
        let queue = PromptQueue(loop: loop) { _ in handed += 1 }
        defer { queue.stop() }
        queue.deviceChanged(rate: 48000, channels: 2, encoding: .s32)
        for text in ["one", "two", "three"] {
            queue.add(pcm(text), volume: 80, duckGain: nil) { finished[text] = $0 }
        }
        #expect(finished["two"] == .some(nil), "replaced unspoken by three")
        try loop.run(until: { handed == 1 }, timeoutNanoseconds: 30_000_000_000)
        queue.finished(failure: nil)
        #expect(finished["one"] == .some(nil))
        try loop.run(until: { handed == 2 }, timeoutNanoseconds: 30_000_000_000)
        queue.finished(failure: nil)
        #expect(finished["three"] == .some(nil))
        #expect(queue.isIdle)
    }
}
