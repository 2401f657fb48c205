// SPDX-License-Identifier: GPL-3.0-or-later
/// The shape of decoded audio: sample rate, channel count and significant bits per sample.
///
/// Thread: a value; any.
public struct PCMFormat: Equatable, Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int
    public var bitsPerSample: Int

    public init(sampleRate: Int, channels: Int, bitsPerSample: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitsPerSample = bitsPerSample
    }

    /// "44100 Hz 16-bit 2 ch".
    public var description: String { "\(sampleRate) Hz \(bitsPerSample)-bit \(channels) ch" }

    /// Whether FLAC can carry it and KioskAudio can play it: 1…8 channels, 4…32 bits, 1 Hz…1 MHz.
    public var isPlayable: Bool {
        (1...8).contains(channels) && (4...32).contains(bitsPerSample) && (1...1_048_575).contains(sampleRate)
    }
}
