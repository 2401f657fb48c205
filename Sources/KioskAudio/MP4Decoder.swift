// SPDX-License-Identifier: GPL-3.0-or-later
@preconcurrency import CKioskFFmpeg
import Glibc
import KioskModel
import KioskSystem

/// MP4/M4A audio (AAC-LC, HE-AAC, ALAC) through FFmpeg's libavformat and libavcodec, as MPD's
/// ffmpeg plugin plays it.
///
/// Gapless: the encoder delay is removed by FFmpeg from the edit list (its skip-samples side data),
/// and the stream ends at the length the edit list gives, or iTunes' `iTunSMPB` when the file has
/// one; frames the last packet decodes beyond it are dropped here. ALAC's integer samples reach the
/// ring unchanged (16-bit words, or 32-bit left-justified for 20/24/32 bits); AAC's floats become
/// 32-bit words with 24 significant bits. Seeking goes to the packet before the frame and drops
/// what comes before it, so it lands on the frame.
///
/// FairPlay files never get here: `DecoderSet` names them from their sample entries first. FFmpeg
/// is loaded the first time an MP4 is opened (`kiosk_ffmpeg.h` says why); without it an MP4 is
/// refused as `.libraryMissing`.
///
/// Thread: one thread at a time. `decode` does not allocate once FFmpeg has its buffers.
public final class MP4Decoder: DecoderSkeleton {
    /// The most frames one decoded packet holds (ALAC: 4096; AAC: 1024, HE-AAC 2048).
    public static let blockFrames = 8192

    private var container: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>!
    private var frame: UnsafeMutablePointer<AVFrame>!
    private var streamIndex: Int32 = -1
    private var timeBase = AVRational(num: 1, den: 1)
    private var flushing = false
    /// After a seek: frames before this one are dropped.
    private var seekTarget: Int64 = 0
    private let stage = PCMStage(capacityBytes: MP4Decoder.blockFrames * 8 * 4)

    var stream = DecodedStream()
    public var maxBlockSize: Int { MP4Decoder.blockFrames }
    /// Whether the stream is Apple Lossless (then delivered bit-perfect).
    public private(set) var isLossless = false

    public init() {}

    deinit {
        close()
        if packet != nil {
            var p: UnsafeMutablePointer<AVPacket>? = packet
            kff_av_packet_free(&p)
        }
        if frame != nil {
            var f: UnsafeMutablePointer<AVFrame>? = frame
            kff_av_frame_free(&f)
        }
    }

