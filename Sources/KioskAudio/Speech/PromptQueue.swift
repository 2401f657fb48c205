// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// The engine's spoken prompts waiting and playing: one at a time, each made ready for the device
/// as the loop last heard it was set up (a prompt that finds the device otherwise comes back and
/// is made again, once). A clip is made on a worker ("kiosk-prompt"), not on the loop: resampling,
/// mixing and converting a few seconds of speech took 23-27 ms here (debug build, x86_64), ten
/// times that and more under emulation, where the loop's stall froze the status light's blinking
/// (system test 23). The clip comes back through a mailbox and is handed to the output from there.
///
/// Thread: the loop thread only (`AudioEngine` owns it); the worker only makes clips.
final class PromptQueue {
    private struct Waiting {
        var pcm: SpokenPCM
        var volume: Int
        var duckGain: Int32?
        var onFinished: (String?) -> Void
        var tries = 0
    }

    /// What the worker makes: `pcm` for the device's set-up, tagged with the making it belongs to.
    private struct Job: Sendable {
        var pcm: SpokenPCM
        var volume: Int
        var duckGain: Int32?
        var target: (rate: Int, channels: Int, encoding: SampleEncoding)
        var making: Int
    }

    /// A made clip (or why not), for the making `making`.
    private struct Made: Sendable {
        var making: Int
        var clip: Result<PromptClip, AudioOutputError>
    }

    private let loop: any EventLoopProtocol
    private let hand: (PromptClip) -> Void
    /// Started by the first prompt (an engine that never speaks has no such thread).
    private var worker: WorkerThread<Job>?
    private var made: Mailbox<Made>?
    /// The device's set-up as the output last reported it (nil: not known yet; a prompt then opens
    /// it for the prompt's own format).
    private var device: (rate: Int, channels: Int, encoding: SampleEncoding)?
    private var waiting: [Waiting] = []
    /// The prompt whose clip the worker is making, and that making's number (a clip of an older
    /// one, replaced or given up meanwhile, is dropped when it comes back).
    private var making: (Waiting, Int)?
    private var makings = 0
    /// The prompt handed to the output thread (kept here so its memory is freed on this thread).
    private var playing: (Waiting, PromptClip)?

    /// `hand` gives a made clip to the output thread (on the loop thread).
    init(loop: any EventLoopProtocol, hand: @escaping (PromptClip) -> Void) {
        self.loop = loop
        self.hand = hand
    }

    var isIdle: Bool { playing == nil && making == nil && waiting.isEmpty }

    /// The output set the device up for a stream.
    func deviceChanged(rate: Int, channels: Int, encoding: SampleEncoding) {
        device = (rate, channels, encoding)
    }

    /// Queues `pcm` at `volume` % (a playing track ducked to `duckGain` under it, or paused when
    /// nil). While one plays (or is being made), only the newest waits: a burst of presses says
    /// where it ended, not every step (and the queue cannot grow); the one it replaces finishes
    /// unspoken.
    func add(_ pcm: SpokenPCM, volume: Int, duckGain: Int32?, onFinished: @escaping (String?) -> Void) {
        if playing != nil || making != nil {
            for replaced in waiting { replaced.onFinished(nil) }
            waiting.removeAll()
        }
        waiting.append(Waiting(pcm: pcm, volume: volume, duckGain: duckGain, onFinished: onFinished))
        next()
    }

    /// The prompt handed over has played (or could not: `failure`): its caller hears it; the next
    /// one is made.
    func finished(failure: String?) {
        let done = playing?.0
        playing = nil
        done?.onFinished(failure)
        next()
    }

    /// The output found the device set up otherwise: the same prompt, made for it (once; then it is
    /// given up as finished).
    func refused(rate: Int, channels: Int, encoding: SampleEncoding) {
        device = (rate, channels, encoding)
        guard var again = playing?.0 else { return next() }
        playing = nil
        again.tries += 1
        if again.tries > 1 {
            again.onFinished("the device keeps changing its set-up")
            return next()
        }
        waiting.insert(again, at: 0)
        next()
    }

    /// Stops the worker (a clip under way is finished and dropped).
    func stop() {
        worker?.stop()
        worker = nil
    }

    /// Sends the first waiting prompt to the worker when nothing is being made or played.
    private func next() {
        guard playing == nil, making == nil, !waiting.isEmpty else { return }
        let item = waiting.removeFirst()
        guard let worker = startedWorker() else {
            item.onFinished("cannot start the prompt worker")
            return next()
        }
        makings += 1
        making = (item, makings)
        let target = device ?? (item.pcm.sampleRate, 1, .s16)
        worker.submit(
            Job(pcm: item.pcm, volume: item.volume, duckGain: item.duckGain, target: target, making: makings))
    }

    /// A clip came back from the worker: handed over, unless its prompt is no longer the one made.
    private func arrived(_ result: Made) {
        guard let (item, number) = making, number == result.making else { return }
        making = nil
        switch result.clip {
        case .success(let clip):
            playing = (item, clip)
            hand(clip)
        case .failure(let error):
            item.onFinished("\(error)")
            next()
        }
    }

    private func startedWorker() -> WorkerThread<Job>? {
        if let worker { return worker }
        let mailbox = Mailbox<Made>(loop: loop) { [weak self] in self?.arrived($0) }
        do throws(Errno) {
            worker = try WorkerThread(name: "kiosk-prompt") { job in
                let clip = Result<PromptClip, AudioOutputError> { () throws(AudioOutputError) in
                    try PromptClip(
                        job.pcm, volume: job.volume, duckGain: job.duckGain, sampleRate: job.target.rate,
                        channels: job.target.channels, encoding: job.target.encoding)
                }
                mailbox.send(Made(making: job.making, clip: clip))
            }
        } catch {
            Log.warning("speech: cannot start the prompt worker: \(error)")
            return nil
        }
        made = mailbox
        return worker
    }
}
