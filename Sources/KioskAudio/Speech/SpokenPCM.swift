// SPDX-License-Identifier: GPL-3.0-or-later
/// A synthesized prompt: 16-bit mono samples at `sampleRate`, and whether making it cost a synthesis.
///
/// Thread: a value; any.
public struct SpokenPCM: Sendable, Equatable {
    public var text: String
    public var samples: [Int16]
    public var sampleRate: Int
    /// False when it came from the cache.
    public var synthesized: Bool
    /// Texts the synthesizer had made when this one was ready (the cache's effect, for tests and bench).
    public var synthesisCount: Int

    public init(text: String, samples: [Int16], sampleRate: Int, synthesized: Bool = true, synthesisCount: Int = 0) {
        self.text = text
        self.samples = samples
        self.sampleRate = sampleRate
        self.synthesized = synthesized
        self.synthesisCount = synthesisCount
    }
}
