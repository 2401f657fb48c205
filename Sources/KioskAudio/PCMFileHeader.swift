// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem

/// Where the samples of a WAV (RIFF/RF64) or AIFF/AIFC file are and how they are coded, found by
/// walking its chunks with bounded reads: at most `maxChunks` chunks, each checked against the
/// file's size before it is used, so a damaged or hostile header cannot make it loop or allocate, and
/// every sum of sizes made through `DeclaredSize` (an RF64 size near 2^63 is a damaged file, not a trap).
///
/// Thread: a value; any.
public struct PCMFileHeader: Equatable, Sendable {
    /// How one sample is stored in the file.
    public enum Coding: Equatable, Sendable {
        /// Integers of `bytes` bytes (1…4); `bigEndian`; `unsigned` for WAV's 8-bit.
        case integer(bytes: Int, bigEndian: Bool, unsigned: Bool)
        /// IEEE floats of 4 or 8 bytes.
        case float(bytes: Int, bigEndian: Bool)
    }

    public static let maxChunks = 256

    public var container: AudioFileFormat
    public var sampleRate: Int
    public var channels: Int
    /// Significant bits (WAVE_FORMAT_EXTENSIBLE's valid bits; AIFF's sampleSize).
    public var bitsPerSample: Int
    public var coding: Coding
    /// Offset of the first sample and bytes of sample data (clamped to the file).
    public var dataOffset: Int64
    public var dataBytes: Int64
    /// Bytes per frame in the file.
    public var blockAlign: Int

    public var totalFrames: Int64 { dataBytes / Int64(blockAlign) }

    /// Reads the header of the file open as `fd` (`size` bytes long).
    public static func read(fd: Int32, size: Int64) throws(DecodeError) -> PCMFileHeader {
        var head = [UInt8](repeating: 0, count: 12)
        guard readExactly(fd, &head, at: 0) else { throw .badHeader(.wav, .noStream) }
        let id = String(decoding: head[0..<4], as: UTF8.self)
        let kind = String(decoding: head[8..<12], as: UTF8.self)
        if (id == "RIFF" || id == "RF64") && kind == "WAVE" {
            return try readWAV(fd: fd, size: size, rf64: id == "RF64")
        }
        if id == "FORM" && (kind == "AIFF" || kind == "AIFC") {
            return try readAIFF(fd: fd, size: size, aifc: kind == "AIFC")
        }
        throw .unrecognized
    }

    private static func readExactly(_ fd: Int32, _ buffer: inout [UInt8], at offset: Int64) -> Bool {
        let want = buffer.count
        let n = buffer.withUnsafeMutableBytes { (try? Syscalls.pread(fd, $0, offset: offset)) ?? -1 }
        return n == want
    }

    private static func le16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
    private static func le32(_ b: [UInt8], _ i: Int) -> Int64 {
        Int64(b[i]) | Int64(b[i + 1]) << 8 | Int64(b[i + 2]) << 16 | Int64(b[i + 3]) << 24
    }
    private static func ule64(_ b: [UInt8], _ i: Int) -> UInt64 {
        UInt64(le32(b, i)) | UInt64(le32(b, i + 4)) << 32
    }
    private static func be16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    private static func be32(_ b: [UInt8], _ i: Int) -> Int64 {
        Int64(b[i]) << 24 | Int64(b[i + 1]) << 16 | Int64(b[i + 2]) << 8 | Int64(b[i + 3])
    }

    /// A chunk's header: its four-character id, the length it declares for its body, and where the
    /// body starts. Thread: a value; any.
    private struct ChunkHeader {
        var id: String
        var length: Int64
        var body: Int64
    }

    /// The header of the chunk at `offset` (lengths big-endian in AIFF, little-endian in WAV), nil
    /// when it lies past `size` or cannot be read.
    private static func chunkHeader(fd: Int32, at offset: Int64, size: Int64, bigEndian: Bool) -> ChunkHeader? {
        var chunk = [UInt8](repeating: 0, count: 8)
        guard offset + 8 <= size, readExactly(fd, &chunk, at: offset) else { return nil }
        return ChunkHeader(
            id: String(decoding: chunk[0..<4], as: UTF8.self), length: bigEndian ? be32(chunk, 4) : le32(chunk, 4),
            body: offset + 8)
    }

