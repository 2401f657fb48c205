// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

/// Music files of every format for the library's tests: a short tone encoded with Debian's
/// encoders (sox, lame, oggenc, opusenc), and tags written byte by byte where an encoder cannot
/// write that flavour (ID3v2.2, v2.4, unsynchronisation, ID3v1, APEv2, RIFF INFO, AIFF "ID3 ").
enum MusicTagFixtures {
    static let sox = which("sox")
    static let lame = which("lame")
    static let oggenc = which("oggenc")
    static let opusenc = which("opusenc")
    static let ffmpeg = which("ffmpeg")
    static var hasEncoders: Bool { sox != nil && lame != nil && oggenc != nil && opusenc != nil && ffmpeg != nil }

    static func tool(_ program: String?, _ arguments: [String]) throws {
        guard let program else { throw Errno(rawValue: ENOENT, context: "encoder") }
        let result = run(program, arguments)
        if result.status != 0 { throw Errno(rawValue: EIO, context: "\(program): \(result.errors)") }
    }

    /// A 0.3 s stereo tone as a 16-bit WAV (or AIFF, by the suffix) at `path`.
    static func tone(_ path: String, rate: Int = 44100, seconds: Double = 0.3) throws {
        let folder = String(path[..<path.lastIndex(of: "/")!])
        try Syscalls.mkdirs(folder)
        try tool(sox, ["-D", "-n", "-r", "\(rate)", "-c", "2", "-b", "16", path, "synth", "\(seconds)", "sine", "440"])
    }

    /// An MP3 with no tags at all (LAME writes only its info frame).
    static func plainMP3(_ path: String) throws {
        try tone(path + ".wav")
        defer { unlink(path + ".wav") }
        try tool(lame, ["--quiet", "-b", "128", path + ".wav", path])
    }

    // MARK: - ID3v2

    enum TextEncoding: UInt8 { case latin1 = 0, utf16 = 1, utf8 = 3 }

