// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

extension PCMFormat {
    /// How the decoder stores this format's samples in the ring: 16-bit words up to 16 bits,
    /// 32-bit words above, always left-justified (a 12-bit sample `s` is stored as `s << 4`).
    public var ringEncoding: SampleEncoding { bitsPerSample <= 16 ? .s16 : .s32 }
}

/// A little-endian signed integer sample container as ALSA names it.
///
/// `s16`, `s32`: left-justified samples (what the ring holds). `s24_3`: three bytes, `s24`: the low
/// three bytes of a 32-bit word (sign-extended). Thread: a value; any.
public enum SampleEncoding: UInt8, Sendable, BitwiseCopyable, CaseIterable, CustomStringConvertible {
    case s16 = 1
    case s24_3 = 2
    case s24 = 3
    case s32 = 4

    /// Bytes one sample takes.
    public var bytes: Int {
        switch self {
        case .s16: 2
        case .s24_3: 3
        case .s24, .s32: 4
        }
    }

    /// Significant bits the container can hold.
    public var bits: Int {
        switch self {
        case .s16: 16
        case .s24_3, .s24: 24
        case .s32: 32
        }
    }

    /// ALSA's name: "S16_LE", "S24_3LE", "S24_LE", "S32_LE".
    public var alsaName: String {
        switch self {
        case .s16: "S16_LE"
        case .s24_3: "S24_3LE"
        case .s24: "S24_LE"
        case .s32: "S32_LE"
        }
    }

    public var description: String { alsaName }

    /// The device encodings to try for samples of `bits` significant bits stored as `ring`, best
    /// first, with whether each keeps every sample unchanged. The ring's own encoding comes first
    /// (no copy), then the other exact containers (S16_LE, S24_3LE, S24_LE, S32_LE order), then the
    /// lossy ones (narrower containers), widest first.
    public static func candidates(bits: Int, ring: SampleEncoding) -> [(encoding: SampleEncoding, exact: Bool)] {
        let order: [SampleEncoding] = [.s16, .s24_3, .s24, .s32]
        var exact = order.filter { $0.bits >= bits && $0 != ring }
        if ring.bits >= bits { exact.insert(ring, at: 0) }
        let lossy = order.filter { $0.bits < bits }.reversed()
        return exact.map { ($0, true) } + lossy.map { ($0, false) }
    }
}
