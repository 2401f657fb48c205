// SPDX-License-Identifier: GPL-3.0-or-later
@preconcurrency import CFLAC
import Glibc
import KioskModel
import KioskSystem

/// Why a music file cannot be (fully) played. A plain value (no strings), so the decoder thread can
/// pass it through a preallocated queue; `description` builds the text on the thread that prints it.
///
/// Thread: a value; any.
public enum DecodeError: Error, Equatable, Sendable, BitwiseCopyable, CustomStringConvertible {
    /// open(2) failed with this errno.
    case cannotOpen(errno: Int32)
    /// A directory, device or other non-regular file.
    case notARegularFile
    /// Zero bytes long.
    case emptyFile
    /// The content is none of the formats KioskPlayer knows (whatever the file is called).
    case unrecognized
    /// A format recognised by its content that this build cannot decode.
    case notSupported(AudioFileFormat)
    /// The library that decodes this format (loaded on first use) is not installed.
    case libraryMissing(AudioFileFormat)
    /// Encrypted with FairPlay (iTunes Store purchases before 2009, Apple Music downloads).
    case drmProtected
    /// No FLAC stream found (not a FLAC file, or nothing decodable in it).
    case notFLAC
    /// The file starts like `format` but its headers are not usable.
    case badHeader(AudioFileFormat, BadHeader)
    /// A format KioskAudio cannot play (bits, channels or rate out of range).
    case unsupportedFormat(sampleRate: Int, channels: Int, bitsPerSample: Int)
    /// libFLAC reported damaged data after audio had started (`status`: FLAC__StreamDecoderErrorStatus).
    case corrupt(status: UInt32, atFrame: Int64)
    /// The format's library failed with this error code (its own numbering) near `atFrame`.
    case libraryFailed(AudioFileFormat, code: Int32, atFrame: Int64)
    /// The stream ended before STREAMINFO's total number of frames.
    case truncated(decodedFrames: Int64, expectedFrames: Int64)
    /// Seeking to the frame failed.
    case seekFailed(frame: Int64)
    /// read(2) failed with this errno.
    case readFailed(errno: Int32)
    /// libFLAC stopped in this FLAC__StreamDecoderState (e.g. out of memory).
    case decoderFailed(state: UInt32)

    /// What is wrong with a header, for `badHeader`.
    public enum BadHeader: UInt8, Sendable, BitwiseCopyable {
        case noAudioData, noFormatChunk, unsupportedCompression, chunkOverrun, noStream, noFrames, chainedLinkNotVorbis
        /// A size field whose sum with its offset does not fit in 64 bits (`DeclaredSize`).
        case sizeOverflow
    }

    public var description: String {
        switch self {
        case .cannotOpen(let e): "cannot open: \(Errno(rawValue: e).message)"
        case .notARegularFile: "not a regular file"
        case .emptyFile: "empty file"
        case .unrecognized: "not a music file (the content is no format KioskPlayer plays)"
        case .notSupported(let format): "\(format.name) files cannot be played by this version"
        case .libraryMissing(let format):
            "\(format.name) files need FFmpeg's libavformat and libavcodec, which are not installed"
        case .drmProtected: Advice.drmProtected
        case .notFLAC: "not a FLAC file (no FLAC audio found)"
        case .badHeader(let format, let problem): "not a playable \(format.name) file: \(Self.text(problem))"
        case .unsupportedFormat(let rate, let channels, let bits):
            "unsupported format: \(rate) Hz, \(channels) channels, \(bits) bits per sample"
        case .corrupt(let status, let frame):
            "corrupt FLAC data near frame \(frame): \(DecodeError.statusText(status))"
        case .libraryFailed(let format, let code, let frame):
            "corrupt \(format.name) data near frame \(frame): \(format.libraryErrorText(code))"
        case .truncated(let decoded, let expected):
            "file ends early (truncated): \(decoded) of \(expected) frames"
        case .seekFailed(let frame): "cannot seek to frame \(frame)"
        case .readFailed(let e): "read error: \(Errno(rawValue: e).message)"
        case .decoderFailed(let state): "decoder failed (\(DecodeError.stateText(state)))"
        }
    }

    /// Whether the cause may go away (I/O errors: the stick was pulled); the library does not
    /// remember such a file as unplayable.
    public var isTransient: Bool {
        switch self {
        case .cannotOpen(let e), .readFailed(let e): e == EIO || e == ENODEV || e == ENXIO || e == ENOMEM
        default: false
        }
    }

    private static func text(_ problem: BadHeader) -> String {
        switch problem {
        case .noAudioData: "no audio data"
        case .noFormatChunk: "no format description"
        case .unsupportedCompression: "compressed or unknown sample coding"
        case .chunkOverrun: "a chunk claims more bytes than the file has"
        case .noStream: "no audio stream found"
        case .noFrames: "no decodable audio frame found"
        case .sizeOverflow: "damaged file: a size field is larger than any file can be"
        case .chainedLinkNotVorbis: "a later link of the chained stream is not Vorbis (or its headers are damaged)"
        }
    }

    static func statusText(_ status: UInt32) -> String {
        switch FLAC__StreamDecoderErrorStatus(status) {
        case FLAC__STREAM_DECODER_ERROR_STATUS_LOST_SYNC: "lost sync"
        case FLAC__STREAM_DECODER_ERROR_STATUS_BAD_HEADER: "bad frame header"
        case FLAC__STREAM_DECODER_ERROR_STATUS_FRAME_CRC_MISMATCH: "frame CRC mismatch"
        case FLAC__STREAM_DECODER_ERROR_STATUS_UNPARSEABLE_STREAM: "unparseable stream"
        case FLAC__STREAM_DECODER_ERROR_STATUS_BAD_METADATA: "bad metadata"
        default: "error \(status)"
        }
    }

    static func stateText(_ state: UInt32) -> String {
        switch FLAC__StreamDecoderState(state) {
        case FLAC__STREAM_DECODER_MEMORY_ALLOCATION_ERROR: "out of memory"
        case FLAC__STREAM_DECODER_SEEK_ERROR: "seek error"
        case FLAC__STREAM_DECODER_ABORTED: "aborted"
        case FLAC__STREAM_DECODER_OGG_ERROR: "Ogg error"
        default: "state \(state)"
        }
    }
}

extension DecodeError {
    /// `unsupportedFormat` for a stream in `format`.
    static func unsupported(_ format: PCMFormat) -> DecodeError {
        .unsupportedFormat(
            sampleRate: format.sampleRate, channels: format.channels, bitsPerSample: format.bitsPerSample)
    }
}
