// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskConfig
import KioskCore
import KioskSystem

/// The player's words to the engine: each text goes to the `Speaker` (synthesized in the speech
/// helper process, cached), and the PCM that comes back plays through the engine at `speech.volume` (the track
/// pausing for it, or ducked under it with `speech.duck`).
///
/// Thread: the loop thread (the speaker's worker only synthesizes).
final class SpokenPrompts {
    private var speaker: Speaker?
    private let language: String
    /// Texts said and not finished yet (synthesizing, waiting or playing).
    private var pending = 0
    /// The longest `whenQuiet` waits: a prompt is a few seconds; a stuck one must not keep the
    /// power on.
    static let quietWaitMs = 6000

    /// Speaks `player`'s messages through `engine` as `resolved` says (nothing when the mode is off;
    /// by default it is off when the box has a screen).
    /// `helper`: how the speech helper process starts (this binary's `speak` role in the player).
    init(
        resolved: ResolvedConfig, hasScreen: Bool, loop: EventLoop, engine: AudioEngine, player: Player,
        helper: SpeechHelperLaunch = .ownBinary()
    ) {
        let speech = resolved.config.speech
        let mode = resolved.speechMode(hasScreen: hasScreen)
        language = speech.language
        player.speechMode = mode
        // The bedtime rules' announcements and the battery's warnings are said even with speech off
        // (`bedtime.speak`, `battery.speak`).
        guard mode != .off || resolved.config.bedtime?.speak == true || resolved.config.battery?.speak == true
        else { return }
        do {
            speaker = try Speaker(loop: loop, helper: helper) { [weak engine, weak self] result in
                switch result {
                case .success(let pcm):
                    guard let engine else { return }
                    engine.speak(pcm, volume: speech.volume, duckDb: speech.duck ? speech.duckDb : nil) { _ in
                        self?.pending -= 1
                    }
                case .failure(let error):
                    Log.warning("\(error)")
                    self?.pending -= 1
                }
            }
        } catch {
            Log.error("speech: cannot start the speech thread: \(error); no spoken prompts")
            return
        }
        let under = speech.duck ? ", the track going on \(speech.duckDb) dB lower under it" : ""
        Log.info("speech: \(mode.rawValue) in voice \(language) at \(speech.volume) %\(under)")
        player.listen(to: .speech) { [weak self] change in
            if case .speak(let text) = change { self?.say(text) }
        }
        // Speech is on: its libraries load now, off the loop, not at the first prompt.
        speaker?.warmUp()
    }

    func say(_ text: String) {
        guard let speaker else { return }
        Log.info("speech: \"\(text)\"")
        pending += 1
        speaker.say(text, voice: language)
    }

    /// Runs `body` once every prompt said so far has been heard (at once when none is pending),
    /// or after `quietWaitMs`.
    func whenQuiet(loop: EventLoop, waitedMs: Int = 0, _ body: @escaping () -> Void) {
        if pending <= 0 || waitedMs >= Self.quietWaitMs {
            body()
            return
        }
        loop.schedule(afterMilliseconds: 100) { [weak self] in
            guard let self else { return body() }
            self.whenQuiet(loop: loop, waitedMs: waitedMs + 100, body)
        }
    }

    func stop() {
        speaker?.stop()
    }
}