    /// The size of the largest tag chunk (`id3 `, `ID3 `, `LIST`) among the first `maxChunks`
    /// top-level chunks of a WAV, RF64 or AIFF file, 0 when there is none: the tag reader is given
    /// the file only when this is within its limit (it reads such a chunk whole).
    public static func largestTagChunk(fd: Int32, size: Int64) -> Int64 {
        var head = [UInt8](repeating: 0, count: 12)
        guard readExactly(fd, &head, at: 0) else { return 0 }
        let bigEndian = head[0..<4].elementsEqual("FORM".utf8)
        var offset: Int64 = 12
        var largest: Int64 = 0
        for _ in 0..<maxChunks {
            guard let chunk = chunkHeader(fd: fd, at: offset, size: size, bigEndian: bigEndian) else { break }
            let length = chunk.length
            if chunk.id == "id3 " || chunk.id == "ID3 " || chunk.id == "LIST" { largest = max(largest, length) }
            // An RF64 data chunk's size is in ds64 (0xFFFFFFFF here): nothing after it is walked.
            if length == 0xFFFF_FFFF { break }
            offset += 8 + length + (length & 1)
        }
        return largest
    }

    private static func readWAV(fd: Int32, size: Int64, rf64: Bool) throws(DecodeError) -> PCMFileHeader {
        var offset: Int64 = 12
        var format: (tag: Int, channels: Int, rate: Int, blockAlign: Int, bits: Int, valid: Int)?
        var rf64DataSize: Int64?
        for _ in 0..<maxChunks {
            guard let chunk = chunkHeader(fd: fd, at: offset, size: size, bigEndian: false) else { break }
            let id = chunk.id
            var length = chunk.length
            let body = chunk.body
            if id == "data" {
                guard let f = format else { throw .badHeader(.wav, .noFormatChunk) }
                if length == 0xFFFF_FFFF, let big = rf64DataSize { length = big }
                guard DeclaredSize.end(body, plus: length) != nil else { throw .badHeader(.wav, .sizeOverflow) }
                // A writer that never patched the size (0, or more than is there): play what is there.
                if length == 0 || !DeclaredSize.fits(body, length: length, within: size) { length = size - body }
                return try make(
                    container: .wav, tag: f.tag, channels: f.channels, rate: f.rate, blockAlign: f.blockAlign,
                    bits: f.bits, valid: f.valid, dataOffset: body, dataBytes: length, bigEndian: false)
            }
            guard DeclaredSize.fits(body, length: length, within: size) else { throw .badHeader(.wav, .chunkOverrun) }
            if id == "fmt " {
                guard length >= 16, length <= 4096 else { throw .badHeader(.wav, .noFormatChunk) }
                var fmt = [UInt8](repeating: 0, count: Int(length))
                guard readExactly(fd, &fmt, at: body) else { throw .readFailed(errno: errno) }
                var tag = le16(fmt, 0)
                let bits = le16(fmt, 14)
                var valid = bits
                if tag == 0xFFFE {
                    guard length >= 40 else { throw .badHeader(.wav, .noFormatChunk) }
                    valid = le16(fmt, 18) == 0 ? bits : le16(fmt, 18)
                    tag = le16(fmt, 24)  // the subformat GUID's first two bytes are the format tag
                }
                format = (tag, le16(fmt, 2), Int(le32(fmt, 4)), le16(fmt, 12), bits, valid)
            } else if id == "ds64" && rf64 && length >= 24 {
                var ds64 = [UInt8](repeating: 0, count: 24)
                guard readExactly(fd, &ds64, at: body) else { throw .readFailed(errno: errno) }
                // The data size as written (unsigned); one of 2^63 or more does not fit and is damaged.
                guard let dataSize = DeclaredSize.signed(ule64(ds64, 8)) else { throw .badHeader(.wav, .sizeOverflow) }
                rf64DataSize = dataSize
            }
            offset = body + length + (length & 1)
        }
        throw .badHeader(.wav, .noAudioData)
    }

