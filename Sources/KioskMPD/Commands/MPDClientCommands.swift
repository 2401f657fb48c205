// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskSystem

/// The connection's own commands: ping, close, password, commands, tag types, binary limit,
/// decoders (MPD's src/command/ClientCommands.cxx and OtherCommands.cxx). Thread: loop thread.
enum MPDClientCommands {
    static func ping(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome { .done }

    static func close(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome { .close }

    /// Only reached inside a command list (`MPDServer.handleLine` takes a lone `idle`), where MPD
    /// does not allow it either.
    static func idle(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome { .close }

    static func password(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        // Without a configured password every attempt is wrong, as in MPD.
        guard let expected = s.settings.password else { throw MPDError(.password, "incorrect password") }
        // Constant time over the attempt's length, so timing tells nothing about the password.
        let a = Array(r[0].utf8)
        let b = Array(expected.utf8)
        var difference = a.count == b.count ? 0 : 1
        for i in 0..<a.count { difference |= Int(a[i] ^ (i < b.count ? b[i] : 0)) }
        guard difference == 0 else { throw MPDError(.password, "incorrect password") }
        r.connection.permissions = .all
        return .done
    }

    static func commands(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        list(r.connection, available: true)
    }

    static func notCommands(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        list(r.connection, available: false)
    }

    /// The table's commands the client may (or may not) run now.
    private static func list(_ c: MPDConnection, available: Bool) -> MPDOutcome {
        for command in MPDCommands.table where c.permissions.isSuperset(of: command.permission) == available {
            c.write("command: \(command.name)\n")
        }
        // `noidle` is a word of the connection rather than a row, but clients look for it here.
        if available && c.permissions.isSuperset(of: MPDCommands.lookup("idle")?.permission ?? .all) {
            c.write("command: noidle\n")
        }
        return .done
    }

    static func tagTypes(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let c = r.connection
        guard let sub = r.optional(0) else {
            for tag in MPDTag.allCases where c.tagMask.contains(tag) { c.write("tagtype: \(tag.rawValue)\n") }
            return .done
        }
        func tags(_ names: ArraySlice<String>) throws(MPDError) -> [MPDTag] {
            guard !names.isEmpty else { throw .argument("Not enough arguments") }
            var result: [MPDTag] = []
            for name in names {
                guard MPDTag.knownNames.contains(name.lowercased()) else {
                    throw .argument("Unknown tag type")
                }
                if let tag = MPDTag(name: name) { result.append(tag) }
            }
            return result
        }
        switch sub {
        case "clear": c.tagMask = []
        case "all": c.tagMask = Set(MPDTag.allCases)
        case "enable": c.tagMask.formUnion(try tags(r.arguments.dropFirst()))
        case "disable": c.tagMask.subtract(try tags(r.arguments.dropFirst()))
        default: throw .argument("Unknown sub command")
        }
        return .done
    }

    static func binaryLimit(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let value = try MPDArgument.unsigned(r[0])
        guard value >= 64 else { throw .argument("Value too small") }
        r.connection.binaryLimit = min(value, s.settings.maxBinaryChunk)
        return .done
    }

    static func urlHandlers(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome { .done }

    /// The decoders this build has, under the names MPD gives its plugins for those libraries.
    static let plugins: [(name: String, formats: [AudioFileFormat])] = [
        ("flac", [.flac]), ("mpg123", [.mp3]), ("vorbis", [.oggVorbis]), ("opus", [.opus]),
        ("pcm", [.wav, .aiff]), ("ffmpeg", [.mp4]),
    ]

    static func decoders(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        for (name, formats) in plugins {
            var seen = Set<String>()
            var text = "plugin: \(name)\n"
            for suffix in formats.flatMap(\.suffixes) where seen.insert("s" + suffix).inserted {
                text += "suffix: \(suffix)\n"
            }
            for mime in formats.flatMap(\.mimeTypes) where seen.insert("m" + mime).inserted {
                text += "mime_type: \(mime)\n"
            }
            r.connection.write(text)
        }
        return .done
    }
}
