// SPDX-License-Identifier: GPL-3.0-or-later
@preconcurrency import CFLAC
import Glibc
import KioskAudio
import KioskModel
import KioskSystem

/// What the library knows about a playable FLAC file: STREAMINFO and tags.
package struct TrackInfo: Sendable, Hashable {
    var sampleRate: Int
    var channels: Int
    var bitsPerSample: Int
    var totalFrames: Int64?
    var tags: TrackTags
    var hasPicture: Bool
    /// Whether the first audio frame was decoded when the file was read; false when only its
    /// headers were checked (the scan's way for FLAC), and the background `PlayabilityPass`
    /// decodes it later.
    var firstFrameDecoded = true

    /// The file's ReplayGain tags, nil when it has none.
    package var replayGain: ReplayGainInfo? { tags.replayGain.isEmpty ? nil : tags.replayGain }
}

/// The result of reading one file.
package enum FileReadOutcome: Sendable {
    /// Listed; `warnings` say what was ignored (e.g. an oversized comment block).
    // Boxed: the scan holds one outcome per file in flight or unchanged, most of them small.
    indirect case playable(TrackInfo, warnings: [String])
    /// Left out, with the reason. `transient` errors (I/O, the stick going away) are not
    /// remembered in the index, so the file is tried again next scan.
    case unplayable(reason: String, transient: Bool)
}