    private static func readAIFF(fd: Int32, size: Int64, aifc: Bool) throws(DecodeError) -> PCMFileHeader {
        var offset: Int64 = 12
        var common: (channels: Int, bits: Int, rate: Int, compression: String)?
        for _ in 0..<maxChunks {
            guard let chunk = chunkHeader(fd: fd, at: offset, size: size, bigEndian: true) else { break }
            let id = chunk.id
            var length = chunk.length
            let body = chunk.body
            if id == "SSND" {
                guard let c = common else { throw .badHeader(.aiff, .noFormatChunk) }
                var ssnd = [UInt8](repeating: 0, count: 8)
                guard length >= 8, readExactly(fd, &ssnd, at: body) else { throw .badHeader(.aiff, .noAudioData) }
                let skip = be32(ssnd, 0)
                if !DeclaredSize.fits(body, length: length, within: size) { length = size - body }
                let start = body + 8 + skip
                let bytes = length - 8 - skip
                guard bytes > 0 else { throw .badHeader(.aiff, .noAudioData) }
                let containerBytes = (c.bits + 7) / 8
                var coding = PCMFileHeader.Coding.integer(bytes: containerBytes, bigEndian: true, unsigned: false)
                switch c.compression {
                case "NONE", "twos", "in24", "in32": break
                case "sowt": coding = .integer(bytes: containerBytes, bigEndian: false, unsigned: false)
                case "fl32", "FL32": coding = .float(bytes: 4, bigEndian: true)
                case "fl64", "FL64": coding = .float(bytes: 8, bigEndian: true)
                default: throw .badHeader(.aiff, .unsupportedCompression)
                }
                let sampleBytes: Int
                switch coding {
                case .integer(let b, _, _): sampleBytes = b
                case .float(let b, _): sampleBytes = b
                }
                guard (1...8).contains(c.channels), (1...8).contains(sampleBytes), c.bits >= 1 else {
                    throw .unsupportedFormat(sampleRate: c.rate, channels: c.channels, bitsPerSample: c.bits)
                }
                let isFloat: Bool
                if case .float = coding { isFloat = true } else { isFloat = false }
                let header = PCMFileHeader(
                    container: .aiff, sampleRate: c.rate, channels: c.channels, bitsPerSample: isFloat ? 24 : c.bits,
                    coding: coding, dataOffset: start, dataBytes: bytes, blockAlign: sampleBytes * c.channels)
                try header.check()
                return header
            }
            guard DeclaredSize.fits(body, length: length, within: size) else { throw .badHeader(.aiff, .chunkOverrun) }
            if id == "COMM" {
                guard length >= 18, length <= 4096 else { throw .badHeader(.aiff, .noFormatChunk) }
                var comm = [UInt8](repeating: 0, count: Int(length))
                guard readExactly(fd, &comm, at: body) else { throw .readFailed(errno: errno) }
                var compression = "NONE"
                if aifc {
                    guard length >= 22 else { throw .badHeader(.aiff, .noFormatChunk) }
                    compression = String(decoding: comm[18..<22], as: UTF8.self)
                }
                common = (be16(comm, 0), be16(comm, 6), extendedToInt(Array(comm[8..<18])), compression)
            }
            offset = body + length + (length & 1)
        }
        throw .badHeader(.aiff, .noAudioData)
    }

    /// An 80-bit IEEE 754 extended value (AIFF's sample rate) as a whole number; 0 when absurd.
    static func extendedToInt(_ b: [UInt8]) -> Int {
        let exponent = (Int(b[0] & 0x7F) << 8 | Int(b[1])) - 16383
        var mantissa: UInt64 = 0
        for i in 2..<10 { mantissa = mantissa << 8 | UInt64(b[i]) }
        guard b[0] & 0x80 == 0, exponent >= 0, exponent < 32 else { return 0 }
        return Int(mantissa >> UInt64(63 - exponent))
    }

    private static func make(
        container: AudioFileFormat, tag: Int, channels: Int, rate: Int, blockAlign: Int, bits: Int, valid: Int,
        dataOffset: Int64, dataBytes: Int64, bigEndian: Bool
    ) throws(DecodeError) -> PCMFileHeader {
        guard channels >= 1, blockAlign >= channels, blockAlign % channels == 0 else {
            throw .unsupportedFormat(sampleRate: rate, channels: channels, bitsPerSample: bits)
        }
        let sampleBytes = blockAlign / channels
        let coding: Coding
        let significant: Int
        switch tag {
        case 1:
            guard (1...4).contains(sampleBytes), bits <= sampleBytes * 8 else {
                throw .unsupportedFormat(sampleRate: rate, channels: channels, bitsPerSample: bits)
            }
            coding = .integer(bytes: sampleBytes, bigEndian: bigEndian, unsigned: sampleBytes == 1)
            significant = min(valid, sampleBytes * 8)
        case 3:
            guard sampleBytes == 4 || sampleBytes == 8 else {
                throw .unsupportedFormat(sampleRate: rate, channels: channels, bitsPerSample: bits)
            }
            coding = .float(bytes: sampleBytes, bigEndian: bigEndian)
            significant = 24
        default:
            throw .badHeader(container, .unsupportedCompression)
        }
        let header = PCMFileHeader(
            container: container, sampleRate: rate, channels: channels, bitsPerSample: significant, coding: coding,
            dataOffset: dataOffset, dataBytes: dataBytes, blockAlign: blockAlign)
        try header.check()
        return header
    }

    private func check() throws(DecodeError) {
        let f = PCMFormat(sampleRate: sampleRate, channels: channels, bitsPerSample: bitsPerSample)
        guard f.isPlayable, sampleRate <= 768_000 else {
            throw .unsupportedFormat(sampleRate: sampleRate, channels: channels, bitsPerSample: bitsPerSample)
        }
        guard totalFrames > 0 else { throw .badHeader(container, .noAudioData) }
    }
}
