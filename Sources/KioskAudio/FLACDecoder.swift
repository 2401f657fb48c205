// SPDX-License-Identifier: GPL-3.0-or-later
@preconcurrency import CFLAC
import Glibc
import KioskModel
import KioskSystem

/// A FLAC decoder over libFLAC's stream decoder, reading a file through its own descriptor.
///
/// `open(path:)` reads the metadata (or, for a stream that starts at a frame, the first frame) and
/// sets `format`; `decode(into:)` decodes the next frame(s) as interleaved little-endian integers in
/// `format.ringEncoding` (16-bit words up to 16 bits, 32-bit words above, left-justified) straight
/// into caller-provided memory; `seek(toFrame:)` jumps. A frame whose rate, channels or depth differ
/// from the current format is reported as `.formatChange` and delivered after it, never mixed in.
/// Samples that do not fit into the target wait in a preallocated side buffer.
///
/// Damaged data is tolerated only before the first good frame (junk before the stream, as libFLAC
/// can skip); afterwards any decoder error fails the track with `.corrupt`. MD5 is not checked.
///
/// Thread: one thread at a time (the engine's decoder thread). `decode` does not allocate (libFLAC
/// sizes its own buffers on the first frame after open or seek, and when a larger block arrives).
public final class FLACDecoder: DecoderSkeleton {
    /// The largest block FLAC allows, in frames.
    public static let maxBlockFrames = 65535
    /// Bytes of junk scanned before giving up on finding a FLAC stream.
    public static let junkLimit: Int64 = 16 << 20

    private let decoder: UnsafeMutablePointer<FLAC__StreamDecoder>
    /// The open file (closed between files).
    private let source = SourceFile()
    private var fd: Int32 { source.fd }
    private var initialized = false

    /// The file's facts; `totalFrames` is STREAMINFO's, when set. The position is counted apart
    /// (`position`): decoded frames may wait in the side buffer.
    var stream = DecodedStream()
    /// STREAMINFO's largest block (frames), or `maxBlockFrames` when unknown.
    public private(set) var maxBlockSize = FLACDecoder.maxBlockFrames
    /// Frame number (per channel) of the next frame `decode` delivers.
    public var position: Int64 { decodedPosition - Int64(spill.heldFrames) }
    /// Frame number after the last frame libFLAC decoded (delivered or waiting in the side buffer).
    private var decodedPosition: Int64 = 0

    // Side buffer for samples that could not go to the target: one block in its own format.
    private let spill = PCMStage(capacityBytes: FLACDecoder.maxBlockFrames * 8 * 4)

    // State the callbacks share with decode().
    fileprivate var target: RingBuffer.Regions?
    fileprivate var targetWritten = 0
    fileprivate var failure: DecodeError?
    fileprivate var pendingError: UInt32?
    fileprivate var sawGoodFrame = false
    fileprivate var skipNextWrite = false
    fileprivate var streamInfo: FLAC__StreamMetadata_StreamInfo?
    fileprivate var bytesRead: Int64 = 0
    fileprivate var atEOF = false

    public init() {
        guard let made = FLAC__stream_decoder_new() else { fatalError("FLAC__stream_decoder_new: out of memory") }
        decoder = made
    }

    deinit {
        close()
        FLAC__stream_decoder_delete(decoder)
    }

    func closeLibrary() {
        if initialized {
            FLAC__stream_decoder_finish(decoder)
            initialized = false
        }
        source.close()
        spill.reset()
    }

