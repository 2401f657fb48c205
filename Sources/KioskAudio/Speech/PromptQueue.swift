// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// The engine's spoken prompts waiting and playing: one at a time, each made ready for the device
/// as the loop last heard it was set up (a prompt that finds the device otherwise comes back and
/// is made again, once).
///
/// Thread: the loop thread only (`AudioEngine` owns it).
final class PromptQueue {
    private struct Waiting {
        var pcm: SpokenPCM
        var volume: Int
        var duckGain: Int32?
        var onFinished: (String?) -> Void
        var tries = 0
    }

    /// The device's set-up as the output last reported it (nil: not known yet; a prompt then opens
    /// it for the prompt's own format).
    private var device: (rate: Int, channels: Int, encoding: SampleEncoding)?
    private var waiting: [Waiting] = []
    /// The prompt handed to the output thread (kept here so its memory is freed on this thread).
    private var playing: (Waiting, PromptClip)?

    var isIdle: Bool { playing == nil && waiting.isEmpty }

    /// The output set the device up for a stream.
    func deviceChanged(rate: Int, channels: Int, encoding: SampleEncoding) {
        device = (rate, channels, encoding)
    }

    /// Queues `pcm` at `volume` % (a playing track ducked to `duckGain` under it, or paused when
    /// nil); the clip to hand over when nothing plays. While one plays, only
    /// the newest waits: a burst of presses says where it ended, not every step (and the queue
    /// cannot grow); the one it replaces finishes unspoken.
    func add(_ pcm: SpokenPCM, volume: Int, duckGain: Int32?, onFinished: @escaping (String?) -> Void)
        -> PromptClip?
    {
        if playing != nil {
            for replaced in waiting { replaced.onFinished(nil) }
            waiting.removeAll()
        }
        waiting.append(Waiting(pcm: pcm, volume: volume, duckGain: duckGain, onFinished: onFinished))
        return next()
    }

    /// The prompt handed over has played (or could not: `failure`): its caller hears it; the next
    /// clip, if any.
    func finished(failure: String?) -> PromptClip? {
        let done = playing?.0
        playing = nil
        done?.onFinished(failure)
        return next()
    }

    /// The output found the device set up otherwise: the same prompt, made for it (once; then it is
    /// given up as finished).
    func refused(rate: Int, channels: Int, encoding: SampleEncoding) -> PromptClip? {
        device = (rate, channels, encoding)
        guard var again = playing?.0 else { return next() }
        playing = nil
        again.tries += 1
        if again.tries > 1 {
            again.onFinished("the device keeps changing its set-up")
            return next()
        }
        waiting.insert(again, at: 0)
        return next()
    }

    private func next() -> PromptClip? {
        while playing == nil, !waiting.isEmpty {
            let item = waiting.removeFirst()
            let target = device ?? (item.pcm.sampleRate, 1, .s16)
            do throws(AudioOutputError) {
                let clip = try PromptClip(
                    item.pcm, volume: item.volume, duckGain: item.duckGain, sampleRate: target.rate,
                    channels: target.channels,
                    encoding: target.encoding)
                playing = (item, clip)
                return clip
            } catch {
                item.onFinished("\(error)")
            }
        }
        return nil
    }
}
