// SPDX-License-Identifier: GPL-3.0-or-later
/// Synthesized prompts kept by (text, voice), least recently used dropped first once their
/// samples exceed `capacityBytes`: a repeated prompt costs no synthesis, and the cache cannot
/// grow past its bound (a prompt larger than the bound is not kept).
///
/// Thread: one at a time (the speech worker that owns it).
public struct PromptCache {
    struct Key: Hashable {
        var text: String
        var voice: String
    }

    public let capacityBytes: Int
    public private(set) var bytes = 0
    private var entries: [Key: (samples: [Int16], lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0

    public init(capacityBytes: Int = 4 << 20) {
        self.capacityBytes = capacityBytes
    }

    public var count: Int { entries.count }

    /// The samples of `text` in `voice`, when kept (it becomes the most recently used).
    public mutating func samples(_ text: String, voice: String) -> [Int16]? {
        let key = Key(text: text, voice: voice)
        guard let entry = entries[key] else { return nil }
        clock += 1
        entries[key] = (entry.samples, clock)
        return entry.samples
    }

    /// Keeps `samples` for `text` in `voice`, dropping the least recently used until they fit.
    public mutating func keep(_ samples: [Int16], _ text: String, voice: String) {
        let size = samples.count * 2
        guard size <= capacityBytes else { return }
        let key = Key(text: text, voice: voice)
        if let old = entries.removeValue(forKey: key) { bytes -= old.samples.count * 2 }
        while bytes + size > capacityBytes, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            bytes -= oldest.value.samples.count * 2
            entries.removeValue(forKey: oldest.key)
        }
        clock += 1
        entries[key] = (samples, clock)
        bytes += size
    }
}