    /// Opens `path` and reads up to the first audio: sets `format`, `totalFrames`, `maxBlockSize`.
    public func open(path: String) throws(DecodeError) {
        try beginOpen(path, source: source)
        failure = nil
        pendingError = nil
        sawGoodFrame = false
        skipNextWrite = false
        streamInfo = nil
        bytesRead = 0
        atEOF = false
        decodedPosition = 0
        FLAC__stream_decoder_set_md5_checking(decoder, 0)
        let status = FLAC__stream_decoder_init_stream(
            decoder, flacRead, flacSeek, flacTell, flacLength, flacEOF, flacWrite, flacMetadata, flacError,
            Unmanaged.passUnretained(self).toOpaque())
        guard status == FLAC__STREAM_DECODER_INIT_STATUS_OK else {
            throw fail(.decoderFailed(state: FLAC__STREAM_DECODER_UNINITIALIZED.rawValue))
        }
        initialized = true
        let ok = FLAC__stream_decoder_process_until_end_of_metadata(decoder)
        if let failure { throw fail(failure) }
        if ok == 0 && streamInfo == nil { throw fail(.notFLAC) }

        if let info = streamInfo {
            let streamFormat = PCMFormat(
                sampleRate: Int(info.sample_rate), channels: Int(info.channels),
                bitsPerSample: Int(info.bits_per_sample))
            guard streamFormat.isPlayable else { throw fail(.unsupported(streamFormat)) }
            stream.format = streamFormat
            stream.totalFrames = info.total_samples > 0 ? Int64(info.total_samples) : nil
            maxBlockSize =
                info.max_blocksize >= 16
                ? min(Int(info.max_blocksize), FLACDecoder.maxBlockFrames)
                : FLACDecoder.maxBlockFrames
        } else {
            // No STREAMINFO: a stream that starts at a frame. Its first frame tells the format.
            maxBlockSize = FLACDecoder.maxBlockFrames
            while spill.isEmpty {
                let ok = FLAC__stream_decoder_process_single(decoder)
                if let failure { throw fail(failure) }
                let state = FLAC__stream_decoder_get_state(decoder)
                if state == FLAC__STREAM_DECODER_END_OF_STREAM || ok == 0 {
                    throw fail(sawGoodFrame ? .decoderFailed(state: state.rawValue) : .notFLAC)
                }
            }
            guard spill.format.isPlayable else { throw fail(.unsupported(spill.format)) }
            stream.format = spill.format
        }
    }

    func seekLibrary(toFrame frame: Int64) throws(DecodeError) {
        guard initialized else { throw .seekFailed(frame: frame) }
        spill.reset()
        pendingError = nil
        let keepFormat = format
        let keepPosition = decodedPosition
        // libFLAC delivers the partial block from `frame` on through the write callback.
        decodedPosition = frame
        if FLAC__stream_decoder_seek_absolute(decoder, UInt64(max(0, frame))) == 0 {
            if FLAC__stream_decoder_get_state(decoder) == FLAC__STREAM_DECODER_SEEK_ERROR {
                FLAC__stream_decoder_flush(decoder)
            }
            spill.reset()
            decodedPosition = keepPosition
            throw .seekFailed(frame: frame)
        }
        if let failure { throw failure }
        // The partial block libFLAC delivered during the seek sits in the spill buffer; a format
        // different from the one before the seek is reported by the next decode as usual.
        if let keepFormat { stream.format = keepFormat }
    }

    /// Decodes into `regions` (in `format.ringEncoding`), at most `regions.frames` frames.
    public func decode(into regions: RingBuffer.Regions) -> DecodeStep {
        guard format != nil else { return .failed(.notFLAC) }
        if !spill.isEmpty { return deliver(spill, into: regions) }
        if let failure { return .failed(failure) }
        while true {
            target = regions
            targetWritten = 0
            let ok = FLAC__stream_decoder_process_single(decoder)
            target = nil
            if let failure { return .failed(failure) }
            if targetWritten > 0 { return .frames(targetWritten) }
            if !spill.isEmpty { return deliver(spill, into: regions) }
            let state = FLAC__stream_decoder_get_state(decoder)
            if state == FLAC__STREAM_DECODER_END_OF_STREAM {
                if let total = totalFrames, decodedPosition < total {
                    return .failed(.truncated(decodedFrames: decodedPosition, expectedFrames: total))
                }
                // An error after the last frame (trailing junk such as an ID3v1 tag) is harmless.
                return .endOfStream
            }
            if ok == 0 { return .failed(.decoderFailed(state: state.rawValue)) }
        }
    }

    // MARK: - callbacks (decoder thread, inside libFLAC calls)

