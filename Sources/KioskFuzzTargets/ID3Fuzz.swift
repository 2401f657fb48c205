// SPDX-License-Identifier: GPL-3.0-or-later
import CZlib
import KioskLibrary

/// The `id3` target: builds a valid ID3v2.3 or v2.4 tag from the input, with per-frame compression
/// (a real zlib stream, so the fuzzer reaches TagLib's inflate and the inflate budget rather than
/// stopping at a bad zlib header), data-length indicators true or false, unsynchronisation of the
/// tag (v2.3) or of frames (v2.4), encryption and grouping flags, then reads it in front of a few
/// silent MPEG frames as a scan does, with a 64 KiB inflate budget so inputs cross it cheaply.
///
/// Input: byte 0 picks the version (bit 0: v2.4) and the tag's unsynchronisation (bit 1); then per
/// frame: an ID index, flags (bit 0 compress, 1 unsynchronise, 2 data length, 3 encrypt, 4 group,
/// 5 a false data length), a payload length, a repeat count (the payload is repeated that many
/// times × 16 before compression: the inflation ratio), and the payload.
///
/// Thread: the fuzzing thread.
enum ID3Fuzz {
    static let ids = ["TIT2", "TPE1", "TALB", "TXXX", "APIC", "COMM", "TRCK", "TPOS", "TDRC", "USLT", "PRIV", "GEOB"]
    /// Eight silent MPEG-1 layer III frames (32 kbit/s, 32 kHz, mono): audio for the file to be a track.
    static let silence: [UInt8] = Array(
        repeating: [0xFF, 0xFB, 0x18, 0xC0] + [UInt8](repeating: 0, count: 140), count: 8
    )
    .flatMap { $0 }
    /// Most bytes all frames of one input inflate to: four times the budget, and each run short.
    static let maxInflated = 256 << 10

    /// One reader for every input, as a scan thread keeps one (touched by the fuzzing thread only).
    nonisolated(unsafe) static let reader: MusicFileReader = {
        var limits = ScanLimits()
        limits.maxInflatedTagBytes = 64 << 10
        return MusicFileReader(limits: limits)
    }()

    static func run(_ data: [UInt8]) {
        FuzzFiles.withFile("id3.mp3", tag(data) + silence) { _ = reader.read(path: $0) }
    }

    static func tag(_ data: [UInt8]) -> [UInt8] {
        let head = data.first ?? 0
        let version = head & 1 != 0 ? 4 : 3
        var body: [UInt8] = []
        var position = 1
        var inflated = 0
        while position + 4 <= data.count {
            let id = ids[Int(data[position]) % ids.count]
            let flags = data[position + 1]
            let length = Int(data[position + 2])
            let repeats = Int(data[position + 3]) * 16 + 1
            position += 4
            let payload = Array(data[position..<min(data.count, position + length)])
            position = min(data.count, position + length)
            var content: [UInt8] = []
            if flags & 1 != 0 && !payload.isEmpty {
                let count = min(payload.count * repeats, maxInflated - inflated)
                inflated += count
                var repeated: [UInt8] = []
                repeated.reserveCapacity(count)
                while repeated.count < count { repeated += payload.prefix(count - repeated.count) }
                content = compress(repeated)
            } else {
                content = payload
            }
            if flags & 1 != 0 || flags & 4 != 0 {
                // A false length: the last input byte read, whatever the payload inflates to.
                let claimed = flags & 32 != 0 ? Int(data[position - 1]) : payload.count * repeats
                content = (version == 4 ? syncsafe(claimed) : be32(claimed)) + content
            }
            if version == 4 && flags & 2 != 0 { content = unsynchronise(content) }
            var frameFlags: [UInt8] = [0, 0]
            if version == 4 {
                frameFlags[1] =
                    (flags & 16 != 0 ? 0x40 : 0) | (flags & 1 != 0 ? 0x08 : 0) | (flags & 8 != 0 ? 0x04 : 0)
                    | (flags & 2 != 0 ? 0x02 : 0) | (flags & 5 != 0 ? 0x01 : 0)
            } else {
                frameFlags[1] = (flags & 1 != 0 ? 0x80 : 0) | (flags & 8 != 0 ? 0x40 : 0) | (flags & 16 != 0 ? 0x20 : 0)
            }
            body += Array(id.utf8)
            body += version == 4 ? syncsafe(content.count) : be32(content.count)
            body += frameFlags
            body += content
        }
        let unsynchronised = head & 2 != 0
        if unsynchronised && version == 3 { body = unsynchronise(body) }
        var tag = Array("ID3".utf8)
        tag += [UInt8(version), 0, unsynchronised ? 0x80 : 0]
        return tag + syncsafe(body.count) + body
    }

    static func compress(_ bytes: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = compress2(&out, &length, bytes, uLong(bytes.count), 1)
        return status == Z_OK ? Array(out[0..<Int(length)]) : []
    }

    /// ID3v2's unsynchronisation: a zero after every 0xFF that a false sync or a zero follows.
    static func unsynchronise(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 64)
        for (i, b) in bytes.enumerated() {
            out.append(b)
            if b == 0xFF, i + 1 == bytes.count || bytes[i + 1] >= 0xE0 || bytes[i + 1] == 0 { out.append(0) }
        }
        return out
    }

    static func syncsafe(_ n: Int) -> [UInt8] {
        let n = min(n, (1 << 28) - 1)
        return [UInt8((n >> 21) & 0x7F), UInt8((n >> 14) & 0x7F), UInt8((n >> 7) & 0x7F), UInt8(n & 0x7F)]
    }

    static func be32(_ n: Int) -> [UInt8] {
        [UInt8((n >> 24) & 0xFF), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
    }
}
