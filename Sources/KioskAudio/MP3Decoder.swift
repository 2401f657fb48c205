// SPDX-License-Identifier: GPL-3.0-or-later
@preconcurrency import CMPG123
import Glibc
import KioskModel
import KioskSystem

/// MPEG audio (MP3, and layers I and II) through libmpg123, reading its own descriptor.
///
/// Gapless: mpg123 reads the LAME/Xing info frame and removes the encoder delay and padding, so
/// `totalFrames` is exact for every file LAME (and most encoders) wrote; for a file without an info
/// frame mpg123 estimates it from the size. Seeking is sample-accurate (mpg123 decodes from the
/// frame before, and uses the Xing table of contents to get there in a large VBR file).
/// Samples are decoded as signed 32-bit, mpg123's most precise integer output.
///
/// Thread: one thread at a time. `decode` does not allocate (mpg123 keeps its buffers).
public final class MP3Decoder: DecoderSkeleton {
    /// The longest MPEG audio frame (MPEG-1 layer II/III), in frames per channel.
    public static let blockFrames = 1152

    private let handle: OpaquePointer
    private let source = SourceFile()
    private var encoding = SampleEncoding.s32
    private var mpgEncoding = Int32(MPG123_ENC_SIGNED_32.rawValue)
    private var streamOpen = false

    var stream = DecodedStream()
    public var maxBlockSize: Int { MP3Decoder.blockFrames }

    public init() {
        var error: Int32 = 0
        guard let made = mpg123_new(nil, &error) else {
            fatalError("mpg123_new: \(String(cString: mpg123_plain_strerror(error)))")
        }
        handle = made
        // Quiet (no stderr), gapless, and ID3v2 skipped: the library reads tags on its own.
        let flags = Int(MPG123_QUIET.rawValue | MPG123_GAPLESS.rawValue | MPG123_SKIP_ID3V2.rawValue)
        _ = mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), flags, 0)
        _ = mpg123_format_none(handle)
        let both = Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue)
        if mpg123_format2(handle, 0, both, mpgEncoding) != MPG123_OK.rawValue {
            // A build without 32-bit output: 16-bit is what every build has.
            mpgEncoding = Int32(MPG123_ENC_SIGNED_16.rawValue)
            encoding = .s16
            _ = mpg123_format2(handle, 0, both, mpgEncoding)
        }
    }

    deinit {
        close()
        mpg123_delete(handle)
    }

    func closeLibrary() {
        if streamOpen {
            _ = mpg123_close(handle)
            streamOpen = false
        }
        source.close()
    }

    public func open(path: String) throws(DecodeError) {
        try beginOpen(path, source: source)
        guard mpg123_open_fd(handle, source.fd) == MPG123_OK.rawValue else {
            throw fail(.libraryFailed(.mp3, code: mpg123_errcode(handle), atFrame: 0))
        }
        streamOpen = true
        var rate = 0
        var channels: Int32 = 0
        var got: Int32 = 0
        // Reads up to the first frame (skipping tags and junk up to mpg123's resync limit).
        guard mpg123_getformat(handle, &rate, &channels, &got) == MPG123_OK.rawValue, rate > 0 else {
            throw fail(source.readFailure(or: .badHeader(.mp3, .noFrames)))
        }
        let streamFormat = PCMFormat(sampleRate: rate, channels: Int(channels), bitsPerSample: encoding.bits)
        guard streamFormat.isPlayable else { throw fail(.unsupported(streamFormat)) }
        stream.format = streamFormat
        let length = Int64(mpg123_length(handle))
        stream.totalFrames = length > 0 ? length : nil
    }

    func seekLibrary(toFrame frame: Int64) throws(DecodeError) {
        guard streamOpen, mpg123_seek(handle, off_t(max(0, frame)), SEEK_SET) >= 0 else {
            throw .seekFailed(frame: frame)
        }
    }

    public func decode(into regions: RingBuffer.Regions) -> DecodeStep {
        guard streamOpen, let current = format else { return .failed(.badHeader(.mp3, .noFrames)) }
        let frameBytes = current.channels * encoding.bytes
        let frames = min(regions.firstFrames, MP3Decoder.blockFrames * 4)
        // mpg123 hands out whole samples from its own buffer; a frame-sized request stays aligned.
        var idle = 0
        while true {
            var done = 0
            let status = mpg123_read(handle, regions.first, frames * frameBytes, &done)
            let n = done / frameBytes
            if n > 0 {
                stream.position += Int64(n)
                return .frames(n)
            }
            switch status {
            case MPG123_DONE.rawValue:
                return .endOfStream
            case MPG123_NEW_FORMAT.rawValue:
                var rate = 0
                var channels: Int32 = 0
                var got: Int32 = 0
                _ = mpg123_getformat(handle, &rate, &channels, &got)
                let next = PCMFormat(sampleRate: rate, channels: Int(channels), bitsPerSample: encoding.bits)
                if next != current {
                    guard next.isPlayable else { return .failed(.unsupported(next)) }
                    stream.format = next
                    return .formatChange(next)
                }
            case MPG123_OK.rawValue:
                // Nothing came out (a frame that decoded to nothing, e.g. the info frame): go on,
                // but not forever.
                idle += 1
                if idle > 64 { return .failed(.libraryFailed(.mp3, code: MPG123_ERR.rawValue, atFrame: position)) }
            default:
                return .failed(
                    source.readFailure(or: .libraryFailed(.mp3, code: mpg123_errcode(handle), atFrame: position)))
            }
        }
    }
}