    fileprivate func read(_ buffer: UnsafeMutablePointer<UInt8>, _ bytes: UnsafeMutablePointer<Int>)
        -> FLAC__StreamDecoderReadStatus
    {
        if !sawGoodFrame && bytesRead > FLACDecoder.junkLimit {
            failure = .notFLAC
            bytes.pointee = 0
            return FLAC__STREAM_DECODER_READ_STATUS_ABORT
        }
        let n = source.read(buffer, bytes.pointee)
        if n > 0 {
            bytes.pointee = n
            bytesRead += Int64(n)
            return FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
        }
        bytes.pointee = 0
        if n == 0 {
            atEOF = true
            return FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM
        }
        failure = .readFailed(errno: source.readErrno)
        return FLAC__STREAM_DECODER_READ_STATUS_ABORT
    }

    fileprivate func seekFile(_ offset: UInt64) -> FLAC__StreamDecoderSeekStatus {
        if lseek(fd, off_t(offset), SEEK_SET) < 0 { return FLAC__STREAM_DECODER_SEEK_STATUS_ERROR }
        atEOF = false
        return FLAC__STREAM_DECODER_SEEK_STATUS_OK
    }

    fileprivate func tell(_ offset: UnsafeMutablePointer<UInt64>) -> FLAC__StreamDecoderTellStatus {
        let at = lseek(fd, 0, SEEK_CUR)
        if at < 0 { return FLAC__STREAM_DECODER_TELL_STATUS_ERROR }
        offset.pointee = UInt64(at)
        return FLAC__STREAM_DECODER_TELL_STATUS_OK
    }

    fileprivate func length(_ length: UnsafeMutablePointer<UInt64>) -> FLAC__StreamDecoderLengthStatus {
        var st = stat()
        if fstat(fd, &st) != 0 { return FLAC__STREAM_DECODER_LENGTH_STATUS_ERROR }
        length.pointee = UInt64(st.st_size)
        return FLAC__STREAM_DECODER_LENGTH_STATUS_OK
    }

    fileprivate var endOfFile: Bool { atEOF }

    fileprivate func metadata(_ block: UnsafePointer<FLAC__StreamMetadata>) {
        if block.pointee.type == FLAC__METADATA_TYPE_STREAMINFO && streamInfo == nil {
            streamInfo = block.pointee.data.stream_info
        }
    }

    fileprivate func error(_ status: FLAC__StreamDecoderErrorStatus) {
        // Before the first good frame libFLAC is still looking for the stream: junk is tolerated,
        // and a false frame in it that failed its CRC (delivered as silence next) is dropped.
        if !sawGoodFrame {
            if status == FLAC__STREAM_DECODER_ERROR_STATUS_FRAME_CRC_MISMATCH { skipNextWrite = true }
            return
        }
        if pendingError == nil { pendingError = status.rawValue }
    }

    fileprivate func write(_ frame: UnsafePointer<FLAC__Frame>, _ buffer: UnsafePointer<UnsafePointer<Int32>?>)
        -> FLAC__StreamDecoderWriteStatus
    {
        let header = frame.pointee.header
        let blockFrames = Int(header.blocksize)
        if skipNextWrite {
            skipNextWrite = false
            return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
        }
        if let status = pendingError {
            // The frame follows damaged data (a CRC-failed frame arrives here as silence).
            failure = .corrupt(status: status, atFrame: decodedPosition)
            return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
        }
        let frameFormat = PCMFormat(
            sampleRate: Int(header.sample_rate), channels: Int(header.channels),
            bitsPerSample: Int(header.bits_per_sample))
        guard frameFormat.isPlayable, blockFrames <= FLACDecoder.maxBlockFrames else {
            failure = sawGoodFrame ? .corrupt(status: 1, atFrame: decodedPosition) : .unsupported(frameFormat)
            return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
        }
        sawGoodFrame = true
        let encoding = frameFormat.ringEncoding
        let shift = encoding.bits - frameFormat.bitsPerSample
        var done = 0
        if frameFormat == format, let target {
            let room = target.frames - targetWritten
            let n = min(room, blockFrames)
            var offset = targetWritten
            var from = 0
            if offset < target.firstFrames {
                let count = min(n, target.firstFrames - offset)
                let destination = target.first + offset * frameFormat.channels * encoding.bytes
                interleave(buffer, frameFormat.channels, from: 0, count: count, to: destination, encoding, shift)
                from = count
                offset += count
            }
            if from < n {
                let destination = target.second + (offset - target.firstFrames) * frameFormat.channels * encoding.bytes
                interleave(buffer, frameFormat.channels, from: from, count: n - from, to: destination, encoding, shift)
            }
            targetWritten += n
            done = n
        }
        if done < blockFrames {
            // No room, no target yet (open, seek) or a new format: keep the rest for later.
            let frameBytes = frameFormat.channels * encoding.bytes
            let count = blockFrames - done
            let base = spill.frames  // the side buffer is only added to before anything is drained from it
            if !spill.isEmpty && frameFormat != spill.format || (base + count) * frameBytes > spill.capacityBytes {
                failure = .decoderFailed(state: FLAC__STREAM_DECODER_ABORTED.rawValue)
                return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
            }
            interleave(
                buffer, frameFormat.channels, from: done, count: count, to: spill.buffer + base * frameBytes, encoding,
                shift)
            spill.filled(base + count, format: frameFormat)
        }
        decodedPosition += Int64(blockFrames)
        return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
    }
}

