// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// Decoded frames in the ring's encoding that did not fit into the target yet, kept in a
/// preallocated buffer and handed out by `drain(into:)` before anything new is decoded.
///
/// Thread: that of its decoder.
final class PCMStage {
    let buffer: UnsafeMutableRawPointer
    let capacityBytes: Int
    private(set) var frames = 0
    private var offset = 0
    private(set) var frameBytes = 0
    /// The format of the frames held (valid while `frames > offset`).
    var format = PCMFormat(sampleRate: 0, channels: 0, bitsPerSample: 0)

    init(capacityBytes: Int) {
        self.capacityBytes = capacityBytes
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacityBytes, alignment: 16)
    }

    deinit { buffer.deallocate() }

    var isEmpty: Bool { offset >= frames }
    /// Frames held and not handed out yet.
    var heldFrames: Int { frames - offset }
    /// Frames of `frameBytes` the buffer can hold.
    func capacity(frameBytes: Int) -> Int { capacityBytes / frameBytes }

    /// Marks `frames` frames of `format` as written to the front of `buffer`.
    func filled(_ frames: Int, format: PCMFormat) {
        self.format = format
        self.frames = frames
        frameBytes = format.channels * format.ringEncoding.bytes
        offset = 0
    }

    func reset() {
        frames = 0
        offset = 0
    }

    /// Copies as many held frames as fit into `regions`; returns how many.
    func drain(into regions: RingBuffer.Regions) -> Int {
        let n = min(frames - offset, regions.frames)
        guard n > 0 else { return 0 }
        let source = buffer + offset * frameBytes
        let first = min(n, regions.firstFrames)
        regions.first.copyMemory(from: source, byteCount: first * frameBytes)
        if n > first {
            regions.second.copyMemory(from: source + first * frameBytes, byteCount: (n - first) * frameBytes)
        }
        offset += n
        if offset >= frames { reset() }
        return n
    }
}
