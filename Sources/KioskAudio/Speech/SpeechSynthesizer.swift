// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskEspeak
import Glibc
import Synchronization

/// Why a prompt could not be synthesized; the message names the voice or the text.
///
/// Thread: a value; any.
public struct SpeechError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    public init(message: String) {
        self.message = message
    }
}

/// libespeak-ng: text in a voice to 16-bit mono PCM at `sampleRate` (22050 Hz). Only the speech
/// helper process (`SpeechHelper`, `kiosk-player speak`) makes one: espeak-ng 1.51 aborts on texts a
/// folder name can hold (200 bytes of "a." pairs: "stack smashing detected") and has published
/// memory-safety CVEs, so the player never runs it in its own process.
///
/// espeak-ng keeps its state in globals and is not thread-safe, so the process has at most one
/// synthesizer at a time (a second `init` fails) and one thread drives it (the `Speaker`'s worker).
/// The library is opened with dlopen by the first synthesizer (`kiosk_espeak.h` says why) and stays
/// loaded: espeak-ng 1.51 hung in `espeak_Initialize` after an `espeak_Terminate` (the second
/// synthesizer of a test run). Without libespeak-ng.so.1 the first prompt fails with a message naming it.
///
/// Thread: the thread that made it, only (normally the speech worker); never the loop or an audio thread.
public final class SpeechSynthesizer {
    /// Sample rate of what `synthesize` returns (espeak-ng's own, 22050 Hz).
    public let sampleRate: Int
    private var voice: String?
    /// Whether a synthesizer exists (it owns the library's globals).
    private static let owned = Atomic<Bool>(false)
    /// The library's sample rate once loaded (0: not loaded yet).
    private static let loadedRate = Atomic<Int>(0)

    /// The PCM one `espeak_Synth` hands to the callback, gathered in order, up to `limit` samples.
    private final class Collector {
        var samples: [Int16] = []
        let limit: Int
        /// The text would have made more than `limit` samples: the synthesis was stopped there.
        var truncated = false

        init(limit: Int) {
            self.limit = limit
            samples.reserveCapacity(min(limit, 1 << 16))
        }
    }

    /// What one `synthesize` made.
    public struct Synthesized: Sendable {
        public var samples: [Int16]
        /// The text would have been longer than the `maxSamples` asked for: it was cut there.
        public var truncated: Bool
    }

    /// Loads espeak-ng and its voice data the first time (`dataPath`: espeak-ng-data's parent;
    /// nil: the installed one).
    public init(dataPath: String? = nil) throws(SpeechError) {
        guard Self.owned.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { throw SpeechError(message: "speech: espeak-ng is already in use in this process") }
        var rate = Self.loadedRate.load(ordering: .relaxed)
        if rate == 0 {
            var why = [CChar](repeating: 0, count: 256)
            guard kes_load(&why, why.count) == 0 else {
                Self.owned.store(false, ordering: .releasing)
                let reason = String(
                    decoding: why.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw SpeechError(
                    message:
                        "speech: cannot load espeak-ng (\(reason)): spoken prompts are off; `sudo apt install libespeak-ng1` turns them on"
                )
            }
            rate = Int(kes_espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, dataPath, 0))
            guard rate > 0 else {
                Self.owned.store(false, ordering: .releasing)
                throw SpeechError(
                    message:
                        "speech: cannot load espeak-ng's voice data (\(dataPath ?? "the installed espeak-ng-data")): spoken prompts are off; `sudo apt install espeak-ng-data` turns them on"
                )
            }
            Self.loadedRate.store(rate, ordering: .relaxed)
            kes_espeak_SetSynthCallback { wave, count, events in
                guard let wave, count > 0, let user = events?.pointee.user_data else { return 0 }
                let collector = Unmanaged<Collector>.fromOpaque(user).takeUnretainedValue()
                let room = collector.limit - collector.samples.count
                let taken = min(room, Int(count))
                collector.samples.append(contentsOf: UnsafeBufferPointer(start: wave, count: taken))
                guard taken < Int(count) else { return 0 }
                // 1 stops the synthesis: the memory a long text costs stays bounded by `limit`.
                collector.truncated = true
                return 1
            }
        }
        sampleRate = rate
    }

    deinit {
        Self.owned.store(false, ordering: .releasing)
    }

    /// The folder of espeak-ng's voice data in use (`espeak-ng-data`): what the helper may read.
    public var dataDirectory: String {
        var path: UnsafePointer<CChar>? = nil
        _ = kes_espeak_Info(&path)
        return path.map { String(cString: $0) } ?? ""
    }

    /// Speaks `text` in the espeak-ng voice `voice` ("en", "de", "en-us", "fr"...): its samples,
    /// at most `maxSamples` of them (the synthesis stops there). An unknown voice throws an error
    /// naming it.
    public func synthesize(_ text: String, voice: String, maxSamples: Int) throws(SpeechError) -> Synthesized {
        try select(voice)
        let collector = Collector(limit: max(0, maxSamples))
        let user = Unmanaged.passRetained(collector)
        defer { user.release() }
        let result = text.withCString { chars in
            kes_espeak_Synth(
                chars, strlen(chars) + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, user.toOpaque())
        }
        // A stop asked by the callback is no failure: the samples kept are the text's first seconds.
        guard result == EE_OK || collector.truncated else {
            throw SpeechError(message: "speech: espeak-ng could not speak \"\(text)\"")
        }
        return Synthesized(samples: collector.samples, truncated: collector.truncated)
    }

    private func select(_ name: String) throws(SpeechError) {
        if voice == name { return }
        guard !name.isEmpty, kes_espeak_SetVoiceByName(name) == EE_OK else {
            voice = nil
            throw SpeechError(
                message:
                    "speech: espeak-ng has no voice \"\(name)\" (voices are named like \"en\", \"en-us\", \"de\", \"fr\")"
            )
        }
        voice = name
    }
}
