// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// The output stage between the ring and a device that will not take the stream as it is: channels
/// mapped (`ChannelMixer`), then the rate converted (`Resampler`, libsoxr). Its output is interleaved
/// left-justified 32-bit frames in the device's channel count and rate, held in `pending` until the
/// device has taken them (a device write may take fewer frames than offered).
///
/// Inactive when the device takes the stream's channels and rate: then frames go from the ring to the
/// device as before, bit-perfect whenever the container allows.
///
/// Thread: the output thread only. `configure` allocates (a resampler); the rest does not.
final class StreamAdapter {
    /// Frames taken from the ring per call.
    static let inputFrames = 4096
    /// Frames of output it can hold: room for the largest upsampling of `inputFrames`'s share.
    static let outputFrames = 16384

    private var mixer = ChannelMixer()
    private var resampler: Resampler?
    private let mixed: UnsafeMutablePointer<Int32>
    private let resampled: UnsafeMutablePointer<Int32>
    /// Where the frames the device has not taken yet are, and how many.
    private var pendingStart: UnsafeMutablePointer<Int32>
    private(set) var pendingFrames = 0

    /// Whether the device needs the stream changed (channels or rate).
    private(set) var isActive = false
    private(set) var outputChannels = 0
    /// "1 → 2 ch (copied)", "6 → 2 ch (downmixed, ITU-R BS.775)", "96000 → 48000 Hz (libsoxr HQ)".
    private(set) var conversions: [String] = []

    init() {
        let samples = Self.outputFrames * ChannelMixer.maxChannels
        mixed = .allocate(capacity: Self.inputFrames * ChannelMixer.maxChannels)
        resampled = .allocate(capacity: samples)
        mixed.initialize(repeating: 0, count: Self.inputFrames * ChannelMixer.maxChannels)
        resampled.initialize(repeating: 0, count: samples)
        pendingStart = resampled
    }

    deinit {
        mixed.deallocate()
        resampled.deallocate()
    }

    /// Sets the stage up for a stream of `format` going to a device of `channels` at `rate`.
    func configure(_ format: PCMFormat, deviceChannels channels: Int, deviceRate rate: Int) throws(AudioOutputError) {
        pendingFrames = 0
        resampler = nil
        conversions = []
        outputChannels = channels
        isActive = channels != format.channels || rate != format.sampleRate
        guard isActive else { return }
        mixer.configure(input: format.channels, output: channels)
        if channels != format.channels {
            let how =
                format.channels == 1
                ? "copied" : channels > format.channels ? "extra channels silent" : "downmixed, ITU-R BS.775"
            conversions.append("\(format.channels) → \(channels) ch (\(how))")
        }
        if rate != format.sampleRate {
            resampler = try Resampler(channels: channels, from: format.sampleRate, to: rate)
            conversions.append("\(format.sampleRate) → \(rate) Hz (libsoxr HQ)")
        }
    }

    /// Whether the resampler has yet to make its first frames since it was made or cleared (libsoxr
    /// allocates its buffers then).
    var isWarmingUp: Bool { resampler?.isFresh ?? false }

    /// The frames waiting for the device.
    var pending: UnsafeRawPointer { UnsafeRawPointer(pendingStart) }

    /// Output frames not yet played that the stage still holds (pending and the resampler's delay).
    var heldFrames: Int { pendingFrames + (resampler?.delayFrames ?? 0) }

    /// Converts up to `frames` ring frames at `source` (encoding `encoding`) into `pending`; returns
    /// how many it took. Call only when `pendingFrames` is 0.
    func convert(_ source: UnsafeRawPointer, _ encoding: SampleEncoding, frames: Int) -> Int {
        guard let resampler else {
            let n = min(frames, Self.inputFrames)
            mixer.map(source, encoding, frames: n, to: resampled)
            pendingStart = resampled
            pendingFrames = n
            return n
        }
        // No more input than the output buffer can take once resampled (with room for the filter).
        let room = Self.outputFrames * resampler.inputRate / resampler.outputRate - 64
        let n = max(1, min(frames, Self.inputFrames, room))
        mixer.map(source, encoding, frames: n, to: mixed)
        let (consumed, produced) = resampler.process(mixed, frames: n, into: resampled, capacity: Self.outputFrames)
        pendingStart = resampled
        pendingFrames = produced
        return consumed
    }

    /// After the last frames of a stream: the resampler's tail into `pending`; false when there is
    /// nothing left (then the stage is ready for a new signal).
    func flush() -> Bool {
        guard let resampler, pendingFrames == 0 else { return pendingFrames > 0 }
        let produced = resampler.flush(into: resampled, capacity: Self.outputFrames)
        pendingStart = resampled
        pendingFrames = produced
        if produced == 0 { resampler.clear() }
        return produced > 0
    }

    /// The device took `frames` of the pending frames.
    func took(_ frames: Int) {
        pendingStart += frames * outputChannels
        pendingFrames -= frames
    }

    /// Drops what it holds (a flush of the stream, a stop, a lost device).
    func reset() {
        pendingFrames = 0
        resampler?.clear()
    }
}
