import KioskSystem

/// Turns text into `SpokenPCM` on its own worker thread (espeak-ng is slow to start and not
/// thread-safe: this thread alone owns the `SpeechSynthesizer`, made on its first job), through a
/// bounded `PromptCache` so a repeated prompt costs no synthesis. Results come back on the loop thread.
///
/// Thread: `say` and `stop` on the loop thread; synthesis on the worker ("kiosk-speech").
public final class Speaker: Sendable {
    private struct Job: Sendable {
        var text: String
        var voice: String
        /// Not a prompt: load what prompts need (`warmUp`).
        var warmUp = false
    }

    /// What the worker thread alone touches.
    private final class Engine: @unchecked Sendable {
        let dataPath: String?
        var cache: PromptCache
        var synthesizer: SpeechSynthesizer?

        init(dataPath: String?, cacheBytes: Int) {
            self.dataPath = dataPath
            cache = PromptCache(capacityBytes: cacheBytes)
        }

        /// espeak-ng with its voice data, and libsoxr (the loop resamples each prompt with it).
        func warmUp() {
            do throws(SpeechError) {
                if synthesizer == nil { synthesizer = try SpeechSynthesizer(dataPath: dataPath) }
            } catch {
                Log.warning("\(error)")
            }
            if let why = Resampler.load() { Log.warning("speech: \(why)") }
        }

        func speak(_ job: Job) -> Result<SpokenPCM, SpeechError> {
            do throws(SpeechError) {
                if synthesizer == nil { synthesizer = try SpeechSynthesizer(dataPath: dataPath) }
                let synthesizer = synthesizer!
                if let samples = cache.samples(job.text, voice: job.voice) {
                    return .success(
                        SpokenPCM(
                            text: job.text, samples: samples, sampleRate: synthesizer.sampleRate, synthesized: false,
                            synthesisCount: synthesizer.synthesized))
                }
                let samples = try synthesizer.synthesize(job.text, voice: job.voice)
                cache.keep(samples, job.text, voice: job.voice)
                return .success(
                    SpokenPCM(
                        text: job.text, samples: samples, sampleRate: synthesizer.sampleRate, synthesized: true,
                        synthesisCount: synthesizer.synthesized))
            } catch {
                return .failure(error)
            }
        }
    }

    private let worker: WorkerThread<Job>

    /// Starts the worker; `onResult` gets each `say`'s outcome on `loop`'s thread, in order.
    /// `dataPath`: espeak-ng-data's parent (nil: the installed one).
    public init(
        loop: EventLoop, dataPath: String? = nil, cacheBytes: Int = 4 << 20,
        onResult: @escaping (Result<SpokenPCM, SpeechError>) -> Void
    ) throws(Errno) {
        let mailbox = Mailbox<Result<SpokenPCM, SpeechError>>(loop: loop, handler: onResult)
        let engine = Engine(dataPath: dataPath, cacheBytes: cacheBytes)
        // At most a few prompts wait: a burst of messages speaks the latest ones, not a backlog.
        worker = try WorkerThread(name: "kiosk-speech", maxQueued: 4) { job in
            if job.warmUp {
                engine.warmUp()
            } else {
                mailbox.send(engine.speak(job))
            }
        }
    }

    /// Loads espeak-ng, its voice data and libsoxr now, on the worker: the first prompt then costs
    /// no loading, and the loop (which makes each prompt's clip with libsoxr) is not held up by a
    /// dlopen in the middle of a button gesture.
    public func warmUp() {
        _ = worker.submit(Job(text: "", voice: "", warmUp: true))
    }

    /// Synthesizes `text` in the espeak-ng voice `voice` (or takes it from the cache).
    public func say(_ text: String, voice: String) {
        _ = worker.submit(Job(text: text, voice: voice))
    }

    /// Stops the worker (a synthesis under way finishes first).
    public func stop() {
        worker.stop()
    }
}
