// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskSystem

/// What a file's tags would cost TagLib (or an Ogg decoder), counted from their headers before either
/// reads them: TagLib allocates per frame, item, comment or atom, so a small file holding 100 000 of
/// them costs seconds and hundreds of MB however small its values. Each check reads only headers
/// (frame and atom headers, an APE footer, Ogg page headers), a bounded number of them.
///
/// Compressed ID3v2 frames are bounded separately, while TagLib inflates them (`kiosk_tag_budget`).
///
/// Thread: stateless; any.
enum TagBudget {
    /// Why TagLib must not read the tags of this file (e.g. "APE tag of 200000 items is over the
    /// 4096-item limit"), or nil when they are within the limits.
    static func problem(fd: Int32, format: AudioFileFormat, limits: ScanLimits) -> String? {
        guard let size = try? Syscalls.fileStatus(fd: fd).st_size else { return nil }
        let file = HeaderReader(fd: fd, size: Int64(size))
        switch format {
        case .mp3:
            if let problem = id3v2Problem(file, at: 0, limits: limits) { return problem }
            return apeProblem(file, limits: limits)
        case .wav, .aiff:
            for offset in file.id3Chunks() {
                if let problem = id3v2Problem(file, at: offset, limits: limits) { return problem }
            }
            return nil
        case .mp4:
            return mp4Problem(file, limits: limits)
        default:
            return nil
        }
    }

    // MARK: - ID3v2

    /// Counts the frames of the ID3v2 tag at `offset` as TagLib walks them (sizes syncsafe in v2.4,
    /// with its fallback to plain sizes that iTunes writes; a whole-tag unsynchronisation undone first
    /// in v2.3), stopping where TagLib stops: at padding, or at a frame that does not fit.
    static func id3v2Problem(_ file: HeaderReader, at offset: Int64, limits: ScanLimits) -> String? {
        guard let head = file.read(at: offset, count: 10) else { return nil }
        let length = AudioFileFormat.id3v2Length(head)
        // Larger tags are refused whole before this (`maxCommentBlockBytes`).
        guard length > 10, length <= limits.maxCommentBlockBytes,
            var tag = file.read(at: offset + 10, count: length - 10)
        else { return nil }
        let version = Int(head[3])
        if head[5] & 0x80 != 0 && version <= 3 { tag = undoUnsynchronisation(tag) }
        let frames = countID3v2Frames(
            tag, version: version, extendedHeader: head[5] & 0x40 != 0, limit: limits.maxComments)
        if frames > limits.maxComments {
            return "ID3v2 tag of more than \(limits.maxComments) frames is over the limit"
        }
        return nil
    }

    /// The number of frames TagLib would create, counting at most `limit + 1`.
    static func countID3v2Frames(_ tag: [UInt8], version: Int, extendedHeader: Bool, limit: Int) -> Int {
        let headerSize = version < 3 ? 6 : 10
        var position = 0
        if extendedHeader && version >= 3 && tag.count >= 4 {
            let size = version == 4 ? syncsafe(tag, 0) : be32(tag, 0) + 4
            if size <= tag.count { position = size }
        }
        var frames = 0
        while position + headerSize <= tag.count, tag[position] != 0, frames <= limit {
            let size: Int
            switch version {
            case ..<3: size = Int(tag[position + 3]) << 16 | Int(tag[position + 4]) << 8 | Int(tag[position + 5])
            case 3: size = be32(tag, position + 4)
            default: size = v24FrameSize(tag, position)
            }
            guard size > 0, position + headerSize + size <= tag.count else { break }
            frames += 1
            position += headerSize + size
        }
        return frames
    }