/// Reads a FLAC file's metadata blocks itself, through one descriptor and a `FileWindow` (one
/// open, and for most files one read, for the format, the marker, STREAMINFO, the tags and the
/// first frame's header), and checks playability: a track is playable when its STREAMINFO is sane
/// and its first audio frame decodes without error (libFLAC's stream decoder) and matches
/// STREAMINFO. The scan asks for the headers only (`decodingFirstFrame: false`): STREAMINFO and the
/// first frame's header, right after the metadata, with its CRC-8; the decode is left to the
/// background `PlayabilityPass` (`confirmFirstFrame`). A file whose first frame is not right after
/// the metadata is decoded at once, as libFLAC finds the frame where it is. Embedded pictures are
/// read with libFLAC's metadata iterator (level 1), off the scan.
///
/// Bounded: block lengths are checked before a block is read, so an absurd VORBIS_COMMENT or
/// PICTURE is skipped instead of allocated; comment counts are checked against the block length
/// before any comment is read; the search for the first frame reads at most
/// `ScanLimits.maxFirstFrameSearchBytes` past the metadata.
///
/// Thread: one thread at a time (the window, iterator and decoder are reused across files).
package final class FLACFileReader {
    private let iterator: OpaquePointer
    private let decoder: UnsafeMutablePointer<FLAC__StreamDecoder>
    private let decodeContext = DecodeContext()
    /// The file being read (one open and, for most files, one read for all its headers).
    private let window = FileWindow()
    /// Whether `decoder` is initialised (then each file only resets it).
    private var decoderReady = false
    let limits: ScanLimits

    package init(limits: ScanLimits = ScanLimits()) {
        self.limits = limits
        guard let iterator = FLAC__metadata_simple_iterator_new(), let decoder = FLAC__stream_decoder_new() else {
            fatalError("libFLAC could not allocate an iterator or decoder (out of memory)")
        }
        self.iterator = iterator
        self.decoder = decoder
    }

    deinit {
        FLAC__metadata_simple_iterator_delete(iterator)
        if decoderReady { _ = FLAC__stream_decoder_finish(decoder) }
        FLAC__stream_decoder_delete(decoder)
    }

    // MARK: - tags and playability

    /// Reads `path`: tags, stream info, and whether the first frame decodes (or, without
    /// `decodingFirstFrame`, whether its header is sound).
    package func read(path: String, decodingFirstFrame: Bool = true) -> FileReadOutcome {
        do throws(Errno) {
            try window.open(path)
        } catch {
            return .unplayable(reason: "cannot open: \(error.message)", transient: Self.isTransient(error.rawValue))
        }
        defer { window.close() }
        let marker: Int64?
        do throws(Errno) {
            marker = try Self.markerOffset(in: window)
        } catch {
            return .unplayable(reason: "read error: \(error.message)", transient: Self.isTransient(error.rawValue))
        }
        guard let marker else { return .unplayable(reason: "not a FLAC file (no fLaC marker)", transient: false) }
        return read(window, markerAt: marker, decodingFirstFrame: decodingFirstFrame)
    }

    /// Where the stream's `fLaC` marker is in the file `window` is on: at the start, or right after
    /// an ID3v2 tag; nil when it is in neither place. Reads through `window` (the file's first page).
    static func markerOffset(in window: FileWindow) throws(Errno) -> Int64? {
        func isMarker(_ bytes: UnsafeRawBufferPointer) -> Bool {
            bytes.count >= 4 && bytes[0] == 0x66 && bytes[1] == 0x4C && bytes[2] == 0x61 && bytes[3] == 0x43
        }
        let head = try window.bytes(at: 0, count: 10)
        if isMarker(head) { return 0 }
        let tag = AudioFileFormat.id3v2Length(head)
        guard tag > 0 else { return nil }
        return isMarker(try window.bytes(at: Int64(tag), count: 4)) ? Int64(tag) : nil
    }

    /// Reads the FLAC stream whose `fLaC` marker is at `marker` in the file `window` is on, every
    /// byte through `window`: the metadata block headers, STREAMINFO, the VORBIS_COMMENT block and
    /// the first frame's header usually come with the window's first read (one more after a large
    /// picture). Blocks are walked as libFLAC's metadata iterator walks them, with its words for
    /// what it would refuse.
    func read(_ window: FileWindow, markerAt marker: Int64, decodingFirstFrame: Bool) -> FileReadOutcome {
        var warnings: [String] = []
        var streamInfo: FLAC__StreamMetadata_StreamInfo?
        var tags = TrackTags()
        var sawComments = false
        var hasPicture = false
        var audioStart: Int64?
        var streamInfoOffset = marker + 4
        var offset = marker + 4
        var blocks = 0
        do throws(Errno) {
            while true {
                blocks += 1
                if blocks > limits.maxMetadataBlocks {
                    warnings.append("more than \(limits.maxMetadataBlocks) metadata blocks; the rest were not read")
                    break
                }
                let header = try window.bytes(at: offset, count: 4)
                guard header.count == 4 else {
                    let truncated = "read error or truncated metadata"
                    return .unplayable(
                        reason: blocks == 1 ? truncated : "the metadata is damaged (\(truncated))", transient: false)
                }
                let isLast = header[0] & 0x80 != 0
                let type = header[0] & 0x7F
                let length = Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
                if blocks == 1 && type != 0 {
                    return .unplayable(reason: "the first metadata block is not STREAMINFO", transient: false)
                }
                switch type {
                case 0 where blocks == 1:
                    streamInfoOffset = offset
                    guard length == 34 else {
                        return .unplayable(reason: "STREAMINFO is \(length) bytes long, not 34", transient: false)
                    }
                    let body = try window.bytes(at: offset + 4, count: 34)
                    guard body.count == 34 else {
                        return .unplayable(reason: "STREAMINFO cannot be read", transient: false)
                    }
                    streamInfo = Self.streamInfo(body)
                case 4:  // VORBIS_COMMENT
                    if sawComments {
                        if !warnings.contains(Self.extraCommentsWarning) { warnings.append(Self.extraCommentsWarning) }
                    } else if length > limits.maxCommentBlockBytes {
                        warnings.append(
                            "VORBIS_COMMENT block of \(length) bytes is over the \(limits.maxCommentBlockBytes)-byte limit; tags ignored"
                        )
                    } else {
                        try readCommentBlock(window, at: offset + 4, length: length, into: &tags, warnings: &warnings)
                    }
                    sawComments = true
                case 6:  // PICTURE
                    if length <= limits.maxPictureBytes {
                        hasPicture = true
                    } else if !warnings.contains(where: { $0.hasPrefix("PICTURE") }) {
                        warnings.append(
                            "PICTURE block of \(length) bytes is over the \(limits.maxPictureBytes)-byte limit; ignored"
                        )
                    }
                default:
                    break
                }
                if isLast {
                    audioStart = offset + 4 + Int64(length)
                    break
                }
                offset += 4 + Int64(length)
            }
        } catch {
            return .unplayable(reason: "read error: \(error.message)", transient: Self.isTransient(error.rawValue))
        }
        guard let info = streamInfo else {
            return .unplayable(reason: "no STREAMINFO block", transient: false)
        }
        if let insane = Self.checkStreamInfo(info) {
            return .unplayable(reason: "STREAMINFO is not usable: \(insane)", transient: false)
        }
        var decoded = true
        if !decodingFirstFrame, let audioStart {
            switch Self.checkFirstFrameHeader(window, at: audioStart, info: info) {
            case .sound: decoded = false
            case .failed(let reason, let transient): return .unplayable(reason: reason, transient: transient)
            case .notThere: break
            }
        }
        if decoded,
            let failure = decodeFirstFrame(
                fd: window.fd, info: info, streamInfoOffset: streamInfoOffset, audioStart: audioStart)
        {
            return .unplayable(reason: failure.reason, transient: failure.transient)
        }
        var trackInfo = TrackInfo(
            sampleRate: Int(info.sample_rate), channels: Int(info.channels), bitsPerSample: Int(info.bits_per_sample),
            totalFrames: info.total_samples > 0 ? Int64(info.total_samples) : nil, tags: tags, hasPicture: hasPicture)
        trackInfo.firstFrameDecoded = decoded
        return .playable(trackInfo, warnings: warnings)
    }

    /// STREAMINFO's fields from its 34 bytes, as libFLAC's metadata reader unpacks them (RFC 9639
    /// section 8.2; the MD5 is not used).
    static func streamInfo(_ b: UnsafeRawBufferPointer) -> FLAC__StreamMetadata_StreamInfo {
        func at(_ i: Int) -> UInt64 { UInt64(b[i]) }
        var info = FLAC__StreamMetadata_StreamInfo()
        info.min_blocksize = UInt32(at(0) << 8 | at(1))
        info.max_blocksize = UInt32(at(2) << 8 | at(3))
        info.min_framesize = UInt32(at(4) << 16 | at(5) << 8 | at(6))
        info.max_framesize = UInt32(at(7) << 16 | at(8) << 8 | at(9))
        info.sample_rate = UInt32(at(10) << 12 | at(11) << 4 | at(12) >> 4)
        info.channels = UInt32((at(12) >> 1) & 7) + 1
        info.bits_per_sample = UInt32((at(12) & 1) << 4 | at(13) >> 4) + 1
        info.total_samples = (at(13) & 0x0F) << 32 | at(14) << 24 | at(15) << 16 | at(16) << 8 | at(17)
        return info
    }

    static let extraCommentsWarning = "more than one VORBIS_COMMENT block; only the first is used"

    /// Why STREAMINFO cannot describe a stream the player can play, or nil when it is sane.
    static func checkStreamInfo(_ info: FLAC__StreamMetadata_StreamInfo) -> String? {
        if info.sample_rate == 0 { return "sample rate 0" }
        if info.sample_rate > 768_000 { return "sample rate \(info.sample_rate) Hz is above 768 kHz" }
        if info.channels < 1 || info.channels > 8 { return "\(info.channels) channels (1…8 supported)" }
        if info.bits_per_sample < 4 || info.bits_per_sample > 32 {
            return "\(info.bits_per_sample) bits per sample (4…32 supported)"
        }
        if info.max_blocksize < 16 || info.min_blocksize > info.max_blocksize {
            return "block sizes \(info.min_blocksize)…\(info.max_blocksize)"
        }
        return nil
    }

    /// Reads the VORBIS_COMMENT block whose body (`length` bytes) is at `data`: its counts are
    /// checked first, then its comments are read from the window when it fits (the usual case, no
    /// copy), else from a buffer of its own.
    private func readCommentBlock(
        _ window: FileWindow, at data: Int64, length: Int, into tags: inout TrackTags, warnings: inout [String]
    ) throws(Errno) {
        if let problem = try commentCountProblem(window, at: data, length: length) {
            warnings.append("VORBIS_COMMENT \(problem); tags ignored")
            return
        }
        if length <= window.capacity {
            let body = try window.bytes(at: data, count: length)
            if body.count == length {
                readComments(body, into: &tags, warnings: &warnings)
                return
            }
        } else if let block = readBlock(fd: window.fd, offset: data, length: length) {
            block.withUnsafeBytes { readComments($0, into: &tags, warnings: &warnings) }
            return
        }
        warnings.append("VORBIS_COMMENT block cannot be read; tags ignored")
    }

    /// Checks the vendor length and comment count of a VORBIS_COMMENT block against the block
    /// length (each comment takes at least 4 bytes), so no count the block cannot hold is believed.
    private func commentCountProblem(_ window: FileWindow, at data: Int64, length: Int) throws(Errno) -> String? {
        func le32(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
            UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
        }
        // One range covers the vendor string of every common encoder; a longer one needs a second.
        let head = try window.bytes(at: data, count: 128)
        guard length >= 8, head.count >= 8 else { return "block is too short" }
        let vendorLength = Int(le32(head, 0))
        guard vendorLength <= length - 8 else { return "vendor string of \(vendorLength) bytes overruns the block" }
        let count: UInt32
        if 4 + vendorLength + 4 <= head.count {
            count = le32(head, 4 + vendorLength)
        } else {
            let bytes = try window.bytes(at: data + 4 + Int64(vendorLength), count: 4)
            guard bytes.count == 4 else { return "block cannot be read" }
            count = le32(bytes, 0)
        }
        let room = (length - 8 - vendorLength) / 4
        if Int(count) > room { return "claims \(count) comments, more than its \(length) bytes can hold" }
        return nil
    }

    /// The `length` bytes of a block's body, or nil when the file has fewer.
    private func readBlock(fd: Int32, offset: Int64, length: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: length)
        let n = bytes.withUnsafeMutableBytes { (try? Syscalls.pread(fd, $0, offset: offset)) ?? -1 }
        return n == length ? bytes : nil
    }

    /// Reads the first `maxComments` comments straight from the block's bytes: libFLAC would
    /// allocate every one of them (a 4 MB block holds 800 000), however few are used.
    private func readComments(_ block: UnsafeRawBufferPointer, into tags: inout TrackTags, warnings: inout [String]) {
        block.withMemoryRebound(to: UInt8.self) { raw in
            func le32(_ at: Int) -> Int {
                Int(raw[at]) | Int(raw[at + 1]) << 8 | Int(raw[at + 2]) << 16 | Int(raw[at + 3]) << 24
            }
            // commentCountProblem has seen the vendor string and the count fit.
            var position = 4 + le32(0)
            let count = le32(position)
            position += 4
            if count > limits.maxComments {
                warnings.append("\(count) comments; only the first \(limits.maxComments) were used")
            }
            for _ in 0..<min(count, limits.maxComments) {
                guard position + 4 <= raw.count else { break }
                let length = le32(position)
                position += 4
                guard length <= raw.count - position else {
                    warnings.append("VORBIS_COMMENT block is damaged (a comment overruns it); the rest were not read")
                    break
                }
                let entry = raw[position..<position + length]
                position += length
                guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
                guard let field = TagFields.field(named: entry[entry.startIndex..<equals]) else { continue }
                let valueBytes = entry[(equals + 1)...]
                var value = String(decoding: valueBytes.prefix(limits.maxValueBytes), as: UTF8.self)
                if valueBytes.count > limits.maxValueBytes, value.last == "\u{FFFD}" { value.removeLast() }
                TagFields.add(field, value, to: &tags)
            }
        }
    }

    // MARK: - first frame

    /// Decodes the first audio frame of `path` (the background pass's check of a file the scan
    /// listed from its headers): nil when it decodes and matches STREAMINFO, else why not. Reads
    /// only the metadata block headers, STREAMINFO and about one frame.
    package func confirmFirstFrame(path: String) -> (reason: String, transient: Bool)? {
        do throws(Errno) {
            try window.open(path)
        } catch {
            return ("cannot open: \(error.message)", Self.isTransient(error.rawValue))
        }
        defer { window.close() }
        do throws(Errno) {
            guard try window.bytes(at: 0, count: 4).count == 4 else { return ("read error or truncated file", true) }
            // After any ID3v2 tag (the scan read past it).
            guard let marker = try Self.markerOffset(in: window) else {
                return ("not a FLAC file (no fLaC marker)", false)
            }
            // 4-byte block headers: the last one's block ends where the audio starts.
            let streamInfoOffset = marker + 4
            var offset = streamInfoOffset
            var blocks = 0
            while true {
                blocks += 1
                let header = try window.bytes(at: offset, count: 4)
                guard blocks <= limits.maxMetadataBlocks + 1, header.count == 4 else {
                    return ("the metadata is damaged", false)
                }
                offset += 4 + (Int64(header[1]) << 16 | Int64(header[2]) << 8 | Int64(header[3]))
                if header[0] & 0x80 != 0 { break }
            }
            let block = try window.bytes(at: streamInfoOffset, count: 38)
            guard block.count == 38, block[0] & 0x7F == 0 else { return ("no STREAMINFO block", false) }
            let info = Self.streamInfo(UnsafeRawBufferPointer(rebasing: block[4...]))
            if let insane = Self.checkStreamInfo(info) { return ("STREAMINFO is not usable: \(insane)", false) }
            return decodeFirstFrame(fd: window.fd, info: info, streamInfoOffset: streamInfoOffset, audioStart: offset)
        } catch {
            return ("read error: \(error.message)", Self.isTransient(error.rawValue))
        }
    }

    /// What the bytes right after the metadata say about the first frame.
    enum FirstFrameHeader: Equatable {
        /// A frame header with a good CRC-8 that agrees with STREAMINFO.
        case sound
        /// Why the file cannot play.
        case failed(reason: String, transient: Bool)
        /// No frame sync there: the decoder must look for the frame.
        case notThere
    }

    /// Checks the header of the frame at `offset` (RFC 9639 section 9.1): sync code, no reserved
    /// values, CRC-8, and the channels, sample size and rate STREAMINFO gives.
    static func checkFirstFrameHeader(_ window: FileWindow, at offset: Int64, info: FLAC__StreamMetadata_StreamInfo)
        -> FirstFrameHeader
    {
        // The longest header: 2 sync, 2 codes, 7 coded number, 2 block size, 2 rate, 1 CRC.
        let bytes: UnsafeRawBufferPointer
        do throws(Errno) {
            bytes = try window.bytes(at: offset, count: 16)
        } catch {
            return .failed(reason: "read error after the metadata", transient: true)
        }
        if bytes.isEmpty {
            return .failed(reason: "no audio frames (the file ends after its metadata)", transient: false)
        }
        return checkFrameHeader(bytes, info: info)
    }

    /// `checkFirstFrameHeader` on bytes already read.
    static func checkFrameHeader(_ h: UnsafeRawBufferPointer, info: FLAC__StreamMetadata_StreamInfo)
        -> FirstFrameHeader
    {
        guard h.count >= 2, h[0] == 0xFF, h[1] & 0xFE == 0xF8 else { return .notThere }
        let bad = FirstFrameHeader.failed(reason: "the first audio frame's header is damaged", transient: false)
        guard h.count >= 6 else { return bad }
        let blockCode = h[2] >> 4
        let rateCode = h[2] & 0x0F
        let channelCode = h[3] >> 4
        let sizeCode = (h[3] >> 1) & 7
        guard blockCode != 0, rateCode != 15, channelCode <= 10, sizeCode != 3, h[3] & 1 == 0 else { return bad }
        // The coded frame or sample number: UTF-8's form, up to 7 bytes.
        var end = 4
        let lead = h[4]
        var extra = 0
        if lead & 0x80 != 0 {
            guard lead != 0xFF else { return bad }
            var mask: UInt8 = 0x40
            while lead & mask != 0 {
                extra += 1
                mask >>= 1
            }
            guard extra >= 1, extra <= 6 else { return bad }
        }
        end += 1 + extra
        guard end <= h.count else { return bad }
        for i in 5..<end where h[i] & 0xC0 != 0x80 { return bad }
        end += blockCode == 6 ? 1 : blockCode == 7 ? 2 : 0
        end += rateCode == 12 ? 1 : rateCode == 13 || rateCode == 14 ? 2 : 0
        guard end < h.count else { return bad }
        var crc: UInt8 = 0
        for i in 0..<end { crc = crc8Table[Int(crc ^ h[i])] }
        guard crc == h[end] else {
            return .failed(reason: "the first audio frame's header is damaged (CRC-8 mismatch)", transient: false)
        }
        let channels = channelCode < 8 ? Int(channelCode) + 1 : 2
        if channels != Int(info.channels) {
            return .failed(
                reason: "the first frame has \(channels) channels, STREAMINFO says \(info.channels)", transient: false)
        }
        let sizes: [Int] = [0, 8, 12, 0, 16, 20, 24, 32]
        if sizeCode != 0 && sizes[Int(sizeCode)] != Int(info.bits_per_sample) {
            return .failed(
                reason:
                    "the first frame has \(sizes[Int(sizeCode)]) bits per sample, STREAMINFO says \(info.bits_per_sample)",
                transient: false)
        }
        let rates: [Int] = [0, 88_200, 176_400, 192_000, 8_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 96_000]
        var rate = rateCode < 12 ? rates[Int(rateCode)] : 0
        let tail = end - (rateCode == 12 ? 1 : rateCode >= 13 ? 2 : 0)
        if rateCode == 12 { rate = Int(h[tail]) * 1000 }
        if rateCode == 13 { rate = Int(h[tail]) << 8 | Int(h[tail + 1]) }
        if rateCode == 14 { rate = (Int(h[tail]) << 8 | Int(h[tail + 1])) * 10 }
        if rateCode != 0 && rate != Int(info.sample_rate) {
            return .failed(
                reason: "the first frame is at \(rate) Hz, STREAMINFO says \(info.sample_rate) Hz", transient: false)
        }
        return .sound
    }

    /// CRC-8 of FLAC frame headers: polynomial x^8 + x^2 + x + 1, initial value 0.
    static let crc8Table: [UInt8] = (0..<256).map { byte in
        var crc = UInt8(byte)
        for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        return crc
    }

    /// State shared with the decoder callbacks (reached through `client_data`). One per reader,
    /// reset for each file, so checking a file allocates nothing.
    private final class DecodeContext {
        var fd: Int32 = -1
        var budget: Int64 = 0
        /// Served before the file: "fLaC" + STREAMINFO marked as the last metadata block, so the
        /// decoder never reads the other blocks (pictures can be megabytes on a slow stick).
        let prefix = UnsafeMutablePointer<UInt8>.allocate(capacity: 42)
        var prefixCount = 0
        var prefixServed = 0
        /// Where the next file read starts.
        var position: Int64 = 0
        /// Most bytes read from the file at once: about one frame, so no more of the file is read
        /// than the first frame needs.
        var chunk = 1 << 16
        var bytesRead: Int64 = 0
        var overBudget = false
        var readError: Int32 = 0
        var error: FLAC__StreamDecoderErrorStatus?
        var frame: FLAC__FrameHeader?

        deinit { prefix.deallocate() }

        func start(fd: Int32, budget: Int64, prefixCount: Int, position: Int64, chunk: Int) {
            self.fd = fd
            self.budget = budget
            self.prefixCount = prefixCount
            prefixServed = 0
            self.position = position
            self.chunk = chunk
            bytesRead = 0
            overBudget = false
            readError = 0
            error = nil
            frame = nil
        }
    }

    private static let readCallback: FLAC__StreamDecoderReadCallback = { _, buffer, bytes, client in
        let context = Unmanaged<DecodeContext>.fromOpaque(client!).takeUnretainedValue()
        // Stop at the first decoding error or once the budget is spent: a damaged file must not
        // make libFLAC hunt for a frame sync through the whole file.
        if context.error != nil || context.frame != nil { return FLAC__STREAM_DECODER_READ_STATUS_ABORT }
        if context.prefixServed < context.prefixCount {
            let n = min(bytes!.pointee, context.prefixCount - context.prefixServed)
            buffer!.update(from: context.prefix + context.prefixServed, count: n)
            context.prefixServed += n
            bytes!.pointee = n
            return FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
        }
        let wanted = min(bytes!.pointee, context.chunk, Int(max(0, context.budget - context.bytesRead)))
        if wanted == 0 {
            context.overBudget = true
            bytes!.pointee = 0
            return FLAC__STREAM_DECODER_READ_STATUS_ABORT
        }
        let n: Int
        do throws(Errno) {
            n = try Syscalls.pread(
                context.fd, UnsafeMutableRawBufferPointer(start: buffer, count: wanted), offset: Int64(context.position)
            )
        } catch {
            context.readError = error.rawValue
            bytes!.pointee = 0
            return FLAC__STREAM_DECODER_READ_STATUS_ABORT
        }
        bytes!.pointee = n
        context.bytesRead += Int64(n)
        context.position += Int64(n)
        return n == 0 ? FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM : FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
    }

    private static let writeCallback: FLAC__StreamDecoderWriteCallback = { _, frame, _, client in
        let context = Unmanaged<DecodeContext>.fromOpaque(client!).takeUnretainedValue()
        if context.frame == nil { context.frame = frame!.pointee.header }
        return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
    }

    private static let errorCallback: FLAC__StreamDecoderErrorCallback = { _, status, client in
        let context = Unmanaged<DecodeContext>.fromOpaque(client!).takeUnretainedValue()
        if context.error == nil && context.frame == nil { context.error = status }
    }

    /// Readies the decoder for the next file: initialised once per reader (MD5 off, every
    /// metadata block ignored), then only reset, which keeps its buffers. False when libFLAC
    /// refuses.
    private func prepareDecoder() -> Bool {
        if decoderReady {
            if FLAC__stream_decoder_reset(decoder) != 0 { return true }
            // A reset that fails leaves the decoder uninitialised: start it again below.
            _ = FLAC__stream_decoder_finish(decoder)
            decoderReady = false
        }
        _ = FLAC__stream_decoder_set_md5_checking(decoder, 0)
        _ = FLAC__stream_decoder_set_metadata_ignore_all(decoder)
        let status = FLAC__stream_decoder_init_stream(
            decoder, Self.readCallback, nil, nil, nil, nil, Self.writeCallback, nil, Self.errorCallback,
            Unmanaged.passUnretained(decodeContext).toOpaque())
        decoderReady = status == FLAC__STREAM_DECODER_INIT_STATUS_OK
        return decoderReady
    }

    /// Decodes the first audio frame; nil when it decodes and matches STREAMINFO.
    ///
    /// When the audio's start is known, the decoder is given "fLaC", STREAMINFO (marked last) and
    /// then the file from the first frame on: it never reads the other metadata blocks. It reads
    /// about one frame (`max_framesize` of STREAMINFO) at a time.
    private func decodeFirstFrame(
        fd: Int32, info: FLAC__StreamMetadata_StreamInfo, streamInfoOffset: Int64, audioStart: Int64?
    ) -> (reason: String, transient: Bool)? {
        let context = decodeContext
        var prefixCount = 0
        var position: Int64 = 0
        var budget = Int64(limits.maxFirstFrameSearchBytes)
        if let audioStart {
            let block = context.prefix + 4
            let n =
                (try? Syscalls.pread(
                    fd, UnsafeMutableRawBufferPointer(start: block, count: 38), offset: streamInfoOffset)) ?? -1
            if n == 38 {
                context.prefix[0] = UInt8(ascii: "f")
                context.prefix[1] = UInt8(ascii: "L")
                context.prefix[2] = UInt8(ascii: "a")
                context.prefix[3] = UInt8(ascii: "C")
                block[0] |= 0x80  // is-last
                prefixCount = 42
                position = audioStart
            } else {
                budget += audioStart
            }
        } else {
            budget += (try? Syscalls.fileStatus(fd: fd)).map { Int64($0.st_size) } ?? Int64.max / 2
        }
        // A frame header is at most 16 bytes; the footer 2. Unknown sizes: 16 KiB at a time.
        let chunk = info.max_framesize > 0 ? max(4096, Int(info.max_framesize) + 64) : 16 << 10
        context.start(fd: fd, budget: budget, prefixCount: prefixCount, position: position, chunk: chunk)
        guard prepareDecoder() else {
            return ("libFLAC cannot start decoding (state \(FLAC__stream_decoder_get_state(decoder).rawValue))", true)
        }
        if FLAC__stream_decoder_process_until_end_of_metadata(decoder) != 0 {
            while context.frame == nil && context.error == nil {
                if FLAC__stream_decoder_process_single(decoder) == 0 { break }
                let state = FLAC__stream_decoder_get_state(decoder)
                if state == FLAC__STREAM_DECODER_END_OF_STREAM || state == FLAC__STREAM_DECODER_ABORTED { break }
            }
        }
        if context.readError != 0 {
            return ("read error: \(Errno(rawValue: context.readError).message)", Self.isTransient(context.readError))
        }
        if let error = context.error {
            return ("the first audio frame does not decode: \(Self.describe(error))", false)
        }
        guard let frame = context.frame else {
            if context.overBudget {
                return ("no audio frame within \(limits.maxFirstFrameSearchBytes) bytes after the metadata", false)
            }
            return ("no audio frames (the file ends after its metadata)", false)
        }
        if frame.channels != info.channels {
            return ("the first frame has \(frame.channels) channels, STREAMINFO says \(info.channels)", false)
        }
        if frame.bits_per_sample != info.bits_per_sample {
            return (
                "the first frame has \(frame.bits_per_sample) bits per sample, STREAMINFO says \(info.bits_per_sample)",
                false
            )
        }
        if frame.sample_rate != info.sample_rate {
            return ("the first frame is at \(frame.sample_rate) Hz, STREAMINFO says \(info.sample_rate) Hz", false)
        }
        return nil
    }

    // MARK: - embedded pictures

    /// The embedded front cover (picture type 3) or else the first picture, as bytes and MIME
    /// type; nil when there is none within the size limit. Reads the file: not on the loop thread.
    func embeddedPicture(path: String) -> (bytes: [UInt8], mimeType: String)? {
        // The descriptor first (a regular file, `StickFile.openMusic`): libFLAC's iterator opens
        // the name itself and would wait on a FIFO.
        guard let fd = try? StickFile.openMusic(path),
            FLAC__metadata_simple_iterator_init(iterator, DiskName.openable(path), 1, 0) != 0
        else { return nil }
        var first: (bytes: [UInt8], mimeType: String)?
        var blocks = 0
        repeat {
            blocks += 1
            if blocks > limits.maxMetadataBlocks { break }
            let length = Int(FLAC__metadata_simple_iterator_get_block_length(iterator))
            let offset = Int64(FLAC__metadata_simple_iterator_get_block_offset(iterator)) + 4
            guard FLAC__metadata_simple_iterator_get_block_type(iterator) == FLAC__METADATA_TYPE_PICTURE,
                length >= 32, length <= limits.maxPictureBytes
            else { continue }
            // The picture type first (4 bytes): only the front cover, or the first picture, is read whole.
            guard let type = readBlock(fd: fd.rawValue, offset: offset, length: 4) else { continue }
            let isFront = type == [0, 0, 0, 3]
            guard isFront || first == nil, let block = readBlock(fd: fd.rawValue, offset: offset, length: length),
                let found = Self.picture(in: block)
            else { continue }
            if isFront { return found }
            first = found
        } while FLAC__metadata_simple_iterator_is_last(iterator) == 0
            && FLAC__metadata_simple_iterator_next(iterator) != 0
        return first
    }

    /// A PICTURE block's image and MIME type, every length in it checked against the block (libFLAC
    /// allocates the lengths the block claims before reading them); nil when one overruns it, or
    /// when the data is a URL ("-->").
    static func picture(in block: [UInt8]) -> (bytes: [UInt8], mimeType: String)? {
        var position = 4
        func field() -> ArraySlice<UInt8>? {
            guard position + 4 <= block.count else { return nil }
            let length =
                Int(block[position]) << 24 | Int(block[position + 1]) << 16 | Int(block[position + 2]) << 8
                | Int(block[position + 3])
            position += 4
            guard length <= block.count - position else { return nil }
            defer { position += length }
            return block[position..<position + length]
        }
        guard let mimeBytes = field(), field() != nil else { return nil }
        position += 16  // width, height, depth, colours
        guard let data = field(), !data.isEmpty else { return nil }
        let mime = String(decoding: mimeBytes, as: UTF8.self)
        guard mime != "-->" else { return nil }
        let bytes = Array(data)
        return (bytes, mime.isEmpty ? ArtworkLookup.sniffMIMEType(bytes) : mime)
    }

    // MARK: - messages

    static func isTransient(_ code: Int32) -> Bool {
        [EIO, ENXIO, ENODEV, ENOENT, EMFILE, ENFILE, ENOMEM, ESTALE].contains(code)
    }

    static func isTransient(_ status: FLAC__Metadata_SimpleIteratorStatus) -> Bool {
        status == FLAC__METADATA_SIMPLE_ITERATOR_STATUS_ERROR_OPENING_FILE
            || status == FLAC__METADATA_SIMPLE_ITERATOR_STATUS_MEMORY_ALLOCATION_ERROR
    }

    static func describe(_ status: FLAC__Metadata_SimpleIteratorStatus) -> String {
        switch status {
        case FLAC__METADATA_SIMPLE_ITERATOR_STATUS_ERROR_OPENING_FILE: "cannot open the file"
        case FLAC__METADATA_SIMPLE_ITERATOR_STATUS_NOT_A_FLAC_FILE: "not a FLAC file (no fLaC marker)"
        case FLAC__METADATA_SIMPLE_ITERATOR_STATUS_BAD_METADATA: "the metadata is damaged"
        case FLAC__METADATA_SIMPLE_ITERATOR_STATUS_READ_ERROR: "read error or truncated metadata"
        case FLAC__METADATA_SIMPLE_ITERATOR_STATUS_SEEK_ERROR: "seek error or truncated metadata"
        case FLAC__METADATA_SIMPLE_ITERATOR_STATUS_MEMORY_ALLOCATION_ERROR: "out of memory"
        default: "libFLAC metadata status \(status.rawValue)"
        }
    }

    static func describe(_ error: FLAC__StreamDecoderErrorStatus) -> String {
        switch error {
        case FLAC__STREAM_DECODER_ERROR_STATUS_LOST_SYNC: "lost sync (not FLAC audio data)"
        case FLAC__STREAM_DECODER_ERROR_STATUS_BAD_HEADER: "bad frame header"
        case FLAC__STREAM_DECODER_ERROR_STATUS_FRAME_CRC_MISMATCH: "frame CRC mismatch (damaged data)"
        case FLAC__STREAM_DECODER_ERROR_STATUS_UNPARSEABLE_STREAM: "unparseable stream (unsupported FLAC feature)"
        case FLAC__STREAM_DECODER_ERROR_STATUS_BAD_METADATA: "bad metadata"
        default: "decoder error \(error.rawValue)"
        }
    }
}
