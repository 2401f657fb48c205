// SPDX-License-Identifier: GPL-3.0-or-later
@preconcurrency import CVorbisFile
import Glibc
import KioskModel
import KioskSystem

/// Ogg Vorbis through libvorbisfile, reading through its own descriptor.
///
/// vorbisfile decodes to floats; they reach the ring as 32-bit words holding 24 significant bits.
/// The length is exact (the last page's granule position), and seeking is sample-accurate
/// (`ov_pcm_seek`). A chained file whose links differ in rate or channels reports `.formatChange`.
///
/// Thread: one thread at a time. `decode` does not allocate once vorbisfile has its buffers.
public final class VorbisDecoder: DecoderSkeleton {
    /// The most frames one `ov_read_float` call is asked for.
    public static let blockFrames = 4096

    private var vf = OggVorbis_File()
    private var opened = false
    private let source = SourceFile()
    private let stage = PCMStage(capacityBytes: VorbisDecoder.blockFrames * 8 * 4)
    private var link: Int32 = -1

    var stream = DecodedStream()
    public var maxBlockSize: Int { VorbisDecoder.blockFrames }

    public init() {}

    deinit { close() }

    func closeLibrary() {
        if opened {
            ov_clear(&vf)
            opened = false
        }
        source.close()
        stage.reset()
    }

    public func open(path: String) throws(DecodeError) {
        try beginOpen(path, source: source)
        guard OggLinks.laterLinksOpen(fd: source.fd, size: source.size) else {
            throw fail(.badHeader(.oggVorbis, .chainedLinkNotVorbis))
        }
        let callbacks = ov_callbacks(
            read_func: { buffer, size, count, client in
                let file = Unmanaged<SourceFile>.fromOpaque(client!).takeUnretainedValue()
                let n = file.read(buffer!, size * count)
                return n < 0 ? 0 : n / max(size, 1)
            },
            seek_func: { client, offset, whence in
                let file = Unmanaged<SourceFile>.fromOpaque(client!).takeUnretainedValue()
                return file.seek(offset, whence: whence) < 0 ? -1 : 0
            },
            close_func: { _ in 0 },
            tell_func: { client in
                let file = Unmanaged<SourceFile>.fromOpaque(client!).takeUnretainedValue()
                return Int(file.tell())
            })
        let status = ov_open_callbacks(Unmanaged.passUnretained(source).toOpaque(), &vf, nil, 0, callbacks)
        guard status == 0 else {
            throw fail(
                source.readFailure(
                    or: status == OV_ENOTVORBIS
                        ? .badHeader(.oggVorbis, .noStream) : .libraryFailed(.oggVorbis, code: status, atFrame: 0)))
        }
        opened = true
        guard let info = ov_info(&vf, -1) else { throw fail(.badHeader(.oggVorbis, .noStream)) }
        let streamFormat = PCMFormat(
            sampleRate: Int(info.pointee.rate), channels: Int(info.pointee.channels), bitsPerSample: 24)
        guard streamFormat.isPlayable else { throw fail(.unsupported(streamFormat)) }
        stream.format = streamFormat
        let total = ov_pcm_total(&vf, -1)
        stream.totalFrames = total > 0 ? total : nil
        link = -1
    }

    func seekLibrary(toFrame frame: Int64) throws(DecodeError) {
        guard opened else { throw .seekFailed(frame: frame) }
        stage.reset()
        guard ov_pcm_seek(&vf, max(0, frame)) == 0 else { throw .seekFailed(frame: frame) }
    }

    public func decode(into regions: RingBuffer.Regions) -> DecodeStep {
        guard let current = format else { return .failed(.badHeader(.oggVorbis, .noStream)) }
        if !stage.isEmpty { return deliver(stage, into: regions) }
        while true {
            var channels: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>? = nil
            var bitstream: Int32 = 0
            let want = Int32(min(VorbisDecoder.blockFrames, max(regions.frames, 1)))
            let got = ov_read_float(&vf, &channels, want, &bitstream)
            if got == 0 { return .endOfStream }
            if got == OV_HOLE { continue }  // a gap in the data; vorbisfile goes on after it
            if got < 0 {
                return .failed(source.readFailure(or: .libraryFailed(.oggVorbis, code: Int32(got), atFrame: position)))
            }
            var frameFormat = current
            if bitstream != link {
                link = bitstream
                if let info = ov_info(&vf, bitstream) {
                    frameFormat = PCMFormat(
                        sampleRate: Int(info.pointee.rate), channels: Int(info.pointee.channels), bitsPerSample: 24)
                    guard frameFormat.isPlayable else { return .failed(.unsupported(frameFormat)) }
                }
            }
            let count = Int(got)
            if let channels {
                FloatToFixed.interleave(
                    channels, channels: frameFormat.channels, from: 0, count: count,
                    to: stage.buffer.assumingMemoryBound(to: Int32.self))
            }
            stage.filled(count, format: frameFormat)
            return deliver(stage, into: regions)
        }
    }
}