    /// A v2.4 frame's size as TagLib reads it: syncsafe, unless that lands on no frame ID where the
    /// plain 32-bit reading does (iTunes writes v2.4 tags with v2.3 sizes).
    private static func v24FrameSize(_ tag: [UInt8], _ position: Int) -> Int {
        let safe = syncsafe(tag, position + 4)
        guard safe > 127 else { return safe }
        func isFrameID(_ at: Int) -> Bool {
            guard at >= 0, at + 4 <= tag.count else { return false }
            return tag[at..<at + 4].allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) }
        }
        if isFrameID(position + safe + 10) { return safe }
        let plain = be32(tag, position + 4)
        return isFrameID(position + plain + 10) ? plain : safe
    }

    /// ID3v2's unsynchronisation undone: every 0xFF 0x00 becomes 0xFF.
    static func undoUnsynchronisation(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var previous: UInt8 = 0
        for b in bytes {
            if !(previous == 0xFF && b == 0) { out.append(b) }
            previous = b
        }
        return out
    }

    // MARK: - APE

    /// The APEv2 footer TagLib reads at the end of an MP3 (before an ID3v1 tag, if any): its item
    /// count and size, before TagLib allocates an item for each.
    static func apeProblem(_ file: HeaderReader, limits: ScanLimits) -> String? {
        var end = file.size
        if let v1 = file.read(at: end - 128, count: 3), v1.elementsEqual("TAG".utf8) { end -= 128 }
        guard let footer = file.read(at: end - 32, count: 32), footer.prefix(8).elementsEqual("APETAGEX".utf8) else {
            return nil
        }
        let size = le32(footer, 12)
        let items = le32(footer, 16)
        if items > limits.maxComments {
            return "APE tag of \(items) items is over the \(limits.maxComments)-item limit"
        }
        if size > limits.maxCommentBlockBytes {
            return "APE tag of \(size) bytes is over the \(limits.maxCommentBlockBytes)-byte limit"
        }
        return nil
    }

    // MARK: - MP4

    /// Atoms TagLib reads into memory in a file at most (every atom of its container types, e.g. the
    /// fragments of a long fragmented file; each costs it ~100 bytes).
    static let maxMP4Atoms = 200_000
    /// Containers nested deeper than this are refused: TagLib reads them recursively.
    static let maxMP4Depth = 32
    private static let mp4Containers: Set<[UInt8]> = Set(
        ["moov", "udta", "mdia", "meta", "ilst", "stbl", "minf", "moof", "traf", "trak", "stsd"].map { Array($0.utf8) })

    /// Walks the atom tree as TagLib's `MP4::Atoms` does (into the same container types, on past a
    /// container's end when a child overruns it, stopping at the first atom shorter than its header),
    /// counting atoms, `ilst` items and depth before TagLib allocates them.
    static func mp4Problem(_ file: HeaderReader, limits: ScanLimits) -> String? {
        var atoms = 0
        var items = 0
        var open: [(end: Int64, isItemList: Bool)] = []
        var position: Int64 = 0
        while true {
            while let container = open.last, position >= container.end { open.removeLast() }
            if open.isEmpty && position + 8 > file.size { break }
            guard let header = file.read(at: position, count: 8) else { break }
            var length = Int64(be32(header, 0))
            var body = position + 8
            if length == 0 {
                length = file.size - position
            } else if length == 1 {
                guard let long = file.read(at: body, count: 8) else { break }
                length = Int64(be32(long, 0)) << 32 | Int64(be32(long, 4))
                body += 8
            }
            guard length >= 8, length <= file.size else { break }
            atoms += 1
            if open.last?.isItemList == true { items += 1 }
            if atoms > maxMP4Atoms { return "MP4 file of more than \(maxMP4Atoms) atoms is over the limit" }
            if items > limits.maxComments {
                return "MP4 item list (ilst) of more than \(limits.maxComments) items is over the limit"
            }
            let type = Array(header[4..<8])
            guard mp4Containers.contains(type) else {
                position += length
                continue
            }
            if open.count >= maxMP4Depth {
                return "MP4 atoms nested more than \(maxMP4Depth) deep are over the limit"
            }
            var skip: Int64 = 0
            if type.elementsEqual("meta".utf8) {
                // A full atom (version and flags first) unless a known child's type follows at once.
                let next = file.read(at: body + 4, count: 4).map { String(decoding: $0, as: UTF8.self) }
                skip = ["hdlr", "ilst", "mhdr", "ctry", "lang"].contains(next ?? "") ? 0 : 4
            } else if type.elementsEqual("stsd".utf8) {
                skip = 8
            }
            open.append((position + length, type.elementsEqual("ilst".utf8)))
            position = body + skip
        }
        return nil
    }

    // MARK: - Ogg

    /// The comment header of an Ogg Vorbis or Opus file (its second packet), measured from the page
    /// headers: decoders and TagLib both hold it whole and allocate per comment, so one over
    /// `maxCommentBlockBytes`, or with more than `maxComments` comments, is not read at all.
    static func oggCommentProblem(fd: Int32, limits: ScanLimits) -> String? {
        guard let size = try? Syscalls.fileStatus(fd: fd).st_size else { return nil }
        let file = HeaderReader(fd: fd, size: Int64(size))
        var position: Int64 = 0
        var serial: Int?
        var packetsEnded = 0
        var commentBytes = 0
        // The start of the comment packet: magic, vendor string, comment count.
        var head: [UInt8] = []
        // Empty pages cost nothing to make: their number is bounded too.
        var pages = 0
        while packetsEnded < 2 {
            pages += 1
            if pages > maxOggHeaderPages {
                return "Ogg headers spread over more than \(maxOggHeaderPages) pages are over the limit"
            }
            guard let page = file.read(at: position, count: 27), page.prefix(4).elementsEqual("OggS".utf8),
                let lacing = file.read(at: position + 27, count: Int(page[26]))
            else { return nil }
            let pageSerial = le32(page, 14)
            if serial == nil { serial = pageSerial }
            let ours = pageSerial == serial
            var segment = position + 27 + Int64(lacing.count)
            for value in lacing {
                // Pages of other streams between ours are counted too: TagLib reads them as one packet.
                if packetsEnded == 1 {
                    commentBytes += Int(value)
                    if ours && head.count < maxOggHeadBytes, let bytes = file.read(at: segment, count: Int(value)) {
                        head += bytes
                    }
                }
                segment += Int64(value)
                if ours && value < 255 {
                    packetsEnded += 1
                    if packetsEnded == 2 { break }
                }
            }
            if commentBytes > limits.maxCommentBlockBytes {
                return "Ogg comment header of more than \(limits.maxCommentBlockBytes) bytes is over the limit"
            }
            position = position + 27 + Int64(lacing.count) + Int64(lacing.reduce(0) { $0 + Int($1) })
        }
        // "\u{3}vorbis" or "OpusTags", the vendor string's length and text, then the comment count.
        let magic = head.first == 3 ? 7 : 8
        let vendor = le32(head, magic)
        guard head.count >= magic + 4, magic + 8 + vendor <= commentBytes else { return nil }
        guard magic + 8 + vendor <= head.count else {
            return "Ogg vendor string of \(vendor) bytes is over the \(maxOggHeadBytes - 16)-byte limit"
        }
        let count = le32(head, magic + 4 + vendor)
        if count > limits.maxComments {
            return "Ogg comment header of \(count) comments is over the \(limits.maxComments)-comment limit"
        }
        return nil
    }

    /// Pages walked to find the end of the comment header.
    static let maxOggHeaderPages = 16_384
    /// Bytes of the comment packet read for its vendor string and comment count.
    static let maxOggHeadBytes = 4096

    // MARK: - bytes

    static func be32(_ b: [UInt8], _ at: Int) -> Int {
        guard at >= 0, at + 4 <= b.count else { return 0 }
        return Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
    }

    static func le32(_ b: [UInt8], _ at: Int) -> Int {
        guard at >= 0, at + 4 <= b.count else { return 0 }
        return Int(b[at + 3]) << 24 | Int(b[at + 2]) << 16 | Int(b[at + 1]) << 8 | Int(b[at])
    }

    static func syncsafe(_ b: [UInt8], _ at: Int) -> Int {
        guard at >= 0, at + 4 <= b.count else { return 0 }
        return Int(b[at] & 0x7F) << 21 | Int(b[at + 1] & 0x7F) << 14 | Int(b[at + 2] & 0x7F) << 7
            | Int(b[at + 3] & 0x7F)
    }
}

