// SPDX-License-Identifier: GPL-3.0-or-later
/// Converts decoded float samples (nominal ±1.0) to the ring's left-justified 32-bit words holding
/// 24 significant bits: scaled by 2²³, rounded to nearest with ties to even (as IEEE arithmetic, and
/// so ffmpeg's and libvorbis' `lrintf`, round), clipped to −8 388 608…8 388 607, NaN as 0.
///
/// The one place floats become fixed point (Vorbis, Opus, AAC, float WAV/AIFF). Branch-free and
/// without a float → integer conversion instruction (Swift's checked `Int32(_: Float)` and
/// `rounded()` each stop the loop vectorizer, and `rounded()` was a libm call per sample): the
/// rounding is done by adding 2²³ to the magnitude (the sum's last significand bit is then the
/// units place), and the integer read from the sum's bit pattern; loops over it vectorize (SSE2,
/// NEON).
///
/// Thread: any; no allocation.
public enum FloatToFixed {
    /// The word for one sample.
    @inline(__always)
    public static func word(_ x: Float) -> Int32 {
        let scaled = x.magnitude * 8_388_608
        let finite = scaled >= 0 ? scaled : 0  // NaN fails every comparison: 0
        let clipped = finite < 8_388_608 ? finite : 8_388_608  // the negative limit's magnitude
        // 2²³ ≤ sum ≤ 2²⁴, rounded to an integer; from 2²³ on, one integer is one step of the bit
        // pattern (2²⁴'s included), so the pattern's distance from 2²³'s is the rounded magnitude.
        let sum = clipped + 8_388_608
        let magnitude = Int32(bitPattern: sum.bitPattern &- (8_388_608 as Float).bitPattern)
        let sign = Int32(bitPattern: x.bitPattern) &>> 31  // 0 or −1
        let value = (magnitude ^ sign) &- sign
        return min(value, 8_388_607) &<< 8
    }

    /// The word for one 64-bit float sample (float WAV/AIFF), rounded once from the double.
    @inline(__always)
    public static func word(_ x: Double) -> Int32 {
        let scaled = x.magnitude * 8_388_608
        let finite = scaled >= 0 ? scaled : 0
        let clipped = finite < 8_388_608 ? finite : 8_388_608
        // As for Float, with 2⁵² (the units place of a double's significand at 2⁵²…2⁵³).
        let magic: Double = 4_503_599_627_370_496
        let sum = clipped + magic
        let magnitude = Int32(truncatingIfNeeded: sum.bitPattern &- magic.bitPattern)
        let sign = Int32(truncatingIfNeeded: Int64(bitPattern: x.bitPattern) &>> 63)
        let value = (magnitude ^ sign) &- sign
        return min(value, 8_388_607) &<< 8
    }

    /// Converts `count` contiguous samples (interleaved frames or one channel) from `input` to `output`.
    public static func convert(_ input: UnsafePointer<Float>, count: Int, to output: UnsafeMutablePointer<Int32>) {
        for i in 0..<count { output[i] = word(input[i]) }
    }

    /// Interleaves `count` frames from frame `start` on of one plane per channel (`planes[c]`; a
    /// missing plane is left alone) into `output`, converting each sample.
    public static func interleave(
        _ planes: UnsafePointer<UnsafeMutablePointer<Float>?>, channels: Int, from start: Int, count: Int,
        to output: UnsafeMutablePointer<Int32>
    ) {
        if channels == 2, let left = planes[0], let right = planes[1] {
            // Stereo, the common case, in one pass: the loop vectorizer's interleaved stores.
            let l = left + start
            let r = right + start
            for i in 0..<count {
                output[2 &* i] = word(l[i])
                output[2 &* i &+ 1] = word(r[i])
            }
            return
        }
        for c in 0..<channels {
            guard let plane = planes[c] else { continue }
            let samples = plane + start
            for i in 0..<count { output[i &* channels &+ c] = word(samples[i]) }
        }
    }
}
