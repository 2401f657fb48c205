// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// Makes MP3, M4A, Ogg Vorbis and Opus files from a FLAC with Debian's encoders (flac, lame,
/// ffmpeg, oggenc, opusenc), tags and front cover included: for the demo library and the mixed
/// benchmark library. Real encoders, so what the player reads is what people have on their sticks.
///
/// Thread: any (each call uses its own scratch files next to the target).
public enum MusicFileEncoder {
    /// The formats `convert` makes, by file suffix.
    public static let formats = ["mp3", "m4a", "ogg", "opus"]

    /// The programs `convert` runs for `format`.
    public static func programs(for format: String) -> [String] {
        let encoder: String
        switch format {
        case "mp3": encoder = "/usr/bin/lame"
        case "m4a": encoder = "/usr/bin/ffmpeg"
        case "opus": encoder = "/usr/bin/opusenc"
        default: encoder = "/usr/bin/oggenc"
        }
        return ["/usr/bin/flac", encoder]
    }

    /// Whether every program `convert` needs for `format` is installed.
    public static func canMake(_ format: String) -> Bool {
        programs(for: format).allSatisfy { access($0, X_OK) == 0 }
    }

    /// Re-encodes `flac` (which is removed) as `format` at `path`, with `tags` and, when given, the
    /// cover image (its bytes and file suffix, "jpg" or "png"); false when an encoder is missing or
    /// fails.
    public static func convert(
        _ flac: String, to path: String, format: String, tags: [(name: String, value: String)],
        cover: (bytes: [UInt8], suffix: String)?
    ) -> Bool {
        let wav = "\(path).convert.wav"
        let image = "\(path).convert.\(cover?.suffix ?? "jpg")"
        defer {
            unlink(wav)
            unlink(image)
            unlink(flac)
        }
        let tools = programs(for: format)
        let encoder = tools[1]
        guard Syscalls.runAndWait(tools[0], arguments: ["-d", "-s", "-f", "-o", wav, flac]) == 0 else {
            return false
        }
        if let cover, (try? SyntheticLibrary.writeFile(path: image, bytes: cover.bytes)) == nil { return false }
        func tag(_ name: String) -> String { tags.first { $0.name == name }?.value ?? "" }
        switch format {
        case "mp3":
            var arguments = [
                "--quiet", "-V2", "--tt", tag("TITLE"), "--ta", tag("ARTIST"), "--tl", tag("ALBUM"), "--tg",
                tag("GENRE"), "--ty", tag("DATE"), "--tn", tag("TRACKNUMBER"),
            ]
            if cover != nil { arguments += ["--ti", image] }
            return Syscalls.runAndWait(encoder, arguments: arguments + [wav, path]) == 0
        case "opus":
            var arguments = [
                "--quiet", "--title", tag("TITLE"), "--artist", tag("ARTIST"), "--album", tag("ALBUM"), "--genre",
                tag("GENRE"), "--date", tag("DATE"), "--comment", "TRACKNUMBER=\(tag("TRACKNUMBER"))",
            ]
            if cover != nil { arguments += ["--picture", image] }
            return Syscalls.runAndWait(encoder, arguments: arguments + [wav, path]) == 0
        case "m4a":
            var arguments = ["-v", "error", "-y", "-i", wav]
            if cover != nil {
                arguments += ["-i", image, "-map", "0", "-map", "1", "-c:v", "copy", "-disposition:v", "attached_pic"]
            }
            arguments += ["-c:a", "aac", "-b:a", "192k"]
            for (key, name) in [
                ("title", "TITLE"), ("artist", "ARTIST"), ("album", "ALBUM"), ("genre", "GENRE"), ("date", "DATE"),
                ("track", "TRACKNUMBER"),
            ] {
                arguments += ["-metadata", "\(key)=\(tag(name))"]
            }
            return Syscalls.runAndWait(encoder, arguments: arguments + [path]) == 0
        default:
            return Syscalls.runAndWait(
                encoder,
                arguments: [
                    "-Q", "-t", tag("TITLE"), "-a", tag("ARTIST"), "-l", tag("ALBUM"), "-G", tag("GENRE"), "-d",
                    tag("DATE"), "-N", tag("TRACKNUMBER"), "-o", path, wav,
                ]) == 0
        }
    }
}
