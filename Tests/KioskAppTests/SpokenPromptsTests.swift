// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskConfig
import KioskCore
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskApp

/// `SpokenPrompts.whenQuiet`: a shutdown waits for what is being said ("Shutting down"), never
/// longer than `quietWaitMs`. Each holds `EspeakTestLock` (libespeak-ng is one per process).
@Suite(.tags(.integration), .serialized) struct SpokenPromptsTests {
    private struct Rig {
        let loop: EventLoop
        let engine: AudioEngine
        let player: Player
        let speech: SpokenPrompts

        init() throws {
            loop = try EventLoop()
            engine = try AudioEngine(loop: loop, settings: AudioSettings(device: "none", realtimePriority: nil)) { _ in
            }
            let board = try BoardProfile.parse(
                Array(#"{"name": "t", "description": "no screen", "screen": {"type": "none"}}"#.utf8), file: "t.json")
            var config = Config()
            config.stateDirectory = "/nonexistent/kiosk-spoken-prompts-test"
            player = Player(
                loop: loop, engine: engine, screen: nil, config: config, outputDevices: ["none"], resume: nil,
                deviceOpens: OutputPresence.isPresent)
            speech = SpokenPrompts(
                resolved: ResolvedConfig(config: config, board: board), hasScreen: false, loop: loop, engine: engine,
                player: player, helper: .binary(TestPaths.playerBinary))
        }
    }

    @Test func withNothingSaidTheShutdownGoesOnAtOnce() throws {
        try EspeakTestLock.run {
            let rig = try Rig()
            defer {
                rig.speech.stop()
                rig.engine.shutdown()
            }
            var done = false
            rig.speech.whenQuiet(loop: rig.loop) { done = true }
            #expect(done)
        }
    }

    @Test func theShutdownWaitsUntilWhatIsSaidHasBeenHeard() throws {
        try EspeakTestLock.run { try shutdownWaits() }
    }

    private func shutdownWaits() throws {
        let rig = try Rig()
        defer {
            rig.speech.stop()
            rig.engine.shutdown()
        }
        rig.speech.say("Shutting down. Safe to unplug in a moment")
        let said = rig.loop.nowNanoseconds
        var doneAt: UInt64?
        rig.speech.whenQuiet(loop: rig.loop) { doneAt = rig.loop.nowNanoseconds }
        #expect(doneAt == nil, "not before the words are heard")
        try rig.loop.run(until: { doneAt != nil }, timeoutNanoseconds: 20_000_000_000)
        let waited = Double((doneAt ?? said) - said) / 1e9
        // About two seconds of speech on the real-time silent sink; the words were heard to their end,
        // not cut at the wait's limit (which a busy machine may well reach: no bound on the time).
        #expect(waited > 1, "waited \(waited) s")
        #expect(rig.engine.isSpeechIdle)
    }
}
