// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A track's ReplayGain tags: track and album gain (dB, relative to ReplayGain's 89 dB reference)
/// and peak (linear, 1 = full scale), NaN where the file has none; read as MPD 0.23 reads them
/// (src/tag/ReplayGainParser.cxx, src/decoder/plugins/OpusTags.cxx). Thread: any (a value).
public struct ReplayGainInfo: Sendable, Hashable {
    public var trackGain: Float = .nan
    public var trackPeak: Float = .nan
    public var albumGain: Float = .nan
    public var albumPeak: Float = .nan

    public init() {}

    public init(trackGain: Float?, trackPeak: Float? = nil, albumGain: Float? = nil, albumPeak: Float? = nil) {
        self.trackGain = trackGain ?? .nan
        self.trackPeak = trackPeak ?? .nan
        self.albumGain = albumGain ?? .nan
        self.albumPeak = albumPeak ?? .nan
    }

    /// Whether no value was read.
    public var isEmpty: Bool { trackGain.isNaN && trackPeak.isNaN && albumGain.isNaN && albumPeak.isNaN }

    public static func == (a: ReplayGainInfo, b: ReplayGainInfo) -> Bool {
        func same(_ x: Float, _ y: Float) -> Bool { x.isNaN ? y.isNaN : x == y }
        return same(a.trackGain, b.trackGain) && same(a.trackPeak, b.trackPeak) && same(a.albumGain, b.albumGain)
            && same(a.albumPeak, b.albumPeak)
    }

    public func hash(into hasher: inout Hasher) {
        for v in [trackGain, trackPeak, albumGain, albumPeak] { hasher.combine(v.isNaN ? 0 : v.bitPattern) }
    }

    /// The tags as the index stores them: "trackGain trackPeak albumGain albumPeak", "-" for none.
    public var stored: String {
        [trackGain, trackPeak, albumGain, albumPeak].map { $0.isNaN ? "-" : "\($0)" }.joined(separator: " ")
    }

    /// The tags from `stored`'s text; nil for text of another shape or no value.
    public init?(stored text: String) {
        let parts = text.split(separator: " ")
        guard parts.count == 4 else { return nil }
        let values = parts.map { Float(String($0)) ?? .nan }
        self.init()
        trackGain = values[0]
        trackPeak = values[1]
        albumGain = values[2]
        albumPeak = values[3]
        if isEmpty { return nil }
    }

    /// A gain or peak value as MPD reads it (strtof): a leading number, the rest ("dB") ignored.
    package static func number(_ text: String) -> Float? {
        let value = text.withCString { start -> Float? in
            var end: UnsafeMutablePointer<CChar>?
            let v = strtof(start, &end)
            guard let end, end != UnsafeMutablePointer(mutating: start) else { return nil }
            return v
        }
        guard let value, value.isFinite else { return nil }
        return value
    }

    /// An Opus R128 gain: a Q7.8 integer in dB relative to −23 LUFS, which MPD moves by 5 dB to
    /// ReplayGain's reference (OpusDecoderPlugin's `EbuR128ToReplayGain`); nil for anything else.
    package static func r128(_ text: String) -> Float? {
        var digits = Substring(text)
        var sign: Int64 = 1
        if digits.first == "-" || digits.first == "+" {
            if digits.first == "-" { sign = -1 }
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let magnitude = Int64(digits)
        else { return nil }
        return Float(sign * magnitude) / 256 + 5
    }
}

/// Which ReplayGain value playback applies. Thread: any (a value).
public enum ReplayGainMode: String, Sendable, CaseIterable {
    /// Nothing: samples go to the device as decoded (bit-perfect).
    case off
    case track
    case album
    /// Album gain when the queue is an album, else track gain.
    case auto
}

/// How ReplayGain values become a linear scale: MPD's `ReplayGainTuple::CalculateScale` with the
/// box's settings. Thread: any (a value).
public struct ReplayGainSettings: Sendable, Equatable {
    public var mode: ReplayGainMode
    /// Added to the tagged gain (dB).
    public var preampDb: Float
    /// The gain of a file without the tag the mode asks for (dB).
    public var missingPreampDb: Float

    public init(mode: ReplayGainMode = .off, preampDb: Float = 0, missingPreampDb: Float = 0) {
        self.mode = mode
        self.preampDb = preampDb
        self.missingPreampDb = missingPreampDb
    }

    /// The scale for a track with `info` (nil: no tags) in a queue that is an album or not: 1 when
    /// off; else 10^((gain + preamp) / 20), at most 15 (MPD's cap), lowered to 1 / peak when that
    /// would clip the track's peak; files without the gain get 10^(missingPreamp / 20).
    public func scale(for info: ReplayGainInfo?, queueIsAlbum: Bool) -> Float {
        let useAlbum: Bool
        switch mode {
        case .off: return 1
        case .track: useAlbum = false
        case .album: useAlbum = true
        case .auto: useAlbum = queueIsAlbum
        }
        var gain = useAlbum ? info?.albumGain : info?.trackGain
        var peak = useAlbum ? info?.albumPeak : info?.trackPeak
        // MPD falls back to the other tuple when the chosen one is missing (ReplayGainInfo::Get).
        if gain?.isNaN ?? true {
            gain = useAlbum ? info?.trackGain : info?.albumGain
            peak = useAlbum ? info?.trackPeak : info?.albumPeak
        }
        guard let gain, !gain.isNaN, gain > -100 else { return Float(pow(10, Double(missingPreampDb) / 20)) }
        var scale = min(15, Float(pow(10, Double(gain + preampDb) / 20)))
        if let peak, !peak.isNaN, peak > 0, scale * peak > 1 { scale = 1 / peak }
        return scale
    }
}
