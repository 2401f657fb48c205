// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskDisplay

/// The image target: each input is decoded as a cover (scaled while decoding) and whole, and the
/// heap each decode held is measured (`HeapGauge`), so that libFuzzer keeps inputs that get around
/// the memory bound, not only those that crash.
///
/// Thread: one at a time (`enforcesBound` is set once, before the first input).
public enum ImageFuzz {
    /// Heap a decode may hold beyond `maxDecodedBytes`: the libraries' row buffers and their
    /// Huffman, zlib and colour-conversion state, which grow with the width (at most 10000
    /// pixels), not with the area.
    public static let workingAllowance = 8 << 20
    public static var bound: Int { ImageLimits.default.maxDecodedBytes + workingAllowance }

    /// Whether a decode over `bound` aborts the process (kiosk-fuzz sets it: one input at a time,
    /// so the heap is the decoder's). The suite replays the corpus with other tests running beside
    /// it, whose allocations the gauge would count, and checks peaks in its own tests instead.
    nonisolated(unsafe) public static var enforcesBound = false

    static func run(_ data: [UInt8]) {
        _ = ImageDecoder.format(of: data)
        let peak = peakHeap(data)
        if enforcesBound && peak > bound {
            let line = Array("image: the decoder held \(peak) bytes, more than its bound of \(bound)\n".utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            abort()
        }
    }

    /// The most heap decoding `data` held, as the original picture or as a 240×240 cover.
    public static func peakHeap(_ data: [UInt8]) -> Int {
        var peak = 0
        for target in [ImageTarget.original, .fill(Size(width: 240, height: 240))] {
            var gauge = HeapGauge()
            _ = try? ImageDecoder.decode(data, target: target, limits: .default, gauge: &gauge)
            peak = max(peak, gauge.peak)
        }
        return peak
    }
}
