// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// A prompt's samples made ready for the device as it is set up: its rate (libsoxr), its channels
/// (`ChannelMixer`) and its encoding, at the speech volume, in memory written once here so the
/// output thread only copies it to the device (no conversion, allocation or page fault there).
///
/// Thread: made on the prompt worker (`PromptQueue`); then read-only, by the output thread. The loop
/// keeps a reference until the prompt has played, so the memory is never freed on the output thread.
final class PromptClip: @unchecked Sendable {
    let sampleRate: Int
    let channels: Int
    let encoding: SampleEncoding
    let frames: Int
    let bytes: UnsafeMutableRawPointer
    var frameBytes: Int { channels * encoding.bytes }
    /// The prompt as synthesized (16-bit mono): what a closed device is opened for.
    let sourceFormat: PCMFormat
    /// The gain (Q16) a playing track goes on at under the prompt; nil: the track pauses for it.
    let duckGain: Int32?

    /// `pcm` at `volume` percent (the volume law of `SampleConverter.gain(percent:)`) converted to
    /// `sampleRate` Hz, `channels` channels in `encoding`; a playing track ducks to `duckGain`.
    init(
        _ pcm: SpokenPCM, volume: Int, duckGain: Int32? = nil, sampleRate: Int, channels: Int,
        encoding: SampleEncoding
    ) throws(AudioOutputError) {
        self.duckGain = duckGain
        self.sampleRate = sampleRate
        sourceFormat = PCMFormat(sampleRate: pcm.sampleRate, channels: 1, bitsPerSample: 16)
        self.channels = channels
        self.encoding = encoding
        // Left-justified 32-bit mono, the form the resampler and the mixer take.
        var mono = pcm.samples.map { Int32($0) << 16 }
        if sampleRate != pcm.sampleRate, !mono.isEmpty {
            let resampler = try Resampler(channels: 1, from: pcm.sampleRate, to: sampleRate)
            let capacity = mono.count * sampleRate / pcm.sampleRate + 4096
            var out = [Int32](repeating: 0, count: capacity)
            var made = 0
            mono.withUnsafeBufferPointer { input in
                out.withUnsafeMutableBufferPointer { output in
                    var taken = 0
                    while taken < input.count, made < capacity {
                        let step = resampler.process(
                            input.baseAddress! + taken, frames: input.count - taken,
                            into: output.baseAddress! + made, capacity: capacity - made)
                        taken += step.consumed
                        made += step.produced
                        if step.consumed == 0 && step.produced == 0 { break }
                    }
                    while made < capacity {
                        let tail = resampler.flush(into: output.baseAddress! + made, capacity: capacity - made)
                        if tail == 0 { break }
                        made += tail
                    }
                }
            }
            mono = Array(out[0..<made])
        }
        let count = mono.count
        var mixer = ChannelMixer()
        mixer.configure(input: 1, output: channels)
        var wide = [Int32](repeating: 0, count: max(1, count * channels))
        mono.withUnsafeBytes { source in
            wide.withUnsafeMutableBufferPointer { destination in
                if let base = source.baseAddress {
                    mixer.map(base, .s32, frames: count, to: destination.baseAddress!)
                }
            }
        }
        let memory = UnsafeMutableRawPointer.allocate(
            byteCount: max(1, count * channels * encoding.bytes), alignment: 16)
        wide.withUnsafeBytes { source in
            SampleConverter.convert(
                source.baseAddress!, .s32, to: memory, encoding, samples: count * channels,
                gain: SampleConverter.gain(percent: volume))
        }
        frames = count
        bytes = memory
    }

    deinit { bytes.deallocate() }
}
