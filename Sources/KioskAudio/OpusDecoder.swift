// SPDX-License-Identifier: GPL-3.0-or-later
@preconcurrency import COpusFile
import Glibc
import KioskModel
import KioskSystem

/// Ogg Opus through libopusfile, reading through its own descriptor.
///
/// Always 48 kHz (Opus decodes at 48 kHz whatever rate the source had). opusfile removes the
/// pre-skip at the start and trims the end to the last page's granule position, so the length is
/// exact and a gapless album joins without a gap; seeking is sample-accurate (`op_pcm_seek`).
/// Floats reach the ring as 32-bit words holding 24 significant bits.
///
/// Thread: one thread at a time. `decode` does not allocate once opusfile has its buffers.
public final class OpusDecoder: DecoderSkeleton {
    /// 120 ms at 48 kHz: the longest Opus packet, the most one `op_read_float` returns.
    public static let blockFrames = 5760
    private static let maxChannels = 8

    private var file: OpaquePointer?
    private let source = SourceFile()
    private let stage = PCMStage(capacityBytes: OpusDecoder.blockFrames * OpusDecoder.maxChannels * 4)
    private let floats = UnsafeMutablePointer<Float>.allocate(
        capacity: OpusDecoder.blockFrames * OpusDecoder.maxChannels)

    var stream = DecodedStream()
    public var maxBlockSize: Int { OpusDecoder.blockFrames }

    public init() {}

    deinit {
        close()
        floats.deallocate()
    }

    func closeLibrary() {
        if let file { op_free(file) }
        file = nil
        source.close()
        stage.reset()
    }

    public func open(path: String) throws(DecodeError) {
        try beginOpen(path, source: source)
        var callbacks = OpusFileCallbacks(
            read: { client, buffer, count in
                let file = Unmanaged<SourceFile>.fromOpaque(client!).takeUnretainedValue()
                return Int32(file.read(buffer!, Int(count)))
            },
            seek: { client, offset, whence in
                let file = Unmanaged<SourceFile>.fromOpaque(client!).takeUnretainedValue()
                return file.seek(offset, whence: whence) < 0 ? -1 : 0
            },
            tell: { client in
                Unmanaged<SourceFile>.fromOpaque(client!).takeUnretainedValue().tell()
            },
            close: nil)
        var error: Int32 = 0
        file = op_open_callbacks(Unmanaged.passUnretained(source).toOpaque(), &callbacks, nil, 0, &error)
        guard let file else {
            throw fail(
                source.readFailure(
                    or: error == OP_ENOTFORMAT || error == OP_EBADHEADER
                        ? .badHeader(.opus, .noStream) : .libraryFailed(.opus, code: error, atFrame: 0)))
        }
        let channels = Int(op_channel_count(file, -1))
        let streamFormat = PCMFormat(sampleRate: 48000, channels: channels, bitsPerSample: 24)
        guard streamFormat.isPlayable else { throw fail(.unsupported(streamFormat)) }
        stream.format = streamFormat
        let total = op_pcm_total(file, -1)
        stream.totalFrames = total > 0 ? total : nil
    }

    func seekLibrary(toFrame frame: Int64) throws(DecodeError) {
        guard let file else { throw .seekFailed(frame: frame) }
        stage.reset()
        guard op_pcm_seek(file, max(0, frame)) == 0 else { throw .seekFailed(frame: frame) }
    }

    public func decode(into regions: RingBuffer.Regions) -> DecodeStep {
        guard let file, format != nil else { return .failed(.badHeader(.opus, .noStream)) }
        if !stage.isEmpty { return deliver(stage, into: regions) }
        while true {
            var link: Int32 = 0
            let room = Int32(OpusDecoder.blockFrames * OpusDecoder.maxChannels)
            let got = op_read_float(file, floats, room, &link)
            if got == 0 { return .endOfStream }
            if got == OP_HOLE { continue }  // a gap in the data; opusfile goes on after it
            if got < 0 { return .failed(source.readFailure(or: .libraryFailed(.opus, code: got, atFrame: position))) }
            let channels = Int(op_channel_count(file, link))
            let frameFormat = PCMFormat(sampleRate: 48000, channels: channels, bitsPerSample: 24)
            guard frameFormat.isPlayable else { return .failed(.unsupported(frameFormat)) }
            FloatToFixed.convert(
                floats, count: Int(got) * channels, to: stage.buffer.assumingMemoryBound(to: Int32.self))
            stage.filled(Int(got), format: frameFormat)
            return deliver(stage, into: regions)
        }
    }
}
