// SPDX-License-Identifier: GPL-3.0-or-later
/// Maps interleaved frames of one channel count to another, for a device that refuses the stream's.
///
/// - Mono to more: the sample is copied to the first two channels unchanged (each channel stays
///   bit-identical to the source); any further channel is silent.
/// - More to fewer (5.1 on a stereo DAC): the ITU-R BS.775 downmix, with channels in the WAVE/FLAC
///   order (FL FR FC LFE BL BR, 7.1 adds SL SR; 7 channels: FL FR FC LFE BC SL SR): left = FL +
///   0.707·FC + 0.707·(BL + SL) + 0.5·BC, right likewise, LFE left out; each output is divided by the
///   sum of its coefficients, so no input can clip it. To one channel: the mean of that pair.
///   (MPD's PcmChannels averages every channel into both sides, its own "TODO: this is actually
///   only mono"; this keeps left and right apart.)
/// - Fewer to more (stereo on a 4-channel device): the channels are copied to the first ones, the
///   rest are silent, as MPD does.
///
/// Input is the ring's encoding (S16 or left-justified S32); output is left-justified 32-bit.
/// Coefficients are Q30 fixed point; a copy (coefficient 1, alone in its row) is exact.
///
/// Thread: one at a time (the output thread); `map` does not allocate.
struct ChannelMixer {
    static let maxChannels = 8
    private(set) var input = 0
    private(set) var output = 0
    /// `output` rows of `maxChannels` Q30 coefficients.
    private var matrix = [Int64](repeating: 0, count: ChannelMixer.maxChannels * ChannelMixer.maxChannels)
    private static let one: Int64 = 1 << 30

    /// Sets the mixer up for `input` → `output` channels (1…8 each).
    mutating func configure(input: Int, output: Int) {
        self.input = input
        self.output = output
        for i in matrix.indices { matrix[i] = 0 }
        if input == output || input < output {
            if input == 1 {
                for o in 0..<min(2, output) { matrix[o * Self.maxChannels] = Self.one }
            } else {
                for c in 0..<input { matrix[c * Self.maxChannels + c] = Self.one }
            }
            return
        }
        // Downmix to a stereo pair, then to the output's first one or two channels.
        let pair = Self.stereoWeights(channels: input)
        if output == 1 {
            for c in 0..<input {
                matrix[c] = Int64(((pair.left[c] + pair.right[c]) / 2 * Double(Self.one)).rounded())
            }
        } else {
            for c in 0..<input {
                matrix[c] = Int64((pair.left[c] * Double(Self.one)).rounded())
                matrix[Self.maxChannels + c] = Int64((pair.right[c] * Double(Self.one)).rounded())
            }
        }
    }

    /// Mono to its first two channels (any further one silent), or a count to the same count.
    private func copy(
        _ source: UnsafeRawPointer, _ encoding: SampleEncoding, frames: Int,
        to destination: UnsafeMutablePointer<Int32>
    ) {
        let samples = frames * input
        let widened = UnsafeMutablePointer<Int32>(destination)
        if input == output {
            if encoding == .s16 {
                let from = source.assumingMemoryBound(to: Int16.self)
                for i in 0..<samples { widened[i] = Int32(from[i]) << 16 }
            } else {
                widened.update(from: source.assumingMemoryBound(to: Int32.self), count: samples)
            }
            return
        }
        let extra = output - min(2, output)
        var o = 0
        for i in 0..<samples {
            let v =
                encoding == .s16
                ? Int32(source.load(fromByteOffset: 2 * i, as: Int16.self)) << 16
                : source.load(fromByteOffset: 4 * i, as: Int32.self)
            destination[o] = v
            if output > 1 { destination[o + 1] = v }
            o += min(2, output)
            for _ in 0..<extra {
                destination[o] = 0
                o += 1
            }
        }
    }

    /// The BS.775 weights of each input channel in the left and right outputs, normalised so each
    /// output's weights add up to 1.
    static func stereoWeights(channels: Int) -> (left: [Double], right: [Double]) {
        let h = 0.5.squareRoot()  // −3 dB
        // (left, right) per channel, by layout.
        let layout: [(Double, Double)]
        switch channels {
        case 1: layout = [(1, 1)]
        case 2: layout = [(1, 0), (0, 1)]
        case 3: layout = [(1, 0), (0, 1), (h, h)]
        case 4: layout = [(1, 0), (0, 1), (h, 0), (0, h)]
        case 5: layout = [(1, 0), (0, 1), (h, h), (h, 0), (0, h)]
        case 6: layout = [(1, 0), (0, 1), (h, h), (0, 0), (h, 0), (0, h)]
        case 7: layout = [(1, 0), (0, 1), (h, h), (0, 0), (0.5, 0.5), (h, 0), (0, h)]
        default: layout = [(1, 0), (0, 1), (h, h), (0, 0), (h, 0), (0, h), (h, 0), (0, h)]
        }
        let leftSum = layout.reduce(0) { $0 + $1.0 }
        let rightSum = layout.reduce(0) { $0 + $1.1 }
        return (layout.map { $0.0 / leftSum }, layout.map { $0.1 / rightSum })
    }

    /// Maps `frames` frames from `source` (ring encoding `encoding`, `input` channels) to `destination`
    /// (left-justified 32-bit, `output` channels).
    func map(
        _ source: UnsafeRawPointer, _ encoding: SampleEncoding, frames: Int,
        to destination: UnsafeMutablePointer<Int32>
    ) {
        // Copies (mono to the first two channels; the same count, only widened) need no matrix:
        // the output thread's time matters here (the debug build in the TCG guest underran without it).
        if input == 1 || input == output {
            copy(source, encoding, frames: frames, to: destination)
            return
        }
        let n = Self.maxChannels
        matrix.withUnsafeBufferPointer { m in
            for f in 0..<frames {
                for o in 0..<output {
                    var sum: Int64 = 0
                    let row = o * n
                    for c in 0..<input where m[row + c] != 0 {
                        let sample: Int64
                        if encoding == .s16 {
                            sample = Int64(source.load(fromByteOffset: (f * input + c) * 2, as: Int16.self)) << 16
                        } else {
                            sample = Int64(source.load(fromByteOffset: (f * input + c) * 4, as: Int32.self))
                        }
                        sum += sample * m[row + c]
                    }
                    let value = (sum + (1 << 29)) >> 30
                    destination[f * output + o] = Int32(clamping: value)
                }
            }
        }
    }
}
