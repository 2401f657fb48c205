// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// Streams that carry no signature at their first byte, found by what their frames look like in the
/// file's first `windowBytes`, for their decoder to confirm: `DecoderSet.identify` asks when no
/// signature matched, so the content decides, not a table of magic numbers.
///
/// - FLAC that starts at a frame (the `fLaC` marker and metadata cut off, as a stream dump or a
///   split file has it): a frame header with a valid CRC-8 at the first byte; libFLAC decodes it.
/// - MPEG audio (MP3, MP2) with junk in front (a broken tag, a download's leftovers): three frame
///   headers in a row, each where the one before ends, within the window; mpg123 resyncs past it.
///
/// ADTS AAC is not among them: the player decodes AAC only in MP4 (through FFmpeg), and has no
/// format for a bare AAC stream. A file of junk costs one read of the window: no decoder sees it.
///
/// Thread: a value; any.
public enum StreamProbe {
    /// Bytes read from the start of a file without a signature.
    public static let windowBytes = 8192

    /// The format `window` (a file's first bytes) holds without a signature, with where its first
    /// frame starts, or nil.
    public static func probe(_ window: [UInt8]) -> (format: AudioFileFormat, offset: Int)? {
        if flacFrameHeader(window, at: 0) { return (.flac, 0) }
        if let offset = mpegFrames(window) { return (.mp3, offset) }
        return nil
    }

    /// Whether a FLAC frame header (sync, valid codes, coded number, CRC-8) starts at `i`.
    static func flacFrameHeader(_ b: [UInt8], at i: Int) -> Bool {
        guard i + 6 <= b.count, b[i] == 0xFF, b[i + 1] & 0xFE == 0xF8 else { return false }
        let blockCode = b[i + 2] >> 4
        let rateCode = b[i + 2] & 0x0F
        let channels = b[i + 3] >> 4
        let depth = (b[i + 3] >> 1) & 7
        guard blockCode != 0, rateCode != 15, channels <= 10, depth != 3, b[i + 3] & 1 == 0 else { return false }
        // The frame or sample number, coded like UTF-8 in 1 to 7 bytes.
        let lead = b[i + 4]
        var extra = 0
        while extra < 7 && lead & (0x80 >> extra) != 0 { extra += 1 }
        guard extra != 1, extra != 7 || lead == 0xFE else { return false }
        let follow = extra == 0 ? 0 : extra - 1
        var end = i + 5 + follow
        guard end <= b.count, b[(i + 5)..<end].allSatisfy({ $0 & 0xC0 == 0x80 }) else { return false }
        end += blockCode == 6 ? 1 : blockCode == 7 ? 2 : 0
        end += rateCode == 12 ? 1 : rateCode == 13 || rateCode == 14 ? 2 : 0
        guard end < b.count else { return false }
        return crc8(b[i..<end]) == b[end]
    }

    /// Where three chained MPEG audio frame headers start in `b`, or nil. Two do when the second
    /// frame ends the window (a short file).
    static func mpegFrames(_ b: [UInt8]) -> Int? {
        var i = 0
        while i + 4 <= b.count {
            if b[i] == 0xFF, let first = MPEGFrameHeader(b, at: i) {
                let second = i + first.length
                if second + 4 <= b.count, let next = MPEGFrameHeader(b, at: second) {
                    let third = second + next.length
                    if third + 4 > b.count || MPEGFrameHeader(b, at: third) != nil { return i }
                }
            }
            i += 1
        }
        return nil
    }

    /// CRC-8 as FLAC frame headers use it (polynomial x⁸ + x² + x + 1, initial value 0).
    static func crc8(_ bytes: ArraySlice<UInt8>) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }
}
