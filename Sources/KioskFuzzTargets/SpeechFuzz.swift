// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskSystem

/// The `speech-text` target: each input, as text, through `SpokenText` and a running speech helper
/// (`kiosk-player speak`, found at `KIOSK_PLAYER_BINARY` or beside this program). The helper may die
/// on a text (libespeak-ng 1.51 aborts on some): that costs the prompt, and this process must see
/// it as an outcome, never crash or hang itself.
///
/// Thread: the fuzzing thread.
final class SpeechFuzzRig {
    nonisolated(unsafe) static let shared = SpeechFuzzRig()

    private let helper: SpeechHelperProcess

    private init() {
        let own = Syscalls.ownExecutablePath() ?? "./kiosk-fuzz"
        let directory = own.lastIndex(of: "/").map { String(own[..<$0]) } ?? "."
        let binary = Syscalls.environment("KIOSK_PLAYER_BINARY") ?? directory + "/kiosk-player"
        do {
            helper = try SpeechHelperProcess(launch: .binary(binary), timeoutMilliseconds: 5000)
        } catch {
            fatalError("speech-text: \(error)")
        }
    }

    func run(_ data: [UInt8]) {
        let text = SpokenText.prepared(String(decoding: data, as: UTF8.self))
        guard !text.isEmpty else { return }
        switch helper.speak(text, voice: "en", maxSamples: SpokenText.maxSeconds * 22050) {
        case .speech(let samples, _):
            if samples.count > SpokenText.maxSeconds * 22050 { fatalError("the helper sent more samples than asked") }
        case .refused, .lost: break
        }
    }
}
