// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// What the output stage makes of a stream the device will not take as it is: the channel count and
/// the rate to send instead. Pure rules, shared by the ALSA output, the test devices and
/// `kiosk-player doctor` (which says what will be converted).
///
/// Channels: a count the device takes is kept. Otherwise stereo when it takes 2 (mono is copied to
/// both channels; more channels are downmixed), else the nearest count it takes (more: the extra
/// channels are silent; fewer: downmixed). Rates: a rate the device takes is kept; otherwise the
/// nearest one it takes among the standard rates, first in the stream's family (multiples of
/// 11 025 Hz or of 8 000 Hz: 44.1 kHz ↔ 88.2 kHz, 48 kHz ↔ 96 kHz), so a resampler changes as
/// little as it can.
///
/// Thread: a namespace of pure functions; any.
public enum DeviceFit {
    /// The rates a device is asked about when it refuses the stream's, lowest first.
    public static let standardRates = [
        8000, 11025, 16000, 22050, 32000, 44100, 48000, 64000, 88200, 96000, 176_400, 192_000, 352_800, 384_000,
    ]

    /// The channel count to send for a stream of `channels` to a device that takes `accepts`
    /// (asked for 1…8); nil when it takes none of them.
    public static func channels(for channels: Int, accepts: (Int) -> Bool) -> Int? {
        if accepts(channels) { return channels }
        if accepts(2) { return 2 }
        let taken = (1...8).filter(accepts)
        return taken.first { $0 > channels } ?? taken.last
    }

    /// The rate to send a stream of `rate` to a device that takes `accepts` (asked for the standard
    /// rates); nil when it takes none of them.
    public static func rate(for rate: Int, accepts: (Int) -> Bool) -> Int? {
        if accepts(rate) { return rate }
        let taken = standardRates.filter(accepts)
        let family = taken.filter { sameFamily($0, rate) }
        return nearest(to: rate, in: family.isEmpty ? taken : family)
    }

    /// Whether two rates are both multiples of 11 025 Hz, or both of 8 000 Hz.
    static func sameFamily(_ a: Int, _ b: Int) -> Bool {
        (a % 11025 == 0 && b % 11025 == 0) || (a % 8000 == 0 && b % 8000 == 0)
    }

    /// The rate nearest `rate` by ratio (an octave up and an octave down are as far); the higher one on
    /// a tie, which keeps more of the signal.
    static func nearest(to rate: Int, in rates: [Int]) -> Int? {
        func distance(_ r: Int) -> Double { abs(log2(Double(r) / Double(rate))) }
        return rates.min { a, b in
            let da = distance(a)
            let db = distance(b)
            return da < db - 1e-9 || (abs(da - db) <= 1e-9 && a > b)
        }
    }
}
