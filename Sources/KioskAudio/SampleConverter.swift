// SPDX-License-Identifier: GPL-3.0-or-later
/// Copies ring samples to the device's container, applying software volume and the track's gain
/// (ReplayGain; a sample it would take past full scale is clamped), on the output thread.
///
/// Used only when the device takes another container than the ring holds, or the software volume is
/// below 100 %; otherwise frames go from the ring to the device untouched (bit-perfect). Widening
/// (S16 → S24_3LE/S24_LE/S32_LE, S32 with ≤ 24 significant bits → S24_3LE/S24_LE) keeps every sample;
/// narrowing drops low bits (reported as "converted").
///
/// Thread: any; no allocation.
public enum SampleConverter {
    /// Unity gain in `gain`'s Q16 fixed point.
    public static let unity: Int32 = 65536

    /// Q16 gain for a volume percentage (0…100): (p/100)², about −12 dB at 50 %, −40 dB at 10 %.
    public static func gain(percent: Int) -> Int32 {
        let p = Int64(max(0, min(100, percent)))
        return Int32(p * p * 65536 / 10000)
    }

    /// Q16 gain for a linear scale (a track's ReplayGain), 0…16 (above 1: amplified, clamped when
    /// stored).
    public static func gain(scale: Float) -> Int32 {
        guard scale.isFinite, scale > 0 else { return scale.isNaN ? unity : 0 }
        return Int32((Double(min(scale, 16)) * 65536).rounded())
    }

    /// Q16 product of two Q16 gains.
    public static func product(_ a: Int32, _ b: Int32) -> Int32 {
        if a == unity { return b }
        if b == unity { return a }
        return Int32(clamping: (Int64(a) * Int64(b)) >> 16)
    }

    /// Converts `samples` samples (frames × channels) from `source` to `destination`.
    public static func convert(
        _ input: UnsafeRawPointer, _ source: SampleEncoding, to output: UnsafeMutableRawPointer,
        _ destination: SampleEncoding, samples: Int, gain: Int32 = unity
    ) {
        let g = Int64(gain)
        let scaled = gain != unity
        switch source {
        case .s16:
            let from = input.assumingMemoryBound(to: Int16.self)
            for i in 0..<samples {
                var v = Int32(from[i]) << 16  // left-justified in 32 bits
                if scaled { v = Int32(clamping: (Int64(v) * g) >> 16) }
                store(v, at: i, output, destination)
            }
        default:
            let from = input.assumingMemoryBound(to: Int32.self)
            for i in 0..<samples {
                var v = from[i]
                if scaled { v = Int32(clamping: (Int64(v) * g) >> 16) }
                store(v, at: i, output, destination)
            }
        }
    }

    /// Adds `samples` samples at `input` to those at `output`, both in `encoding`, clamping at full
    /// scale (a prompt mixed over a ducked track).
    public static func mix(
        _ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer, _ encoding: SampleEncoding, samples: Int
    ) {
        for i in 0..<samples {
            let sum = Int64(load(at: i, input, encoding)) + Int64(load(at: i, UnsafeRawPointer(output), encoding))
            store(Int32(clamping: sum), at: i, output, encoding)
        }
    }

    /// Reads the sample at index `i` in `encoding`, left-justified in 32 bits.
    @inline(__always)
    private static func load(at i: Int, _ input: UnsafeRawPointer, _ encoding: SampleEncoding) -> Int32 {
        switch encoding {
        case .s16:
            return Int32(input.assumingMemoryBound(to: Int16.self)[i]) << 16
        case .s24_3:
            let bytes = input.assumingMemoryBound(to: UInt8.self) + 3 * i
            return Int32(bitPattern: UInt32(bytes[0]) << 8 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 24)
        case .s24:
            return input.assumingMemoryBound(to: Int32.self)[i] << 8
        case .s32:
            return input.assumingMemoryBound(to: Int32.self)[i]
        }
    }

    /// Stores a left-justified 32-bit sample in `encoding` at sample index `i`.
    @inline(__always)
    private static func store(_ v: Int32, at i: Int, _ output: UnsafeMutableRawPointer, _ encoding: SampleEncoding) {
        switch encoding {
        case .s16:
            output.assumingMemoryBound(to: Int16.self)[i] = Int16(truncatingIfNeeded: v >> 16)
        case .s24_3:
            let bytes = output.assumingMemoryBound(to: UInt8.self) + 3 * i
            let u = UInt32(bitPattern: v)
            bytes[0] = UInt8(truncatingIfNeeded: u >> 8)
            bytes[1] = UInt8(truncatingIfNeeded: u >> 16)
            bytes[2] = UInt8(truncatingIfNeeded: u >> 24)
        case .s24:
            output.assumingMemoryBound(to: Int32.self)[i] = v >> 8
        case .s32:
            output.assumingMemoryBound(to: Int32.self)[i] = v
        }
    }
}
