// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// What an MP4/M4A file holds, found by walking its boxes (ISO/IEC 14496-12) down to each audio
/// track's sample description, with bounded reads: at most `maxBoxes` boxes and `maxDepth` levels,
/// and every box checked against the one that holds it, so a box loop or an absurd size claim ends
/// the walk with a reason instead of a hang or an allocation.
///
/// Thread: a value; any.
public enum MP4Probe {
    public static let maxBoxes = 4096
    public static let maxDepth = 8

    /// What the audio track's sample entry says.
    public enum Content: Equatable, Sendable {
        /// Playable audio of this codec ("mp4a": AAC, "alac": Apple Lossless).
        case audio(codec: String)
        /// FairPlay ('drms', 'sinf' inside the entry) or another encryption ('enca').
        case drmProtected
    }

    /// Probes the file open as `fd` (`size` bytes).
    public static func probe(fd: Int32, size: Int64) throws(DecodeError) -> Content {
        var walker = Walker(fd: fd)
        var found: Content?
        try walker.walk(from: 0, to: size, depth: 0, found: &found)
        guard let found else { throw .badHeader(.mp4, .noStream) }
        return found
    }

    private struct Walker {
        let fd: Int32
        var boxes = 0

        init(fd: Int32) { self.fd = fd }

        /// The box header at `offset`: its type, where its body starts and where it ends.
        mutating func header(at offset: Int64, limit: Int64) throws(DecodeError) -> (String, Int64, Int64) {
            boxes += 1
            guard boxes <= MP4Probe.maxBoxes else { throw .badHeader(.mp4, .chunkOverrun) }
            var b = [UInt8](repeating: 0, count: 16)
            let n = b.withUnsafeMutableBytes { (try? Syscalls.pread(fd, $0, offset: offset)) ?? -1 }
            guard n >= 8 else { throw .badHeader(.mp4, .chunkOverrun) }
            var size = Int64(b[0]) << 24 | Int64(b[1]) << 16 | Int64(b[2]) << 8 | Int64(b[3])
            let type = String(decoding: b[4..<8], as: UTF8.self)
            var body = offset + 8
            if size == 1 {
                guard n == 16 else { throw .badHeader(.mp4, .chunkOverrun) }
                // A 64-bit size of 2^63 or more does not fit: a damaged file, not a trap.
                guard let large = DeclaredSize.signed(b[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }) else {
                    throw .badHeader(.mp4, .sizeOverflow)
                }
                size = large
                body = offset + 16
            } else if size == 0 {
                size = limit - offset  // to the end of the enclosing box
            }
            guard DeclaredSize.end(offset, plus: size) != nil else { throw .badHeader(.mp4, .sizeOverflow) }
            guard size >= body - offset, DeclaredSize.fits(offset, length: size, within: limit) else {
                throw .badHeader(.mp4, .chunkOverrun)
            }
            return (type, body, offset + size)
        }

        mutating func walk(from start: Int64, to end: Int64, depth: Int, found: inout Content?) throws(DecodeError) {
            guard depth <= MP4Probe.maxDepth else { throw .badHeader(.mp4, .chunkOverrun) }
            var offset = start
            while offset + 8 <= end, found == nil {
                let (type, body, next) = try header(at: offset, limit: end)
                switch type {
                case "moov", "trak", "mdia", "minf", "stbl":
                    try walk(from: body, to: next, depth: depth + 1, found: &found)
                case "stsd":
                    // version + flags (4), entry count (4), then the sample entries.
                    try entries(from: body + 8, to: next, found: &found)
                default:
                    break
                }
                offset = next
            }
        }

        /// Sample entries: the codec, and whether it is wrapped for encryption.
        mutating func entries(from start: Int64, to end: Int64, found: inout Content?) throws(DecodeError) {
            var offset = start
            while offset + 8 <= end {
                let (type, body, next) = try header(at: offset, limit: end)
                switch type {
                case "drms", "enca", "drmi":
                    found = .drmProtected
                    return
                case "mp4a", "alac":
                    // An AudioSampleEntry's fields take 28 bytes; its child boxes follow.
                    var child = body + 28
                    while child + 8 <= next {
                        let (inner, _, after) = try header(at: child, limit: next)
                        if inner == "sinf" {
                            found = .drmProtected
                            return
                        }
                        child = after
                    }
                    found = .audio(codec: type)
                    return
                default:
                    break
                }
                offset = next
            }
        }
    }
}
