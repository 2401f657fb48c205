// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// What one `AudioDecoder.decode(into:)` call produced.
public enum DecodeStep: Equatable, Sendable {
    /// This many frames were written to the front of the target regions.
    case frames(Int)
    /// The stream changes format here: nothing was written; `format` is now the new format and the
    /// next call delivers frames in it (reconfigure the destination first).
    case formatChange(PCMFormat)
    /// No more audio.
    case endOfStream
    /// The stream cannot be decoded further.
    case failed(DecodeError)
}

/// One format's decoder, as the engine's decoder thread drives it (MPD's decoder plugins): open a
/// file, report its format and exact length, decode into the ring's writable regions, seek, close.
///
/// Samples arrive as interleaved little-endian integers in `format.ringEncoding`, left-justified
/// (16-bit words up to 16 significant bits, 32-bit words above). Lossless formats deliver their
/// samples unchanged; lossy ones at the library's best precision (`bitsPerSample` says how many
/// bits of the 32-bit word carry it). Encoder delay and padding are already removed where the
/// file says what they are (gapless), and `totalFrames` counts the frames that remain.
///
/// Thread: one thread at a time (the engine's decoder thread, or a scan worker). After `init`,
/// `decode` does not allocate in steady state.
public protocol AudioDecoder: AnyObject {
    /// The file that is open ("" when none).
    var path: String { get }
    /// Format of the frames the next `decode` delivers; nil until a file is open.
    var format: PCMFormat? { get }
    /// Exact frames of audio after gapless trimming, when the file tells (nil: unknown).
    var totalFrames: Int64? { get }
    /// Frame number (per channel) of the next frame `decode` delivers.
    var position: Int64 { get }
    /// The most frames one `decode` call delivers; the caller waits for this much room.
    var maxBlockSize: Int { get }

    /// Opens `path` and reads up to its first audio: sets `format` and `totalFrames`.
    func open(path: String) throws(DecodeError)
    /// Moves to frame `frame` (0-based); the next `decode` starts there.
    func seek(toFrame frame: Int64) throws(DecodeError)
    /// Decodes into `regions`, at most `regions.frames` frames.
    func decode(into regions: RingBuffer.Regions) -> DecodeStep
    /// Closes the file (if any).
    func close()
}
