// SPDX-License-Identifier: GPL-3.0-or-later
@preconcurrency import CMPG123
@preconcurrency import COpusFile
@preconcurrency import CVorbisFile
import Glibc
import KioskSystem

/// One decoder per format, made when first needed and reused, and the choice between them by the
/// file's content (its first bytes after any ID3v2 tag), never by its name: a signature, else
/// what the frames look like (`StreamProbe`), confirmed by that format's decoder.
///
/// Thread: one thread at a time (the engine's decoder thread, or one scan worker each).
public final class DecoderSet {
    private var flac: FLACDecoder?
    private var mp3: MP3Decoder?
    private var vorbis: VorbisDecoder?
    private var opus: OpusDecoder?
    private var pcm: PCMFileDecoder?
    private var mp4: MP4Decoder?
    private var head = [UInt8](repeating: 0, count: AudioFileFormat.sniffBytes)

    public init() {}

    /// The format of the file at `path`, by content. Throws what makes it unreadable.
    public func identify(path: String) throws(DecodeError) -> AudioFileFormat {
        // SourceFile's open checks what every decoder checks: a non-empty regular file.
        let file = SourceFile()
        try file.open(path)
        defer { file.close() }
        return try identify(fd: file.fd, path: path, headCount: try read(file.fd, at: 0))
    }

    /// The format of the file open at `fd` (a non-empty regular file, as `identify(path:)` checks)
    /// whose first bytes are `first`: the caller's read of the file's start is used, so a reader that
    /// goes on with the same descriptor opens and reads the file's head once.
    public func identify(fd: Int32, path: String, first: UnsafeRawBufferPointer) throws(DecodeError)
        -> AudioFileFormat
    {
        // The most common case, as `sniff` would find it, without copying the head.
        if first.count >= 4 && first[0] == 0x66 && first[1] == 0x4C && first[2] == 0x61 && first[3] == 0x43 {
            return .flac
        }
        let n = min(first.count, head.count)
        head.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: first.prefix(n))) }
        return try identify(fd: fd, path: path, headCount: n)
    }

    /// `identify` once `head` holds the file's first `headCount` bytes.
    private func identify(fd: Int32, path: String, headCount: Int) throws(DecodeError) -> AudioFileFormat {
        var n = headCount
        let tag = AudioFileFormat.id3v2Length(head.prefix(n))
        if tag > 0 {
            n = try read(fd, at: Int64(tag))
            // A tag that claims the whole file, or more: MP3's sync search starts after it anyway.
            if n == 0 { return .mp3 }
        }
        if let format = AudioFileFormat.sniff(head.prefix(n)) { return format }
        // After an ID3v2 tag, padding or junk may come before the first frame: mpg123 resyncs.
        if tag > 0 { return .mp3 }
        if let format = try probeWithoutSignature(path: path, fd: fd) { return format }
        throw .unrecognized
    }

    /// A stream without a signature (`StreamProbe`), when its decoder opens it (reads its first frame).
    /// Bounded: one read of the probe's window, and a decoder only for a window that looks like
    /// its frames.
    private func probeWithoutSignature(path: String, fd: Int32) throws(DecodeError) -> AudioFileFormat? {
        var window = [UInt8](repeating: 0, count: StreamProbe.windowBytes)
        let n = try Self.pread(fd, into: &window, at: 0)
        guard let (format, _) = StreamProbe.probe(Array(window.prefix(n))) else { return nil }
        // A decoder of its own: the set's may hold the file that is playing.
        let decoder: any AudioDecoder = format == .flac ? FLACDecoder() : MP3Decoder()
        defer { decoder.close() }
        do throws(DecodeError) {
            try decoder.open(path: path)
        } catch {
            return nil
        }
        return format
    }

    private func read(_ fd: Int32, at offset: Int64) throws(DecodeError) -> Int {
        try Self.pread(fd, into: &head, at: offset)
    }

    /// Reads up to `buffer.count` bytes at `offset` into `buffer`: the bytes read.
    private static func pread(_ fd: Int32, into buffer: inout [UInt8], at offset: Int64) throws(DecodeError) -> Int {
        do throws(Errno) {
            // A Result carries the typed error through Array's rethrowing (untyped in Swift 6.0) closure.
            return try buffer.withUnsafeMutableBytes { raw in
                Result { () throws(Errno) in try Syscalls.pread(fd, raw, offset: offset) }
            }.get()
        } catch {
            throw .readFailed(errno: error.rawValue)
        }
    }

    /// The decoder for `format`, or nil when this build has none.
    public func decoder(for format: AudioFileFormat) -> (any AudioDecoder)? {
        switch format {
        case .flac:
            if flac == nil { flac = FLACDecoder() }
            return flac
        case .mp3:
            if mp3 == nil { mp3 = MP3Decoder() }
            return mp3
        case .oggVorbis:
            if vorbis == nil { vorbis = VorbisDecoder() }
            return vorbis
        case .opus:
            if opus == nil { opus = OpusDecoder() }
            return opus
        case .wav, .aiff:
            if pcm == nil { pcm = PCMFileDecoder() }
            return pcm
        case .mp4:
            if mp4 == nil { mp4 = MP4Decoder() }
            return mp4
        case .oggFLAC:
            return nil
        }
    }

    /// Identifies `path` and opens it with its format's decoder.
    public func open(path: String) throws(DecodeError) -> any AudioDecoder {
        let format = try identify(path: path)
        if format == .mp4 { try checkMP4(path: path) }
        guard let decoder = decoder(for: format) else { throw .notSupported(format) }
        try decoder.open(path: path)
        return decoder
    }

    /// Throws `.drmProtected` for a FairPlay (or otherwise encrypted) MP4, and what makes any other
    /// MP4 unreadable; returns for plain audio.
    public func checkMP4(path: String) throws(DecodeError) {
        let file = SourceFile()
        try file.open(path)
        defer { file.close() }
        if try MP4Probe.probe(fd: file.fd, size: file.size) == .drmProtected { throw .drmProtected }
    }

    /// Closes whichever decoder has a file open.
    public func closeAll() {
        flac?.close()
        mp3?.close()
        vorbis?.close()
        opus?.close()
        pcm?.close()
        mp4?.close()
    }
}

extension AudioFileFormat {
    /// The text of error `code` of this format's library.
    func libraryErrorText(_ code: Int32) -> String {
        switch self {
        case .mp3:
            return String(cString: mpg123_plain_strerror(code))
        case .oggVorbis:
            switch code {
            case OV_EREAD: return "read error"
            case OV_EFAULT: return "internal error"
            case OV_EBADHEADER: return "bad Vorbis header"
            case OV_EBADLINK: return "damaged link in the stream"
            case OV_ENOTVORBIS: return "not Vorbis data"
            case OV_EVERSION: return "unsupported Vorbis version"
            default: return "vorbisfile error \(code)"
            }
        case .opus:
            switch code {
            case OP_EREAD: return "read error"
            case OP_EFAULT: return "internal error"
            case OP_EBADHEADER: return "bad Opus header"
            case OP_EBADLINK: return "damaged link in the stream"
            case OP_EBADPACKET: return "damaged packet"
            case OP_ENOTFORMAT: return "not Opus data"
            case OP_EVERSION: return "unsupported Opus version"
            case OP_EBADTIMESTAMP: return "bad timestamp"
            default: return "opusfile error \(code)"
            }
        default:
            return "error \(code)"
        }
    }
}
