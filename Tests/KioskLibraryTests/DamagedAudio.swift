// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport

@testable import KioskLibrary

private typealias F = MusicTagFixtures

/// Music files whose headers are sound and whose audio is not, one per format the scan lists by its
/// headers (MP3, M4A, Ogg Vorbis), each made from a 0.3 s tone by Debian's encoders.
enum DamagedAudio {
    /// An MP3 (LAME: its info frame, then the audio frames) whose bytes after the first audio
    /// frame's header are zeros, as a download that was preallocated and never finished: mpg123
    /// opens it (the header gives the format, the info frame the length) and hands out the 47
    /// samples left of the first frame after the encoder delay, then finds no second frame.
    static func mp3(_ path: String, damaged: Bool) throws {
        try F.plainMP3(path)
        guard damaged else { return }
        var bytes = try Syscalls.readFile(path)
        guard let audio = mpegFrameLength(bytes, at: 0) else {
            throw Errno(rawValue: EINVAL, context: "\(path): no info frame")
        }
        for i in (audio + 4)..<bytes.count { bytes[i] = 0 }
        try SyntheticLibrary.writeFile(path: path, bytes: bytes)
    }

    /// An M4A (AAC, ffmpeg) whose 'mdat' payload is XORed: the boxes, and so the track's format and
    /// length, are intact; AAC's decoder refuses the first packet.
    static func m4a(_ path: String, damaged: Bool) throws {
        let wav = path + ".wav"
        try F.tone(wav)
        defer { unlink(wav) }
        try F.tool(F.ffmpeg, ["-v", "error", "-y", "-i", wav, "-c:a", "aac", path])
        guard damaged else { return }
        var bytes = try Syscalls.readFile(path)
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8 else { break }
            if bytes[offset + 4..<offset + 8].elementsEqual("mdat".utf8) {
                for i in (offset + 8)..<min(offset + size, bytes.count) { bytes[i] ^= 0x5A }
            }
            offset += size
        }
        try SyntheticLibrary.writeFile(path: path, bytes: bytes)
    }

    /// An Ogg Vorbis file (oggenc) whose pages after the three header packets are XORed, their CRCs
    /// no longer matching: vorbisfile opens the headers, and finds no audio packet to decode.
    static func vorbis(_ path: String, damaged: Bool) throws {
        let wav = path + ".wav"
        try F.tone(wav)
        defer { unlink(wav) }
        try F.tool(F.oggenc, ["-Q", "-o", path, wav])
        guard damaged else { return }
        var bytes = try Syscalls.readFile(path)
        var offset = 0
        var page = 0
        while offset + 27 <= bytes.count {
            let segments = Int(bytes[offset + 26])
            let header = 27 + segments
            let body = bytes[(offset + 27)..<(offset + header)].reduce(0) { $0 + Int($1) }
            // oggenc's first page holds the identification header, its second the comment and setup.
            if page >= 2 { for i in (offset + header)..<min(offset + header + body, bytes.count) { bytes[i] ^= 0x5A } }
            offset += header + body
            page += 1
        }
        try SyntheticLibrary.writeFile(path: path, bytes: bytes)
    }

    /// The length of the MPEG-1 layer III frame whose header is at `offset`.
    static func mpegFrameLength(_ bytes: [UInt8], at offset: Int) -> Int? {
        let kbps = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0]
        let rates = [44100, 48000, 32000, 0]
        guard offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] & 0xFE == 0xFA else { return nil }
        let rate = rates[Int(bytes[offset + 2] >> 2) & 3]
        let bitrate = kbps[Int(bytes[offset + 2] >> 4)]
        guard rate > 0, bitrate > 0 else { return nil }
        return 144 * bitrate * 1000 / rate + (Int(bytes[offset + 2] >> 1) & 1)
    }
}