/// Reads headers from a file through a small window, so walking thousands of atom or page headers
/// costs few system calls.
///
/// Thread: one thread at a time.
final class HeaderReader {
    let fd: Int32
    let size: Int64
    private var window = [UInt8](repeating: 0, count: 64 << 10)
    private var windowStart: Int64 = -1
    private var windowCount = 0

    init(fd: Int32, size: Int64) {
        self.fd = fd
        self.size = size
    }

    /// `count` bytes at `offset`, or nil when the file has fewer there.
    func read(at offset: Int64, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= size - Int64(count) else { return nil }
        if count > window.count {
            var bytes = [UInt8](repeating: 0, count: count)
            let n = bytes.withUnsafeMutableBytes { (try? Syscalls.pread(fd, $0, offset: offset)) ?? -1 }
            return n == count ? bytes : nil
        }
        if windowStart < 0 || offset < windowStart || offset + Int64(count) > windowStart + Int64(windowCount) {
            let n = window.withUnsafeMutableBytes { (try? Syscalls.pread(fd, $0, offset: offset)) ?? -1 }
            guard n >= count else { return nil }
            windowStart = offset
            windowCount = n
        }
        let from = Int(offset - windowStart)
        return Array(window[from..<from + count])
    }

    /// Offsets of the "id3 " / "ID3 " chunks of a RIFF (WAV) or FORM (AIFF) file, the ID3v2 tags
    /// TagLib reads there.
    func id3Chunks() -> [Int64] {
        guard let head = read(at: 0, count: 12) else { return [] }
        let bigEndian = head.prefix(4).elementsEqual("FORM".utf8)
        var offsets: [Int64] = []
        var position: Int64 = 12
        for _ in 0..<1024 {
            guard let chunk = read(at: position, count: 8) else { break }
            let length = Int64(bigEndian ? TagBudget.be32(chunk, 4) : TagBudget.le32(chunk, 4))
            let id = chunk.prefix(4)
            if id.elementsEqual("id3 ".utf8) || id.elementsEqual("ID3 ".utf8) { offsets.append(position + 8) }
            if length == 0xFFFF_FFFF { break }
            position += 8 + length + (length & 1)
        }
        return offsets
    }
}
