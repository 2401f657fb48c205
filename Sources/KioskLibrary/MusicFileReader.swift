// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskTags
import Glibc
import KioskAudio
import KioskModel
import KioskSystem

/// Reads any music file for the library: its format by content (KioskAudio's `DecoderSet`), then
/// FLAC through `FLACFileReader` (libFLAC's metadata API), every other format through TagLib
/// (tags, embedded pictures) and the format's own decoder (format, exact length, and whether the
/// first block decodes: a track is listed only when it will play; in the library's scan, whether
/// its headers are sound, its first block decoded later by `PlayabilityPass`).
///
/// Bounded as the FLAC reader is: an ID3v2 tag longer than `maxCommentBlockBytes` is not handed
/// to TagLib (it would load it whole), nor tags with more than `maxComments` frames, items or atoms
/// (`TagBudget`, counted from their headers first); compressed frames inflate within
/// `maxInflatedTagBytes` per file; values are cut at `maxValueBytes`, at most `maxComments` values
/// are used, and a picture over `maxPictureBytes` is left out. An Ogg file whose comment header is
/// over the limits is left out before its decoder reads it.
///
/// A file is opened once for its format and, when it is FLAC, for the whole read (`FileWindow`).
///
/// Thread: one thread at a time (its window, decoders and FLAC reader are reused across files).
package final class MusicFileReader {
    let limits: ScanLimits
    private let flac: FLACFileReader
    private let decoders = DecoderSet()
    /// The file being read, open once for the format check and (FLAC) the whole read.
    private let window = FileWindow()
    private let scratch: UnsafeMutableRawPointer
    private static let scratchFrames = 8192
    private static let scratchBytes = MusicFileReader.scratchFrames * 8 * 4

    package init(limits: ScanLimits = ScanLimits()) {
        self.limits = limits
        flac = FLACFileReader(limits: limits)
        scratch = UnsafeMutableRawPointer.allocate(byteCount: MusicFileReader.scratchBytes, alignment: 16)
    }

    deinit { scratch.deallocate() }

    /// Reads `path`: tags, stream format, and whether the first block decodes. Without
    /// `decodingFirstFrame` the first frame of a FLAC, MP3, M4A, Ogg Vorbis or Opus file is only
    /// checked by its headers (its decode is the background `PlayabilityPass`'s, see
    /// `TrackInfo.firstFrameDecoded`); WAV, AIFF and a FLAC stream without metadata are decoded
    /// either way (their decode costs next to nothing, or gives their format).
    package func read(path: String, decodingFirstFrame: Bool = true) -> FileReadOutcome {
        // One open for the format and, for FLAC, everything else; other formats' readers open the
        // file again.
        defer { window.close() }
        let format: AudioFileFormat
        do throws(DecodeError) {
            let head = try openHead(path)
            format = try decoders.identify(fd: window.fd, path: path, first: head)
            // A FLAC stream that starts at a frame has no metadata for FLACFileReader: it is read as
            // the other formats are (the decoder's first frame gives its format).
            if format == .flac, let marker = try flacMarker() {
                return flac.read(window, markerAt: marker, decodingFirstFrame: decodingFirstFrame)
            }
        } catch {
            return .unplayable(reason: error.description, transient: error.isTransient)
        }
        window.close()
        let decoding = decodingFirstFrame || !Self.listedByHeaders.contains(format)
        let stream: (format: PCMFormat, totalFrames: Int64?)
        do throws(Unplayable) {
            stream = try check(path: path, format: format, decoding: decoding)
        } catch {
            return .unplayable(reason: error.reason, transient: error.transient)
        }
        var warnings: [String] = []
        let (tags, pictureBytes) = readTags(path: path, format: format, warnings: &warnings)
        var info = TrackInfo(
            sampleRate: stream.format.sampleRate, channels: stream.format.channels,
            bitsPerSample: stream.format.bitsPerSample, totalFrames: stream.totalFrames, tags: tags,
            hasPicture: pictureBytes > 0)
        info.firstFrameDecoded = decoding
        return .playable(info, warnings: warnings)
    }

    /// The formats a scan lists by their headers, what their decoders' opens prove without
    /// decoding audio: MP3, mpg123's first frame header (and the LAME/Xing frame's exact length);
    /// Ogg Vorbis and Opus, the identification and comment headers and the last page's position
    /// (the length); MP4, an audio track of AAC or ALAC, its format and length from the boxes
    /// (`MP4Decoder.readHeaders`). Decoding the first packet costs more than that open (per file,
    /// measured on the mixed bench library: MP3 80 µs against 16, Vorbis 390 µs against 95, M4A
    /// 190 µs after a 540 µs open that the headers alone bring down to 60 µs; Opus 100 µs against 270).
    static let listedByHeaders: Set<AudioFileFormat> = [.mp3, .oggVorbis, .opus, .mp4]

    /// Decodes the first frame of a file read without `decodingFirstFrame`: nil when it plays, else
    /// why not.
    package func confirmFirstFrame(path: String) -> (reason: String, transient: Bool)? {
        let format: AudioFileFormat
        do throws(DecodeError) {
            format = try decoders.identify(path: path)
        } catch {
            return (error.description, error.isTransient)
        }
        // Only a FLAC file with its metadata is listed unconfirmed (`read`).
        if format == .flac { return flac.confirmFirstFrame(path: path) }
        do throws(Unplayable) {
            _ = try check(path: path, format: format, decoding: true)
        } catch {
            return (error.reason, error.transient)
        }
        return nil
    }

    /// Why a file does not play, as the scan's problem list says it.
    private struct Unplayable: Error {
        let reason: String
        let transient: Bool

        init(_ error: DecodeError) {
            reason = error.description
            transient = error.isTransient
        }

        init(reason: String) {
            self.reason = reason
            transient = false
        }
    }

    /// The stream format and length of `path`, a file of `format` other than FLAC with metadata:
    /// from its decoder's open (from MP4's headers alone when not `decoding`), and with `decoding`
    /// once its first block decodes.
    private func check(path: String, format: AudioFileFormat, decoding: Bool) throws(Unplayable) -> (
        format: PCMFormat, totalFrames: Int64?
    ) {
        // vorbisfile and opusfile hold the comment packet whole, as TagLib does: over the limits,
        // the file is not opened at all.
        if format == .oggVorbis || format == .opus, let problem = oggHeaderProblem(path) {
            throw Unplayable(reason: problem)
        }
        do throws(DecodeError) {
            if format == .mp4 { try decoders.checkMP4(path: path) }
            guard let decoder = decoders.decoder(for: format) else { throw .notSupported(format) }
            if !decoding, let mp4 = decoder as? MP4Decoder { return try mp4.readHeaders(path: path) }
            defer { decoder.close() }
            try decoder.open(path: path)
            guard let stream = decoder.format else { throw .badHeader(format, .noStream) }
            if decoding { try decodeFirstBlock(decoder, format: format) }
            return (stream, decoder.totalFrames)
        } catch {
            throw Unplayable(error)
        }
    }

    /// Decodes the first block of the file `decoder` has open. For MP3 that is a whole frame's
    /// samples: mpg123 conceals damage inside a frame and hands out what it decoded before a
    /// broken frame header (the 47 samples a LAME file's first frame keeps after the encoder
    /// delay), so a stream that breaks after its first frame fails only at the next call. A sound
    /// file's first call gives them all (mpg123 fills the block).
    private func decodeFirstBlock(_ decoder: any AudioDecoder, format: AudioFileFormat) throws(DecodeError) {
        let frames = min(decoder.maxBlockSize, MusicFileReader.scratchFrames)
        let wanted = format == .mp3 ? MP3Decoder.blockFrames : 1
        var decoded = 0
        while decoded < wanted {
            switch decoder.decode(into: RingBuffer.Regions(scratch, frames: frames)) {
            case .frames(let n): decoded += n
            case .formatChange: return
            case .endOfStream:
                if decoded == 0 { throw .badHeader(format, .noAudioData) }
                return
            case .failed(let error): throw error
            }
        }
    }

    /// Where the `fLaC` marker of the file open in `window` is (nil: a FLAC stream without one).
    private func flacMarker() throws(DecodeError) -> Int64? {
        do throws(Errno) {
            return try FLACFileReader.markerOffset(in: window)
        } catch {
            throw .readFailed(errno: error.rawValue)
        }
    }

    /// Opens `path` into `window` and returns its first bytes, after the checks every decoder
    /// makes (`DecoderSet.identify(path:)`'s: a non-empty regular file) with one `fstat`.
    private func openHead(_ path: String) throws(DecodeError) -> UnsafeRawBufferPointer {
        let st: stat
        do throws(Errno) {
            try window.open(path)
            st = try window.status()
        } catch {
            // StickFile.openMusic refuses what is not a regular file (EISDIR for a folder, EINVAL
            // with its kind named for a FIFO, socket or device) before any read.
            if error.reason != nil && (error.rawValue == EINVAL || error.rawValue == EISDIR) { throw .notARegularFile }
            throw .cannotOpen(errno: error.rawValue)
        }
        if st.st_mode & S_IFMT != S_IFREG { throw .notARegularFile }
        if st.st_size == 0 { throw .emptyFile }
        do throws(Errno) {
            return try window.bytes(at: 0, count: AudioFileFormat.sniffBytes)
        } catch {
            throw .readFailed(errno: error.rawValue)
        }
    }

    /// The embedded front cover (else first picture) of `path`, within the picture limit.
    func embeddedPicture(path: String) -> (bytes: [UInt8], mimeType: String)? {
        guard let format = try? decoders.identify(path: path) else { return nil }
        if format == .flac { return flac.embeddedPicture(path: path) }
        guard tagSizeIsBounded(path: path, warnings: nil), tagBudgetProblem(path: path, format: format) == nil
        else { return nil }
        var data: UnsafeMutablePointer<UInt8>?
        var mime = [CChar](repeating: 0, count: 128)
        var budget = kiosk_tag_budget(
            max_inflated_bytes: UInt(limits.maxInflatedTagBytes), refused_streams: 0, inflated_bytes: 0)
        let size = kiosk_tags_picture(
            DiskName.openable(path), Int32(format.rawValue), &budget, limits.maxPictureBytes, &data, &mime,
            mime.count)
        guard size > 0, let data else { return nil }
        defer { free(data) }
        let bytes = Array(UnsafeBufferPointer(start: data, count: size))
        let type = String(decoding: mime.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (bytes, type.isEmpty || type == "-->" ? ArtworkLookup.sniffMIMEType(bytes) : type)
    }

    /// Whether the file's tags are small enough for TagLib, which reads a tag whole: the leading
    /// ID3v2 tag of any file, and every tag chunk of a WAV or AIFF.
    private func tagSizeIsBounded(path: String, warnings: UnsafeMutablePointer<[String]>?) -> Bool {
        guard let file = try? StickFile.openMusic(path) else { return false }
        var head = [UInt8](repeating: 0, count: 10)
        let n = head.withUnsafeMutableBytes { (try? Syscalls.pread(file.rawValue, $0, offset: 0)) ?? -1 }
        guard n == 10 else { return true }
        var length = AudioFileFormat.id3v2Length(head)
        var what = "ID3v2 tag"
        if head.starts(with: Array("RIFF".utf8)) || head.starts(with: Array("RF64".utf8))
            || head.starts(with: Array("FORM".utf8)), let st = try? Syscalls.fileStatus(fd: file.rawValue)
        {
            let chunk = Int(PCMFileHeader.largestTagChunk(fd: file.rawValue, size: Int64(st.st_size)))
            if chunk > length { (length, what) = (chunk, "tag chunk") }
        }
        if length > limits.maxCommentBlockBytes {
            warnings?.pointee.append(
                "\(what) of \(length) bytes is over the \(limits.maxCommentBlockBytes)-byte limit; tags ignored")
            return false
        }
        return true
    }

    /// Why an Ogg file's comment header is not to be read, by its decoder or by TagLib.
    private func oggHeaderProblem(_ path: String) -> String? {
        guard let file = try? StickFile.openMusic(path) else { return nil }
        return TagBudget.oggCommentProblem(fd: file.rawValue, limits: limits).map { "\($0): not read" }
    }

    /// Why TagLib must not read this file's tags (too many frames, items or atoms), or nil.
    private func tagBudgetProblem(path: String, format: AudioFileFormat) -> String? {
        guard let file = try? StickFile.openMusic(path) else { return nil }
        return TagBudget.problem(fd: file.rawValue, format: format, limits: limits)
    }

    /// The tags TagLib finds, and the size of the picture it would use (0: none usable).
    private func readTags(path: String, format: AudioFileFormat, warnings: inout [String]) -> (TrackTags, Int) {
        let bounded = withUnsafeMutablePointer(to: &warnings) { tagSizeIsBounded(path: path, warnings: $0) }
        guard bounded else { return (TrackTags(), 0) }
        if let problem = tagBudgetProblem(path: path, format: format) {
            warnings.append("\(problem); tags ignored")
            return (TrackTags(), 0)
        }
        // MP3, WAV and AIFF tags are ID3v2 (TagLib names their frames its own way).
        let collector = TagCollector(limits: limits, id3: format == .mp3 || format == .wav || format == .aiff)
        var pictureBytes = 0
        var budget = kiosk_tag_budget(
            max_inflated_bytes: UInt(limits.maxInflatedTagBytes), refused_streams: 0, inflated_bytes: 0)
        let status = kiosk_tags_read(
            DiskName.openable(path), Int32(format.rawValue), &budget,
            { context, key, value in
                guard let context, let key, let value else { return }
                Unmanaged<TagCollector>.fromOpaque(context).takeUnretainedValue().add(key, value)
            }, Unmanaged.passUnretained(collector).toOpaque(), &pictureBytes)
        if status != 0 { warnings.append("the \(format.name) tags cannot be read; file names are used") }
        if budget.refused_streams > 0 {
            warnings.append(
                "compressed ID3v2 frames inflate to more than the \(limits.maxInflatedTagBytes)-byte limit; \(budget.refused_streams) skipped"
            )
        }
        if collector.dropped > 0 {
            warnings.append("\(collector.seen) tag values; only the first \(limits.maxComments) were used")
        }
        if pictureBytes > limits.maxPictureBytes {
            warnings.append(
                "picture of \(pictureBytes) bytes is over the \(limits.maxPictureBytes)-byte limit; ignored")
            pictureBytes = 0
        }
        return (collector.tags, pictureBytes)
    }
}

/// Gathers TagLib's properties into `TrackTags` (through `TagFields`, as FLAC's comments are).
///
/// Thread: that of the reader that made it.
private final class TagCollector {
    let limits: ScanLimits
    let id3: Bool
    var tags = TrackTags()
    var seen = 0
    var dropped = 0

    init(limits: ScanLimits, id3: Bool) {
        self.limits = limits
        self.id3 = id3
    }

    func add(_ key: UnsafePointer<CChar>, _ value: UnsafePointer<CChar>) {
        seen += 1
        guard seen <= limits.maxComments else {
            dropped += 1
            return
        }
        let keyLength = strlen(key)
        let field = key.withMemoryRebound(to: UInt8.self, capacity: keyLength) {
            TagFields.field(named: UnsafeBufferPointer(start: $0, count: keyLength)[...], id3: id3)
        }
        guard let field else { return }
        let valueLength = strlen(value)
        let text = value.withMemoryRebound(to: UInt8.self, capacity: valueLength) {
            let bytes = UnsafeBufferPointer(start: $0, count: valueLength)
            var cut = String(decoding: bytes.prefix(limits.maxValueBytes), as: UTF8.self)
            if valueLength > limits.maxValueBytes, cut.last == "\u{FFFD}" { cut.removeLast() }
            return cut
        }
        TagFields.add(field, text, to: &tags)
    }
}
