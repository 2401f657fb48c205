// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem

/// WAV (PCM 8…32-bit, WAVE_FORMAT_EXTENSIBLE, 32/64-bit float; RF64) and AIFF/AIFC (big- and
/// little-endian PCM, float) files, read with `pread` from the data chunk that `PCMFileHeader`
/// found. Integer samples reach the ring unchanged (bit-perfect), left-justified as FLAC's do; floats
/// become 32-bit words holding 24 significant bits.
///
/// Thread: one thread at a time. `decode` does not allocate.
public final class PCMFileDecoder: DecoderSkeleton {
    public static let blockFrames = 4096
    private static let scratchBytes = PCMFileDecoder.blockFrames * 8 * 8

    private let source = SourceFile()
    private let scratch = UnsafeMutableRawPointer.allocate(byteCount: PCMFileDecoder.scratchBytes, alignment: 16)
    private var header: PCMFileHeader?

    var stream = DecodedStream()
    public var maxBlockSize: Int { PCMFileDecoder.blockFrames }

    public init() {}

    deinit {
        close()
        scratch.deallocate()
    }

    func closeLibrary() {
        source.close()
        header = nil
    }

    public func open(path: String) throws(DecodeError) {
        try beginOpen(path, source: source)
        do throws(DecodeError) {
            let found = try PCMFileHeader.read(fd: source.fd, size: source.size)
            header = found
            stream.format = PCMFormat(
                sampleRate: found.sampleRate, channels: found.channels, bitsPerSample: found.bitsPerSample)
            stream.totalFrames = found.totalFrames
        } catch {
            throw fail(error)
        }
    }

    /// Nothing to move: `decode` reads at `position`.
    func seekLibrary(toFrame frame: Int64) throws(DecodeError) {
        guard header != nil, frame >= 0 else { throw .seekFailed(frame: frame) }
    }

    public func decode(into regions: RingBuffer.Regions) -> DecodeStep {
        guard let header, let format else { return .failed(.badHeader(.wav, .noAudioData)) }
        let remaining = header.totalFrames - position
        if remaining <= 0 { return .endOfStream }
        let frames = min(Int(min(remaining, Int64(PCMFileDecoder.blockFrames))), regions.frames)
        let want = frames * header.blockAlign
        let got = source.pread(scratch, want, at: header.dataOffset + position * Int64(header.blockAlign))
        if got < 0 { return .failed(.readFailed(errno: source.readErrno)) }
        let whole = got / header.blockAlign
        // The file is shorter than when it was opened (the stick is being rewritten or pulled).
        if whole == 0 { return .failed(.truncated(decodedFrames: position, expectedFrames: header.totalFrames)) }
        let first = min(whole, regions.firstFrames)
        convert(header, format, from: scratch, frames: first, to: regions.first)
        if whole > first {
            convert(
                header, format, from: scratch + first * header.blockAlign, frames: whole - first, to: regions.second)
        }
        stream.position += Int64(whole)
        return .frames(whole)
    }

    /// Converts `frames` frames of the file's coding into the ring's encoding.
    private func convert(
        _ header: PCMFileHeader, _ format: PCMFormat, from input: UnsafeMutableRawPointer, frames: Int,
        to output: UnsafeMutableRawPointer
    ) {
        let count = frames * header.channels
        let bytes = input.assumingMemoryBound(to: UInt8.self)
        let wide = format.ringEncoding == .s32
        switch header.coding {
        case .integer(let size, let bigEndian, let unsigned):
            if size == 2 && !bigEndian && !wide {
                output.copyMemory(from: input, byteCount: count * 2)  // the common case: as it is
                return
            }
            for i in 0..<count {
                let p = bytes + i * size
                var word: UInt32 = 0
                for k in 0..<size {
                    let byte = UInt32(bigEndian ? p[k] : p[size - 1 - k])
                    word |= byte << UInt32(8 * (3 - k))
                }
                if unsigned { word ^= 0x8000_0000 }
                let value = Int32(bitPattern: word)
                Self.store(value, wide: wide, at: output, index: i)
            }
        case .float(let size, let bigEndian):
            for i in 0..<count {
                let p = bytes + i * size
                var bits: UInt64 = 0
                for k in 0..<size { bits = bits << 8 | UInt64(bigEndian ? p[k] : p[size - 1 - k]) }
                let sample =
                    size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits)
                Self.store(FloatToFixed.word(sample), wide: wide, at: output, index: i)
            }
        }
    }

    /// Stores a sample left-justified in 32 bits as the ring's word (its top half for 16-bit words).
    @inline(__always)
    private static func store(_ value: Int32, wide: Bool, at output: UnsafeMutableRawPointer, index: Int) {
        if wide {
            output.storeBytes(of: value.littleEndian, toByteOffset: index * 4, as: Int32.self)
        } else {
            output.storeBytes(
                of: Int16(truncatingIfNeeded: value >> 16).littleEndian, toByteOffset: index * 2, as: Int16.self)
        }
    }
}