    /// Loads FFmpeg (the first time) and makes the packet and frame this decoder reuses.
    private func prepare() throws(DecodeError) {
        if packet != nil { return }
        var why = [CChar](repeating: 0, count: 256)
        guard kff_load(&why, why.count) == 0 else {
            let reason = String(decoding: why.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            Log.warning("MP4/M4A: FFmpeg cannot be loaded: \(reason)")
            throw .libraryMissing(.mp4)
        }
        guard let p = kff_av_packet_alloc(), let f = kff_av_frame_alloc() else { fatalError("FFmpeg: out of memory") }
        packet = p
        frame = f
    }

    func closeLibrary() {
        if codec != nil { kff_avcodec_free_context(&codec) }
        if container != nil { kff_avformat_close_input(&container) }
        streamIndex = -1
        seekTarget = 0
        flushing = false
        isLossless = false
        stage.reset()
    }

    public func open(path: String) throws(DecodeError) {
        let container = try openContainer(path)
        guard kff_avformat_find_stream_info(container, nil) >= 0 else { throw fail(.badHeader(.mp4, .noStream)) }
        var decoder: UnsafePointer<AVCodec>?
        streamIndex = kff_av_find_best_stream(container, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0)
        guard streamIndex >= 0, let st = container.pointee.streams[Int(streamIndex)],
            let parameters = st.pointee.codecpar
        else {
            throw fail(.badHeader(.mp4, .noStream))
        }
        guard let decoder, let context = kff_avcodec_alloc_context3(decoder) else { throw fail(.notSupported(.mp4)) }
        codec = context
        guard kff_avcodec_parameters_to_context(context, parameters) >= 0, kff_avcodec_open2(context, decoder, nil) == 0
        else {
            throw fail(.notSupported(.mp4))
        }
        timeBase = st.pointee.time_base
        isLossless = parameters.pointee.codec_id == AV_CODEC_ID_ALAC
        let rate = Int(context.pointee.sample_rate)
        let channels = Int(context.pointee.ch_layout.nb_channels)
        let bits: Int
        switch AVSampleFormat(context.pointee.sample_fmt.rawValue) {
        case AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P: bits = 16
        case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P:
            let raw = Int(context.pointee.bits_per_raw_sample)
            bits = raw > 16 && raw <= 32 ? raw : 32
        case AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP: bits = 24
        default: throw fail(.unsupportedFormat(sampleRate: rate, channels: channels, bitsPerSample: 0))
        }
        let streamFormat = PCMFormat(sampleRate: rate, channels: channels, bitsPerSample: bits)
        guard streamFormat.isPlayable else {
            throw fail(.unsupportedFormat(sampleRate: rate, channels: channels, bitsPerSample: bits))
        }
        stream.format = streamFormat
        stream.totalFrames = Self.length(of: st, in: container, rate: rate)
    }

    /// The format and exact length of the audio stream of `path` from the container's headers
    /// alone (the sample description, the edit list, iTunes' gapless tag), without opening the codec
    /// or decoding a packet: what the library's scan lists an M4A by, at a tenth of `open` and a
    /// first `decode` (measured: 60 µs against 740 µs per file); the first packet is decoded later
    /// (`PlayabilityPass`). The format is the one `open` gives: AAC's floats become 24-bit words,
    /// ALAC keeps its bit depth (its configuration's). AAC at 24 kHz or less may be HE-AAC whose
    /// doubled rate only its decoder reveals, and a codec other than AAC or ALAC is rare: those
    /// are opened the whole way. Leaves nothing open.
    public func readHeaders(path: String) throws(DecodeError) -> (format: PCMFormat, totalFrames: Int64?) {
        defer { close() }
        let container = try openContainer(path)
        let index = kff_av_find_best_stream(container, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard index >= 0, let st = container.pointee.streams[Int(index)], let parameters = st.pointee.codecpar else {
            throw fail(.badHeader(.mp4, .noStream))
        }
        let rate = Int(parameters.pointee.sample_rate)
        let channels = Int(parameters.pointee.ch_layout.nb_channels)
        let bits: Int
        if parameters.pointee.codec_id == AV_CODEC_ID_AAC && rate > 24000 {
            bits = 24
        } else if parameters.pointee.codec_id == AV_CODEC_ID_ALAC, let depth = Self.alacBitDepth(parameters) {
            bits = depth
        } else {
            try open(path: path)
            guard let format else { throw .badHeader(.mp4, .noStream) }
            return (format, totalFrames)
        }
        let streamFormat = PCMFormat(sampleRate: rate, channels: channels, bitsPerSample: bits)
        guard streamFormat.isPlayable else {
            throw fail(.unsupportedFormat(sampleRate: rate, channels: channels, bitsPerSample: bits))
        }
        return (streamFormat, Self.length(of: st, in: container, rate: rate))
    }

    /// Loads FFmpeg and opens the container of `path` with the MP4 demuxer named, not probed for
    /// (`DecoderSet` has identified the file by its boxes; probing every demuxer cost 150 µs a file).
    private func openContainer(_ path: String) throws(DecodeError) -> UnsafeMutablePointer<AVFormatContext> {
        close()
        try prepare()
        stream.path = path
        // "file:" so that no part of a name is taken for a protocol; DiskName for a name that is
        // not UTF-8 on disk.
        let url = Array("file:".utf8CString.dropLast()) + DiskName.openable(path)
        guard kff_avformat_open_input(&container, url, kff_av_find_input_format("mov"), nil) == 0, let container
        else {
            throw fail(.badHeader(.mp4, .noStream))
        }
        return container
    }

    /// The stream's length in frames at `rate`: iTunes' gapless tag, else the stream's duration
    /// (from the edit list).
    private static func length(
        of st: UnsafeMutablePointer<AVStream>, in container: UnsafeMutablePointer<AVFormatContext>, rate: Int
    ) -> Int64? {
        if let total = iTunesLength(container.pointee.metadata) ?? iTunesLength(st.pointee.metadata) { return total }
        guard st.pointee.duration > 0, st.pointee.duration != kff_nopts_value() else { return nil }
        return kff_av_rescale_q(st.pointee.duration, st.pointee.time_base, AVRational(num: 1, den: Int32(rate)))
    }

    /// The bit depth in an ALAC stream's configuration (its magic cookie: the 'alac' box, whose
    /// 12-byte header and version come first), as FFmpeg's decoder reads it.
    private static func alacBitDepth(_ parameters: UnsafeMutablePointer<AVCodecParameters>) -> Int? {
        guard let extra = parameters.pointee.extradata, parameters.pointee.extradata_size >= 36 else { return nil }
        return Int(extra[17])
    }

    /// The total frames of iTunes' gapless tag (" 00000000 DELAY PADDING TOTAL …", hexadecimal).
    static func iTunesLength(_ metadata: OpaquePointer?) -> Int64? {
        guard let entry = kff_av_dict_get(metadata, "iTunSMPB", nil, 0), let value = entry.pointee.value else {
            return nil
        }
        let fields = String(cString: value).split(separator: " ")
        guard fields.count >= 4, let total = Int64(fields[3], radix: 16), total > 0 else { return nil }
        return total
    }

    func seekLibrary(toFrame target: Int64) throws(DecodeError) {
        guard let container, let codec, let format else { throw .seekFailed(frame: target) }
        let ts = kff_av_rescale_q(max(0, target), AVRational(num: 1, den: Int32(format.sampleRate)), timeBase)
        guard kff_av_seek_frame(container, streamIndex, ts, AVSEEK_FLAG_BACKWARD) >= 0 else {
            throw .seekFailed(frame: target)
        }
        kff_avcodec_flush_buffers(codec)
        stage.reset()
        flushing = false
        seekTarget = target
    }

    public func decode(into regions: RingBuffer.Regions) -> DecodeStep {
        guard let container, let codec, let current = format else { return .failed(.badHeader(.mp4, .noStream)) }
        while true {
            if !stage.isEmpty { return deliver(stage, into: regions) }
            if let total = totalFrames, position >= total { return .endOfStream }
            let received = kff_avcodec_receive_frame(codec, frame)
            if received == 0 {
                defer { kff_av_frame_unref(frame) }
                if let failure = stageFrame(current) { return .failed(failure) }
                continue
            }
            if received == kff_error_eof() { return .endOfStream }
            guard received == kff_error_eagain() else {
                return .failed(.libraryFailed(.mp4, code: received, atFrame: position))
            }
            if flushing { return .endOfStream }
            let read = kff_av_read_frame(container, packet)
            if read < 0 {
                // The end (or an unreadable rest): let the decoder give out what it holds.
                flushing = true
                _ = kff_avcodec_send_packet(codec, nil)
                continue
            }
            defer { kff_av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            let sent = kff_avcodec_send_packet(codec, packet)
            if sent < 0 && sent != kff_error_eagain() {
                return .failed(.libraryFailed(.mp4, code: sent, atFrame: position))
            }
        }
    }

    /// Converts the decoded frame into the stage, without what lies before a seek target or past
    /// the stream's length. Nil on success.
    private func stageFrame(_ format: PCMFormat) -> DecodeError? {
        let count = Int(frame.pointee.nb_samples)
        let channels = format.channels
        guard count <= MP4Decoder.blockFrames, Int(frame.pointee.ch_layout.nb_channels) == channels,
            let planes = frame.pointee.extended_data
        else { return .libraryFailed(.mp4, code: -1, atFrame: position) }
        // Where this frame starts: its timestamp when it has one (after a seek), else where we are.
        var start = position
        let pts = frame.pointee.best_effort_timestamp
        if pts != kff_nopts_value(), seekTarget > 0 {
            start = kff_av_rescale_q(pts, timeBase, AVRational(num: 1, den: Int32(format.sampleRate)))
        }
        var skip = 0
        if seekTarget > 0 && start < seekTarget { skip = Int(min(Int64(count), seekTarget - start)) }
        var keep = count - skip
        if let total = totalFrames { keep = min(keep, Int(max(0, total - (start + Int64(skip))))) }
        if skip == count || keep <= 0 {
            if seekTarget > 0 && start + Int64(count) <= seekTarget { return nil }
        }
        if seekTarget > 0 && start + Int64(skip) >= seekTarget { seekTarget = 0 }
        guard keep > 0 else { return nil }
        let sampleFormat = AVSampleFormat(frame.pointee.format)
        let planar = kff_av_sample_fmt_is_planar(sampleFormat) != 0
        let at = (planes: planes, planar: planar, channels: channels, skip: skip, keep: keep)
        switch sampleFormat {
        case AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP:
            Self.interleave(at, as: Float.self, into: stage.buffer.assumingMemoryBound(to: Int32.self)) {
                FloatToFixed.word($0)
            }
        case AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P:
            Self.interleave(at, as: Int16.self, into: stage.buffer.assumingMemoryBound(to: Int16.self)) { $0 }
        case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P:
            Self.interleave(at, as: Int32.self, into: stage.buffer.assumingMemoryBound(to: Int32.self)) { $0 }
        default:
            return .unsupportedFormat(sampleRate: format.sampleRate, channels: channels, bitsPerSample: 0)
        }
        stage.filled(keep, format: format)
        stream.position = start + Int64(skip)
        return nil
    }

    /// Writes `frames.keep` frames from frame `frames.skip` on of a decoded frame's samples (one
    /// plane per channel, or one interleaved plane) to `out` interleaved, each through `convert`.
    /// Inlined with its closure into each case: no call per sample.
    @inline(__always)
    private static func interleave<Sample, Word>(
        _ frames: (
            planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, planar: Bool, channels: Int, skip: Int,
            keep: Int
        ),
        as: Sample.Type, into out: UnsafeMutablePointer<Word>, _ convert: (Sample) -> Word
    ) {
        let channels = frames.channels
        func plane(_ c: Int) -> UnsafePointer<Sample>? {
            frames.planes[c].map { UnsafeRawPointer($0).assumingMemoryBound(to: Sample.self) }
        }
        // Each case one plain loop, so that the loop vectorizer takes it (stereo as interleaved stores).
        if !frames.planar {
            guard let samples = plane(0) else { return }
            let from = samples + frames.skip * channels
            for i in 0..<frames.keep * channels { out[i] = convert(from[i]) }
        } else if channels == 2, let left = plane(0), let right = plane(1) {
            let l = left + frames.skip
            let r = right + frames.skip
            for i in 0..<frames.keep {
                out[2 &* i] = convert(l[i])
                out[2 &* i &+ 1] = convert(r[i])
            }
        } else {
            for c in 0..<channels {
                guard let samples = plane(c) else { continue }
                let from = samples + frames.skip
                for i in 0..<frames.keep { out[i &* channels &+ c] = convert(from[i]) }
            }
        }
    }
}