/// Writes `count` frames starting at frame `start` of libFLAC's per-channel buffers to `destination`
/// as interleaved little-endian `encoding` words, each sample shifted left by `shift`.
///
/// Masking shifts and wrapping index arithmetic: `shift` is 0…31 (the ring word's width less the
/// frame's bits) and a `bitsPerSample`-bit sample shifted by it fits the word, so neither can
/// differ from the checked form; the checked `<<` (a branch per sample for other shift amounts)
/// kept these loops scalar.
@inline(__always)
private func interleave(
    _ buffer: UnsafePointer<UnsafePointer<Int32>?>, _ channels: Int, from start: Int, count: Int,
    to destination: UnsafeMutableRawPointer, _ encoding: SampleEncoding, _ shift: Int
) {
    if count <= 0 { return }
    let s = Int32(shift)
    switch encoding {
    case .s16:
        let out = destination.assumingMemoryBound(to: Int16.self)
        if channels == 2 {
            let left = buffer[0]! + start
            let right = buffer[1]! + start
            for i in 0..<count {
                out[2 &* i] = Int16(truncatingIfNeeded: left[i] &<< s)
                out[2 &* i &+ 1] = Int16(truncatingIfNeeded: right[i] &<< s)
            }
        } else {
            for c in 0..<channels {
                let source = buffer[c]! + start
                for i in 0..<count { out[i &* channels &+ c] = Int16(truncatingIfNeeded: source[i] &<< s) }
            }
        }
    default:
        let out = destination.assumingMemoryBound(to: Int32.self)
        if channels == 2 {
            let left = buffer[0]! + start
            let right = buffer[1]! + start
            for i in 0..<count {
                out[2 &* i] = left[i] &<< s
                out[2 &* i &+ 1] = right[i] &<< s
            }
        } else {
            for c in 0..<channels {
                let source = buffer[c]! + start
                for i in 0..<count { out[i &* channels &+ c] = source[i] &<< s }
            }
        }
    }
}

// libFLAC callbacks: plain C functions that find the decoder through client_data.

private func decoderFrom(_ client: UnsafeMutableRawPointer?) -> FLACDecoder {
    Unmanaged<FLACDecoder>.fromOpaque(client!).takeUnretainedValue()
}

private let flacRead: FLAC__StreamDecoderReadCallback = { _, buffer, bytes, client in
    decoderFrom(client).read(buffer!, bytes!)
}

private let flacSeek: FLAC__StreamDecoderSeekCallback = { _, offset, client in
    decoderFrom(client).seekFile(offset)
}

private let flacTell: FLAC__StreamDecoderTellCallback = { _, offset, client in
    decoderFrom(client).tell(offset!)
}

private let flacLength: FLAC__StreamDecoderLengthCallback = { _, length, client in
    decoderFrom(client).length(length!)
}

private let flacEOF: FLAC__StreamDecoderEofCallback = { _, client in
    decoderFrom(client).endOfFile ? 1 : 0
}

private let flacWrite: FLAC__StreamDecoderWriteCallback = { _, frame, buffer, client in
    decoderFrom(client).write(frame!, buffer!)
}

private let flacMetadata: FLAC__StreamDecoderMetadataCallback = { _, block, client in
    decoderFrom(client).metadata(block!)
}

private let flacError: FLAC__StreamDecoderErrorCallback = { _, status, client in
    decoderFrom(client).error(status)
}
