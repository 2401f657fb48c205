import KioskAudio
import KioskCore
import KioskSystem

/// The player's words to the engine: each text goes to the `Speaker` (synthesized off the loop,
/// cached), and the PCM that comes back plays through the engine at `speech.volume`.
///
/// Thread: the loop thread (the speaker's worker only synthesizes).
final class SpokenPrompts {
    private var speaker: Speaker?
    private let language: String

    /// Speaks `player`'s messages through `engine` as `resolved` says (nothing when the mode is off;
    /// by default it is off when the box has a screen).
    init(resolved: ResolvedConfig, hasScreen: Bool, loop: EventLoop, engine: AudioEngine, player: Player) {
        let speech = resolved.config.speech
        let mode = resolved.speechMode(hasScreen: hasScreen)
        language = speech.language
        player.speechMode = mode
        guard mode != .off else { return }
        do {
            speaker = try Speaker(loop: loop) { [weak engine] result in
                switch result {
                case .success(let pcm): engine?.speak(pcm, volume: speech.volume)
                case .failure(let error): Log.warning("\(error)")
                }
            }
        } catch {
            Log.error("speech: cannot start the speech thread: \(error); no spoken prompts")
            return
        }
        Log.info("speech: \(mode.rawValue) in voice \(language) at \(speech.volume) %")
        player.onSpeak = { [weak self] text in self?.say(text) }
    }

    func say(_ text: String) {
        speaker?.say(text, voice: language)
    }

    func stop() {
        speaker?.stop()
    }
}
