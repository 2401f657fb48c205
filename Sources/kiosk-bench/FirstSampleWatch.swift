// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskCommandLine
import KioskModel
import KioskSystem
import Synchronization

/// A device's output that notes when a write first carries the sound a bench is timing: the first
/// write since `arm` that `isWanted` accepts (any write when it is nil). The output thread writes
/// through it; the bench's thread arms it and reads `seenAt` (both atomics).
final class FirstSampleWatch: AudioOutput, @unchecked Sendable {
    private let inner: any AudioOutput
    private let isWanted: (@Sendable (UnsafeRawPointer, Int) -> Bool)?
    private let armed = Atomic<Bool>(false)
    private let seen = Atomic<UInt64>(0)

    init(_ inner: any AudioOutput, isWanted: (@Sendable (UnsafeRawPointer, Int) -> Bool)? = nil) {
        self.inner = inner
        self.isWanted = isWanted
    }

    /// Forgets the last sighting and watches for the next.
    func arm() {
        seen.store(0, ordering: .relaxed)
        armed.store(true, ordering: .relaxed)
    }

    /// Monotonic ns of the first wanted write since `arm`; nil before it.
    var seenAt: UInt64? {
        let at = seen.load(ordering: .relaxed)
        return at == 0 ? nil : at
    }

    var name: String { inner.name }
    var isOpen: Bool { inner.isOpen }
    func configure(_ format: PCMFormat, source: SampleEncoding, bufferMilliseconds: Int) throws(AudioOutputError)
        -> OutputConfiguration
    { try inner.configure(format, source: source, bufferMilliseconds: bufferMilliseconds) }
    func write(_ frames: UnsafeRawPointer, count: Int) -> Int {
        if armed.load(ordering: .relaxed) && isWanted?(frames, count) ?? true {
            seen.store(Syscalls.monotonicNanoseconds(), ordering: .relaxed)
            armed.store(false, ordering: .relaxed)
        }
        return inner.write(frames, count: count)
    }
    func delay() -> Int { inner.delay() }
    func recover(_ error: Int) -> Int { inner.recover(error) }
    func pause(_ paused: Bool) -> Bool { inner.pause(paused) }
    func drain() { inner.drain() }
    func drop() { inner.drop() }
    func close() { inner.close() }
}
