// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// A spoken prompt played between the ring's frames: the ring is not read meanwhile, so the track
/// continues with its next frame after the prompt (nothing lost, nothing repeated); the device's
/// frames of the prompt count for no track (`OutputTimeline.wroteGap`). With no device open (stopped,
/// or nothing played yet) it opens one for the prompt and closes it after.
///
/// A clip that ducks (`PromptClip.duckGain`) while a track plays is mixed into the track's frames
/// instead (`mixUnder`, `mix`): the ring is read on, its frames lowered (`OutputGain.duck`) and
/// counted for the track. Should the track pause, stop or end meanwhile, the rest plays alone.
///
/// The clip comes ready for the device's set-up (`PromptClip`, made by the loop); one made for
/// another set-up goes back (`promptRefused`) to be made again.
///
/// Thread: the output thread only (`OutputWorker` owns it), after `init` on the loop thread.
final class PromptPlayback {
    private let shared: EngineShared
    private let session: DeviceSession
    private let timeline: OutputTimeline
    private var clip: PromptClip?
    private var offset = 0
    /// Whether the device was opened for the prompt (then it is closed after it).
    private var openedDevice = false
    /// Whether the clip is taken but not started yet, or going out mixed under the track's frames.
    private var pending = false
    private(set) var isMixing = false
    /// The clip the loop handed over (`OutputCommand.prompt`), not taken yet.
    private var handed: PromptClip?

    init(shared: EngineShared, session: DeviceSession, timeline: OutputTimeline) {
        self.shared = shared
        self.session = session
        self.timeline = timeline
    }

    var isActive: Bool { clip != nil }

    /// The loop handed `next` over (the newest wins; the loop hands one at a time).
    func hand(_ next: PromptClip) { handed = next }

    /// Whether a clip was handed over and not taken yet.
    var isHandedOver: Bool { handed != nil }

    private func takeHanded() -> PromptClip? {
        defer { handed = nil }
        return handed
    }

    /// The frames of the prompt still to go out.
    var framesLeft: Int { clip.map { $0.frames - offset } ?? 0 }

    /// The gain (Q16) the track goes on at under the prompt taken (nil: it pauses).
    var duckGain: Int32? { clip?.duckGain }

    /// Whether the prompt waiting (taken now if handed over) or going out mixed goes under the
    /// track's frames on a device set up as `configuration`. A prompt that began alone stays alone.
    func mixUnder(_ configuration: OutputConfiguration) -> Bool {
        if clip == nil {
            guard let next = takeHanded() else { return false }
            clip = next
            offset = 0
            pending = true
        }
        guard let clip else { return false }
        if isMixing { return true }
        guard pending, clip.duckGain != nil, configuration.deviceRate == clip.sampleRate,
            configuration.channels == clip.channels, configuration.encoding == clip.encoding
        else { return false }
        pending = false
        isMixing = true
        return true
    }

    /// Adds the prompt's next `frames` frames to the track's at `buffer` (the output stage's scratch,
    /// in the device's encoding), not more than `framesLeft`.
    func mix(into buffer: UnsafeMutableRawPointer, frames: Int) {
        guard let clip, isMixing else { return }
        let count = min(frames, clip.frames - offset)
        guard count > 0 else { return }
        SampleConverter.mix(
            clip.bytes + offset * clip.frameBytes, into: buffer, clip.encoding, samples: count * clip.channels)
    }

    /// `frames` of the mixed frames went to the device; true when that was the prompt's end.
    func mixed(_ frames: Int) -> Bool {
        guard let clip, isMixing else { return false }
        offset = min(clip.frames, offset + frames)
        guard offset >= clip.frames else { return false }
        finish()
        return true
    }

    /// The device failed under a mixed prompt: it is over.
    func abandonMix() {
        guard isMixing else { return }
        finish()
    }

    /// Takes a prompt handed over, or writes the next part of the one playing alone (a mixed one
    /// goes on alone from where it is). Returns the error code when the device failed (the caller
    /// loses it; the prompt is over).
    @discardableResult
    func step() -> Int32? {
        if clip == nil {
            guard let next = takeHanded() else { return nil }
            return start(next)
        }
        if pending || isMixing {
            guard let clip else { return nil }
            // Taken for mixing but the track is not playing: as if handed over now; the rest of a
            // mixed one: from its offset, on a device already set up for it.
            let resumeAt = offset
            let wasMixing = isMixing
            pending = false
            isMixing = false
            self.clip = nil
            if let code = start(clip) { return code }
            if wasMixing, self.clip != nil { offset = resumeAt }
            return nil
        }
        guard let clip, let output = session.output, let configuration = session.configuration else {
            finish()
            return nil
        }
        let count = min(clip.frames - offset, max(configuration.periodFrames, 256))
        let before = shared.allocationProbe.sample()
        let result = count > 0 ? output.write(clip.bytes + offset * clip.frameBytes, count: count) : 0
        if result < 0 {
            if output.recover(result) < 0 {
                finish()
                return Int32(clamping: result)
            }
            return nil
        }
        let after = shared.allocationProbe.sample()
        shared.outputIterations.add(1, ordering: .relaxed)
        shared.outputAllocations.add(after.allocations &- before.allocations, ordering: .relaxed)
        shared.outputLocks.add(after.locks &- before.locks, ordering: .relaxed)
        offset += result
        session.took(result)
        timeline.wroteGap(result)
        if offset >= clip.frames { finish() }
        return nil
    }

    private func start(_ next: PromptClip) -> Int32? {
        if session.configuration == nil {
            // Opened for the prompt as synthesized; a device that will not take that is set up for
            // what it takes (the output stage active, unused: the clip comes back made for it).
            do throws(AudioOutputError) {
                try session.setUp(for: next.sourceFormat, .s16)
                openedDevice = true
                timeline.restart(at: 0)
            } catch {
                // Nothing to speak on: the prompt is over (a lost device is retried by the track).
                post(.promptFinished(failure: error.message))
                return nil
            }
        }
        // The clip goes to the device as it is, past the output stage (which keeps the track's frames).
        guard let configuration = session.configuration, configuration.deviceRate == next.sampleRate,
            configuration.channels == next.channels, configuration.encoding == next.encoding
        else {
            var target = PromptTarget()
            if let configuration = session.configuration {
                target = PromptTarget(
                    rate: configuration.deviceRate, channels: configuration.channels, encoding: configuration.encoding)
            }
            closeOpened()
            post(.promptRefused(target))
            return nil
        }
        // A device paused in place (the track paused) plays again for the prompt.
        session.resume()
        clip = next
        offset = 0
        return nil
    }

    private func finish() {
        if openedDevice { session.drain() }
        closeOpened()
        clip = nil
        offset = 0
        pending = false
        isMixing = false
        post(.promptFinished(failure: nil))
    }

    private func closeOpened() {
        guard openedDevice else { return }
        openedDevice = false
        if session.release() { timeline.restart(at: 0) }
    }

    private func post(_ event: EngineEvent) {
        shared.post(event, to: shared.outputEvents)
    }
}
