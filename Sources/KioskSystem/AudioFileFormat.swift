// SPDX-License-Identifier: GPL-3.0-or-later
/// The container formats KioskPlayer recognises, told apart by their first bytes (never by the
/// file's name: an MP3 called `.flac` is an MP3). In KioskSystem, with no decoder, because the
/// phone page's process (kiosk-web) checks uploads with it and links no audio library.
///
/// Thread: a value; any.
public enum AudioFileFormat: UInt8, Sendable, BitwiseCopyable, CaseIterable, CustomStringConvertible {
    case flac = 1
    case mp3 = 2
    case oggVorbis = 3
    case opus = 4
    case wav = 5
    case aiff = 6
    case mp4 = 7
    case oggFLAC = 8

    /// "FLAC", "MP3", "Ogg Vorbis", "Opus", "WAV", "AIFF", "MP4/M4A", "Ogg FLAC".
    public var name: String {
        switch self {
        case .flac: "FLAC"
        case .mp3: "MP3"
        case .oggVorbis: "Ogg Vorbis"
        case .opus: "Opus"
        case .wav: "WAV"
        case .aiff: "AIFF"
        case .mp4: "MP4/M4A"
        case .oggFLAC: "Ogg FLAC"
        }
    }

    public var description: String { name }

    /// Whether the format keeps every sample (then it reaches ALSA bit-perfect).
    public var isLossless: Bool {
        switch self {
        case .flac, .wav, .aiff, .oggFLAC: true
        case .mp3, .oggVorbis, .opus, .mp4: false
        }
    }

    /// File name suffixes (lower case, no dot) that hold this format, as MPD's `decoders` lists them.
    public var suffixes: [String] {
        switch self {
        case .flac: ["flac"]
        case .mp3: ["mp3", "mp2"]
        case .oggVorbis: ["ogg", "oga"]
        case .opus: ["opus", "ogg", "oga"]
        case .wav: ["wav", "wave"]
        case .aiff: ["aif", "aiff", "aifc"]
        case .mp4: ["m4a", "m4b", "mp4", "m4p"]
        case .oggFLAC: ["oga", "ogg"]
        }
    }

    /// MIME types, as MPD's `decoders` lists them.
    public var mimeTypes: [String] {
        switch self {
        case .flac: ["audio/flac", "audio/x-flac"]
        case .mp3: ["audio/mpeg"]
        case .oggVorbis: ["audio/ogg", "audio/vorbis", "application/ogg"]
        case .opus: ["audio/ogg", "audio/opus"]
        case .wav: ["audio/wav", "audio/x-wav"]
        case .aiff: ["audio/aiff", "audio/x-aiff"]
        case .mp4: ["audio/mp4", "audio/m4a"]
        case .oggFLAC: ["audio/ogg", "audio/flac"]
        }
    }

    /// Every suffix a music file may have (what the library walk looks at).
    public static let musicSuffixes: Set<String> = Set(allCases.flatMap(\.suffixes))

    /// Bytes `sniff` wants to see (an ID3v2 tag before the audio is skipped by the caller).
    public static let sniffBytes = 4096

    /// The format `head` (the file's first bytes, after any ID3v2 tag) starts with, or nil.
    public static func sniff<C: RandomAccessCollection>(_ head: C) -> AudioFileFormat?
    where C.Element == UInt8, C.Index == Int {
        let b = Array(head)
        func at(_ offset: Int, _ text: String) -> Bool {
            let t = Array(text.utf8)
            return b.count >= offset + t.count && Array(b[offset..<offset + t.count]) == t
        }
        if at(0, "fLaC") { return .flac }
        if at(0, "OggS") {
            // The first page's first packet names the codec (RFC 3533: 27-byte header + segment table).
            guard b.count > 27 else { return nil }
            let packet = 27 + Int(b[26])
            if at(packet, "\u{01}vorbis") { return .oggVorbis }
            if at(packet, "OpusHead") { return .opus }
            if at(packet, "\u{7F}FLAC") { return .oggFLAC }
            return nil
        }
        if (at(0, "RIFF") || at(0, "RF64")) && at(8, "WAVE") { return .wav }
        if at(0, "FORM") && (at(8, "AIFF") || at(8, "AIFC")) { return .aiff }
        if at(4, "ftyp") { return .mp4 }
        if let first = MPEGFrameHeader(b, at: 0) {
            // One header can be chance; a second where the first ends is not (a single frame file
            // is accepted when it fills the head).
            let next = first.length
            if next + 4 > b.count || MPEGFrameHeader(b, at: next) != nil { return .mp3 }
        }
        return nil
    }

    /// The length of the ID3v2 tag `head` starts with (header, body and footer), or 0.
    public static func id3v2Length<C: RandomAccessCollection>(_ head: C) -> Int
    where C.Element == UInt8, C.Index == Int {
        let b = Array(head.prefix(10))
        guard b.count == 10, b[0] == 0x49, b[1] == 0x44, b[2] == 0x33, b[3] != 0xFF, b[4] != 0xFF,
            b[6] & 0x80 == 0, b[7] & 0x80 == 0, b[8] & 0x80 == 0, b[9] & 0x80 == 0
        else { return 0 }
        let size = Int(b[6]) << 21 | Int(b[7]) << 14 | Int(b[8]) << 7 | Int(b[9])
        let footer = b[5] & 0x10 != 0 ? 10 : 0
        return 10 + size + footer
    }
}

/// An MPEG audio frame header (MPEG-1, 2 and 2.5; layers I–III), as far as sniffing needs it.
///
/// Thread: a value; any.
public struct MPEGFrameHeader: Equatable {
    public var length: Int

    public init?(_ b: [UInt8], at i: Int) {
        guard i + 4 <= b.count, b[i] == 0xFF, b[i + 1] & 0xE0 == 0xE0 else { return nil }
        let version = (b[i + 1] >> 3) & 3  // 0: 2.5, 1: reserved, 2: 2, 3: 1
        let layer = (b[i + 1] >> 1) & 3  // 0: reserved (ADTS AAC sets 0 here), 1: III, 2: II, 3: I
        let bitrateIndex = Int(b[i + 2] >> 4)
        let rateIndex = Int((b[i + 2] >> 2) & 3)
        let padding = Int((b[i + 2] >> 1) & 1)
        guard version != 1, layer != 0, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
        let rates = [44100, 48000, 32000]
        let sampleRate = rates[rateIndex] >> (version == 3 ? 0 : version == 2 ? 1 : 2)
        let mpeg1 = version == 3
        let kbps: [Int]
        switch (mpeg1, layer) {
        case (true, 3): kbps = [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
        case (true, 2): kbps = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
        case (true, _): kbps = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        case (false, 3): kbps = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
        default: kbps = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        }
        let bitrate = kbps[bitrateIndex] * 1000
        if layer == 3 {
            length = (12 * bitrate / sampleRate + padding) * 4
        } else {
            let samples = layer == 1 && !mpeg1 ? 576 : 1152
            length = samples / 8 * bitrate / sampleRate + padding
        }
        guard length >= 4 else { return nil }
    }
}
