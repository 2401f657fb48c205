// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskCommandLine
import KioskSystem

/// `kiosk-player say TEXT [--device PCM] [--language L] [--volume PERCENT]`: speaks through the
/// engine as the player's prompts do (for wiring a box and for tests), and exits when done.
enum SayCommand {
    static var command: Command {
        Command(
            name: "say",
            summary: "speak a text through the audio engine (espeak-ng), as the player's spoken prompts",
            synopsis: ["TEXT... [--device PCM] [--language VOICE] [--volume PERCENT]"],
            description: """
                Synthesizes the text with libespeak-ng in the given voice and plays it through the
                audio engine, then exits. Prints the prompt's length and how long it took to
                synthesize. An unknown voice or a device that does not open is an error (exit 1).

                """,
            options: [
                .text("--device", "PCM", "ALSA PCM, e.g. hw:1,0, plughw:CARD=DAC, file:'out.raw',raw, none"),
                .text("--language", "VOICE", "espeak-ng voice, e.g. en, en-us, de, fr; default en"),
                .integer("--volume", "PERCENT", 0...100, "0…100, default 80 (as speech.volume)"),
            ],
            run: run)
    }

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        let text = parsed.positionals.joined(separator: " ")
        guard !text.isEmpty else { throw parsed.usageError("what to say? give a text") }
        var settings = AudioSettings()
        settings.device = parsed.value("--device") ?? "default"
        let voice = parsed.value("--language") ?? "en"
        let volume = parsed.int("--volume") ?? 80

        let loop = try EventLoop()
        var failure: String?
        var done = false
        let engine = try AudioEngine(loop: loop, settings: settings) { _ in }
        defer { engine.shutdown() }
        let start = Syscalls.monotonicNanoseconds()
        let speaker = try Speaker(loop: loop, helper: .ownBinary()) { [unowned loop] result in
            switch result {
            case .failure(let error):
                failure = error.message
                loop.stop()
            case .success(let pcm):
                let milliseconds = (Syscalls.monotonicNanoseconds() - start) / 1_000_000
                let seconds = Double(pcm.samples.count) / Double(pcm.sampleRate)
                printLine(
                    "\(Int(seconds * 1000)) ms of speech at \(pcm.sampleRate) Hz, synthesized in \(milliseconds) ms")
                engine.speak(pcm, volume: volume) { problem in
                    failure = problem
                    done = true
                    loop.stop()
                }
            }
        }
        defer { speaker.stop() }
        loop.onSignal(SIGINT) { [unowned loop] _ in loop.stop() }
        loop.onSignal(SIGTERM) { [unowned loop] _ in loop.stop() }
        speaker.say(text, voice: voice)
        try loop.run()
        if let failure { throw ToolError(failure) }
        return done ? 0 : 130
    }
}