    static func encoded(_ text: String, _ encoding: TextEncoding) -> [UInt8] {
        switch encoding {
        case .latin1: return text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        case .utf8: return Array(text.utf8)
        case .utf16:
            return [0xFF, 0xFE] + text.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8)] }
        }
    }

    static func syncsafe(_ n: Int) -> [UInt8] {
        [UInt8((n >> 21) & 0x7F), UInt8((n >> 14) & 0x7F), UInt8((n >> 7) & 0x7F), UInt8(n & 0x7F)]
    }

    static func be32(_ n: Int) -> [UInt8] {
        [UInt8((n >> 24) & 0xFF), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
    }
    static func le32(_ n: Int) -> [UInt8] { be32(n).reversed() }

    /// One text frame of ID3v2.`version` (2, 3 or 4).
    static func textFrame(_ id: String, _ text: String, version: Int, encoding: TextEncoding = .latin1) -> [UInt8] {
        frame(id, [encoding.rawValue] + encoded(text, encoding), version: version)
    }

    static func frame(_ id: String, _ body: [UInt8], version: Int) -> [UInt8] {
        var frame = Array(id.utf8)
        if version == 2 {
            frame += be32(body.count).suffix(3)
        } else {
            frame += version == 4 ? syncsafe(body.count) : be32(body.count)
            frame += [0, 0]
        }
        return frame + body
    }

    /// An attached picture (APIC, or PIC in v2.2) of `type` (3: front cover).
    static func pictureFrame(_ bytes: [UInt8], version: Int, type: UInt8 = 3) -> [UInt8] {
        var body: [UInt8] = [0]
        body += Array((version == 2 ? "JPG" : "image/jpeg\u{0}").utf8)
        body += [type, 0]
        body += bytes
        return frame(version == 2 ? "PIC" : "APIC", body, version: version)
    }

    /// A whole ID3v2 tag; `unsynchronise` applies the scheme to the whole body (v2.3 style).
    static func tag(version: Int, frames: [[UInt8]], unsynchronise: Bool = false) -> [UInt8] {
        var body = frames.flatMap { $0 }
        if unsynchronise {
            var out: [UInt8] = []
            for (i, b) in body.enumerated() {
                out.append(b)
                if b == 0xFF, i + 1 == body.count || body[i + 1] >= 0xE0 || body[i + 1] == 0 { out.append(0) }
            }
            body = out
        }
        var tag = Array("ID3".utf8)
        tag += [UInt8(version), 0, unsynchronise ? 0x80 : 0]
        tag += syncsafe(body.count)
        return tag + body
    }

    /// An ID3v1.1 tag (128 bytes, Latin-1, with a track number).
    static func id3v1(title: String, artist: String, album: String, year: String, track: UInt8, genre: UInt8) -> [UInt8]
    {
        func field(_ text: String, _ length: Int) -> [UInt8] {
            let bytes = encoded(text, .latin1).prefix(length)
            return Array(bytes) + [UInt8](repeating: 0, count: length - bytes.count)
        }
        // One term a statement: Swift 6.0's type checker gives up on a long chain of `+`.
        var tag = Array("TAG".utf8)
        tag += field(title, 30)
        tag += field(artist, 30)
        tag += field(album, 30)
        tag += field(year, 4)
        tag += field("", 28)
        tag += [0, track, genre]
        return tag
    }

    /// An APEv2 tag with a footer (no header), as it sits at the end of an MP3.
    static func apeTag(_ items: [(String, String)]) -> [UInt8] {
        var body: [UInt8] = []
        for (key, value) in items {
            let v = Array(value.utf8)
            body += le32(v.count)
            body += le32(0)
            body += Array(key.utf8) + [0]
            body += v
        }
        // One term a statement: Swift 6.0's type checker gives up on a long chain of `+`.
        var footer = Array("APETAGEX".utf8)
        footer += le32(2000)
        footer += le32(body.count + 32)
        footer += le32(items.count)
        footer += le32(0)
        footer += [UInt8](repeating: 0, count: 8)
        return body + footer
    }

    // MARK: - Xiph comments

    /// A FLAC picture block as `METADATA_BLOCK_PICTURE` carries it (before base64).
    static func flacPictureBlock(_ bytes: [UInt8], mime: String = "image/jpeg") -> [UInt8] {
        var block = be32(3)
        block += be32(mime.utf8.count)
        block += Array(mime.utf8)
        for field in [0, 1, 1, 24, 0] { block += be32(field) }  // description length, size, depth, colours
        block += be32(bytes.count)
        block += bytes
        return block
    }

    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            let chunk = Int(bytes[i]) << 16 | (n > 1 ? Int(bytes[i + 1]) << 8 : 0) | (n > 2 ? Int(bytes[i + 2]) : 0)
            for k in 0..<4 { out.append(k <= n ? alphabet[(chunk >> (18 - 6 * k)) & 63] : UInt8(ascii: "=")) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - RIFF and AIFF chunks

    /// Appends a chunk to a RIFF (little-endian sizes) or FORM (big-endian) file and fixes its size.
    static func appendChunk(_ id: String, _ body: [UInt8], to bytes: inout [UInt8], bigEndian: Bool) {
        bytes += Array(id.utf8)
        bytes += bigEndian ? be32(body.count) : le32(body.count)
        bytes += body
        if body.count % 2 == 1 { bytes.append(0) }
        let total = bigEndian ? be32(bytes.count - 8) : le32(bytes.count - 8)
        bytes.replaceSubrange(4..<8, with: total)
    }

    /// A RIFF INFO list: INAM title, IART artist, IPRD album, IGNR genre.
    static func riffInfo(title: String, artist: String, album: String, genre: String) -> [UInt8] {
        func sub(_ id: String, _ text: String) -> [UInt8] {
            let v = Array(text.utf8) + [0]
            var chunk = Array(id.utf8)
            chunk += le32(v.count)
            chunk += v
            if v.count % 2 == 1 { chunk.append(0) }
            return chunk
        }
        var list = Array("INFO".utf8)
        list += sub("INAM", title)
        list += sub("IART", artist)
        list += sub("IPRD", album)
        list += sub("IGNR", genre)
        return list
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite only where the fixtures' encoders are installed.
    static var needsTagEncoders: Self {
        .enabled(if: MusicTagFixtures.hasEncoders, "needs sox, lame, vorbis-tools, opus-tools and ffmpeg")
    }
}
