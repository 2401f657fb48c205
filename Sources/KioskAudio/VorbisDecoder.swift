@preconcurrency import CVorbisFile
import Glibc
import KioskSystem

/// Ogg Vorbis through libvorbisfile, reading through its own descriptor.
///
/// vorbisfile decodes to floats; they reach the ring as 32-bit words holding 24 significant bits.
/// The length is exact (the last page's granule position), and seeking is sample-accurate
/// (`ov_pcm_seek`). A chained file whose links differ in rate or channels reports `.formatChange`.
///
/// Thread: one thread at a time. `decode` does not allocate once vorbisfile has its buffers.
public final class VorbisDecoder: AudioDecoder {
    /// The most frames one `ov_read_float` call is asked for.
    public static let blockFrames = 4096

    private var vf = OggVorbis_File()
    private var opened = false
    private let source = SourceFile()
    private let stage = PCMStage(capacityBytes: VorbisDecoder.blockFrames * 8 * 4)
    private var link: Int32 = -1

    public private(set) var path = ""
    public private(set) var format: PCMFormat?
    public private(set) var totalFrames: Int64?
    public private(set) var position: Int64 = 0
    public var maxBlockSize: Int { VorbisDecoder.blockFrames }

    public init() {}

    deinit { close() }

    public func close() {
        if opened {
            ov_clear(&vf)
            opened = false
        }
        source.close()
        path = ""
        format = nil
        totalFrames = nil
        position = 0
        stage.reset()
    }

    public func open(path: String) throws(DecodeError) {
        close()
        try source.open(path)
        self.path = path
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
            let keep = source.readErrno
            close()
            self.path = path
            if keep != 0 { throw .readFailed(errno: keep) }
            throw status == OV_ENOTVORBIS
                ? .badHeader(.oggVorbis, .noStream) : .libraryFailed(.oggVorbis, code: status, atFrame: 0)
        }
        opened = true
        guard let info = ov_info(&vf, -1) else { throw fail(.badHeader(.oggVorbis, .noStream)) }
        let streamFormat = PCMFormat(
            sampleRate: Int(info.pointee.rate), channels: Int(info.pointee.channels), bitsPerSample: 24)
        guard streamFormat.isPlayable else { throw fail(Self.unsupported(streamFormat)) }
        format = streamFormat
        let total = ov_pcm_total(&vf, -1)
        totalFrames = total > 0 ? total : nil
        link = -1
    }

    static func unsupported(_ f: PCMFormat) -> DecodeError {
        .unsupportedFormat(sampleRate: f.sampleRate, channels: f.channels, bitsPerSample: f.bitsPerSample)
    }

    private func fail(_ error: DecodeError) -> DecodeError {
        let keep = path
        close()
        path = keep
        return error
    }

    public func seek(toFrame frame: Int64) throws(DecodeError) {
        guard opened else { throw .seekFailed(frame: frame) }
        if let total = totalFrames, frame >= total { throw .seekFailed(frame: frame) }
        stage.reset()
        guard ov_pcm_seek(&vf, max(0, frame)) == 0 else { throw .seekFailed(frame: frame) }
        position = frame
    }

    public func decode(into regions: RingBuffer.Regions) -> DecodeStep {
        guard let current = format else { return .failed(.badHeader(.oggVorbis, .noStream)) }
        if !stage.isEmpty {
            if stage.format != current {
                format = stage.format
                return .formatChange(stage.format)
            }
            let n = stage.drain(into: regions)
            position += Int64(n)
            return .frames(n)
        }
        while true {
            var channels: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>? = nil
            var bitstream: Int32 = 0
            let want = Int32(min(VorbisDecoder.blockFrames, max(regions.frames, 1)))
            let got = ov_read_float(&vf, &channels, want, &bitstream)
            if got == 0 { return .endOfStream }
            if got == OV_HOLE { continue }  // a gap in the data; vorbisfile goes on after it
            if got < 0 {
                if source.readErrno != 0 { return .failed(.readFailed(errno: source.readErrno)) }
                return .failed(.libraryFailed(.oggVorbis, code: Int32(got), atFrame: position))
            }
            var frameFormat = current
            if bitstream != link {
                link = bitstream
                if let info = ov_info(&vf, bitstream) {
                    frameFormat = PCMFormat(
                        sampleRate: Int(info.pointee.rate), channels: Int(info.pointee.channels), bitsPerSample: 24)
                    guard frameFormat.isPlayable else { return .failed(Self.unsupported(frameFormat)) }
                }
            }
            let count = Int(got)
            let out = stage.buffer.assumingMemoryBound(to: Int32.self)
            let n = frameFormat.channels
            for c in 0..<n {
                guard let samples = channels?[c] else { continue }
                for i in 0..<count {
                    let scaled = (samples[i] * 8_388_608).rounded()
                    out[i * n + c] = Int32(min(max(scaled, -8_388_608), 8_388_607)) << 8
                }
            }
            stage.filled(count, format: frameFormat)
            if frameFormat != current {
                format = frameFormat
                return .formatChange(frameFormat)
            }
            let delivered = stage.drain(into: regions)
            position += Int64(delivered)
            return .frames(delivered)
        }
    }
}
