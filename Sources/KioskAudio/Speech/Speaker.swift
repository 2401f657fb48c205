// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// Turns text into `SpokenPCM` on its own worker thread, through the speech helper process
/// (`SpeechHelperProcess`: espeak-ng never runs in the player) and a bounded `PromptCache`, so a
/// repeated prompt costs no synthesis. Every text is `SpokenText.prepared` first. A text the helper
/// died or hung on costs that prompt (a warning naming the text), the helper is started again for
/// the next one, and that text is not tried again (the last `maxFatalTexts` are remembered).
/// Results come back on the loop thread.
///
/// Thread: `say`, `warmUp` and `stop` on the loop thread; the helper is driven from the worker
/// ("kiosk-speech").
public final class Speaker: Sendable {
    /// How many texts that killed the helper are remembered (and not tried again).
    static let maxFatalTexts = 64

    private struct Job: Sendable {
        var text: String
        var voice: String
        /// Not a prompt: start the helper and load what prompts need (`warmUp`).
        var warmUp = false
    }

    /// What the worker thread alone touches.
    private final class Engine: @unchecked Sendable {
        let helper: SpeechHelperProcess
        var cache: PromptCache
        /// Texts (voice, NUL, text) the helper died or hung on, oldest first.
        var fatal: [String] = []
        /// Texts the helper has made (a cached prompt does not count).
        var synthesized = 0

        init(helper: SpeechHelperProcess, cacheBytes: Int) {
            self.helper = helper
            cache = PromptCache(capacityBytes: cacheBytes)
        }

        /// The helper with espeak-ng and its voice data, and libsoxr (the loop resamples each
        /// prompt with it).
        func warmUp() {
            if let why = helper.start() { Log.warning("speech: the speech helper \(why)") }
            if let why = Resampler.load() { Log.warning("speech: \(why)") }
        }

        func speak(_ job: Job) -> Result<SpokenPCM, SpeechError> {
            let text = SpokenText.prepared(job.text)
            guard !text.isEmpty else { return .failure(SpeechError(message: "speech: nothing to say")) }
            let key = job.voice + "\u{0}" + text
            if fatal.contains(key) {
                return .failure(
                    SpeechError(message: "speech: not trying \"\(text)\" again: it stopped the speech helper"))
            }
            if let samples = cache.samples(text, voice: job.voice), helper.sampleRate > 0 {
                return .success(pcm(text, samples, synthesized: false))
            }
            let rate = helper.sampleRate > 0 ? helper.sampleRate : 22050
            switch helper.speak(text, voice: job.voice, maxSamples: SpokenText.maxSeconds * rate) {
            case .speech(let samples, let truncated):
                if truncated { Log.notice("speech: \"\(text)\" cut at \(SpokenText.maxSeconds) s") }
                synthesized += 1
                cache.keep(samples, text, voice: job.voice)
                return .success(pcm(text, samples, synthesized: true))
            case .refused(let message):
                return .failure(SpeechError(message: message))
            case .lost(let why):
                fatal.append(key)
                if fatal.count > Speaker.maxFatalTexts { fatal.removeFirst() }
                return .failure(
                    SpeechError(
                        message:
                            "speech: the speech helper \(why) on \"\(text)\"; that prompt is skipped, the text will not be tried again"
                    ))
            }
        }

        private func pcm(_ text: String, _ samples: [Int16], synthesized made: Bool) -> SpokenPCM {
            SpokenPCM(
                text: text, samples: samples, sampleRate: helper.sampleRate, synthesized: made,
                synthesisCount: synthesized)
        }
    }

    private let worker: WorkerThread<Job>
    private let engine: Engine

    /// Starts the worker; `onResult` gets each `say`'s outcome on `loop`'s thread, in order.
    /// `helper`: how the speech helper starts (`.ownBinary()` in the player); a helper that
    /// answers nothing within `timeoutMilliseconds` is killed.
    public init(
        loop: any EventLoopProtocol, helper: SpeechHelperLaunch, timeoutMilliseconds: Int = 15_000,
        cacheBytes: Int = 4 << 20,
        onResult: @escaping (Result<SpokenPCM, SpeechError>) -> Void
    ) throws(Errno) {
        let mailbox = Mailbox<Result<SpokenPCM, SpeechError>>(loop: loop, handler: onResult)
        let engine = Engine(
            helper: try SpeechHelperProcess(launch: helper, timeoutMilliseconds: timeoutMilliseconds),
            cacheBytes: cacheBytes)
        self.engine = engine
        // At most a few prompts wait: a burst of messages speaks the latest ones, not a backlog.
        worker = try WorkerThread(name: "kiosk-speech", maxQueued: 4) { job in
            if job.warmUp {
                engine.warmUp()
            } else {
                mailbox.send(engine.speak(job))
            }
        }
    }

    /// Starts the speech helper (espeak-ng and its voice data) and loads libsoxr now, on the
    /// worker: the first prompt then costs no loading, and the loop (which makes each prompt's clip
    /// with libsoxr) is not held up by a dlopen in the middle of a button gesture.
    public func warmUp() {
        _ = worker.submit(Job(text: "", voice: "", warmUp: true))
    }

    /// Synthesizes `text` (`SpokenText.prepared`) in the espeak-ng voice `voice` (or takes it from
    /// the cache).
    public func say(_ text: String, voice: String) {
        _ = worker.submit(Job(text: text, voice: voice))
    }

    /// The running helper's pid (0: none); for tests that end it. Read it while the worker is idle.
    public var helperProcess: Int32 { engine.helper.pid }

    /// Helpers started so far; for tests. Read it while the worker is idle.
    public var helperStarts: Int { engine.helper.starts }

    /// Stops the worker and the helper (a prompt under way is given up: a hung helper must not
    /// hold up the player's exit).
    public func stop() {
        engine.helper.cancel()
        worker.stop()
        engine.helper.stop()
    }
}
