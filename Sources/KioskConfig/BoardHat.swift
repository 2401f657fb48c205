// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskSystem

/// A DAC or amplifier HAT as data (`boards/hats/hats.json`): the config.txt lines it needs, its ALSA
/// card id, its mixer (nil: none, software volume) and the GPIO lines its overlay or its board takes.
/// A profile's or the config's `"hat"` names one; the profile then reserves its lines (a button on
/// one is a validation error), needs its config.txt lines and plays on its card.
///
/// Thread: a value; any thread.
public struct BoardHat: Sendable, Equatable {
    public var name: String
    public var description: String
    public var configTxt: [String]
    public var card: String
    public var mixer: String?
    public var pins: [BoardProfile.ReservedLine]
    public var source: String
    /// The chip that makes the sound ("PCM5102A") and the kernel modules that drive it
    /// (`snd-soc-pcm5102a`): what `doctor` looks for in the running kernel, since a kernel without
    /// them leaves the HAT silent whatever config.txt says.
    public var codec: String = ""
    public var codecModules: [String] = []

    /// The PCM the player opens on it: the card by name, device 0, no plug layer.
    public var device: AudioDevice { AudioDevice(name: "hw:CARD=\(card),DEV=0") }

    /// The table's file name under a boards directory.
    public static let tablePath = "hats/hats.json"

    /// Parses the table.
    public static func parseTable(_ bytes: [UInt8], file: String) throws(ConfigError) -> [BoardHat] {
        let r = try JSONReader.parse(bytes, file: file)
        _ = try r.string("comment")
        var hats: [BoardHat] = []
        for h in try r.objects("hats", maxCount: 256) ?? [] {
            guard let name = try h.string("name") else { throw h.error("name", "required") }
            guard let card = try h.string("card") else { throw h.error("card", "required") }
            var hat = BoardHat(
                name: name, description: try h.string("description") ?? "",
                configTxt: try h.strings("configTxt", maxCount: 8) ?? [], card: card, mixer: try h.string("mixer"),
                pins: [], source: try h.string("source") ?? "")
            hat.codec = try h.string("codec") ?? ""
            hat.codecModules = try h.strings("codecModules", maxCount: 8) ?? []
            for pin in try h.objects("pins", maxCount: 64) ?? [] {
                guard let line = try pin.int("line", range: 0...53) else { throw pin.error("line", "required") }
                hat.pins.append(BoardProfile.ReservedLine(line: line, use: try pin.string("use") ?? "reserved"))
                try pin.finish()
            }
            try h.finish()
            if hats.contains(where: { $0.name == name }) { throw h.error("name", "\"\(name)\" is listed twice") }
            hats.append(hat)
        }
        try r.finish()
        return hats
    }

    /// The table next to `profileFile` (its directory's `hats/hats.json`), else the first found in
    /// the board search directories; empty when there is none.
    public static func table(near profileFile: String? = nil) throws(ConfigError) -> [BoardHat] {
        var candidates: [String] = []
        if let profileFile, let slash = profileFile.lastIndex(of: "/") {
            candidates.append(String(profileFile[..<slash]) + "/" + tablePath)
        }
        candidates += BoardProfile.searchDirectories(extra: nil).map { "\($0)/\(tablePath)" }
        guard let file = candidates.first(where: { Syscalls.exists($0) }) else { return [] }
        return try parseTable(try ConfigError.contents(of: file), file: file)
    }

    /// The HAT `name` of the table near `profileFile`, or an error listing the known ones.
    public static func named(_ name: String, near profileFile: String?, path: (file: String, key: String))
        throws(ConfigError) -> BoardHat
    {
        let hats = try table(near: profileFile)
        if let hat = hats.first(where: { $0.name == name }) { return hat }
        let known = hats.map(\.name).joined(separator: ", ")
        throw ConfigError(
            file: path.file, path: path.key,
            message: "unknown HAT \"\(name)\" (known: \(known.isEmpty ? "none: no \(tablePath) found" : known))")
    }

    /// The HATs whose lines include `line`, for a doctor's message.
    public static func claiming(_ line: Int, in hats: [BoardHat]) -> [BoardHat] {
        hats.filter { $0.pins.contains { $0.line == line } }
    }
}

extension BoardProfile {
    /// This profile with `hat` on it: its lines reserved (a button, encoder, panel or output line on
    /// one is an error naming both), its config.txt lines needed, its card the audio device (the
    /// profile's devices kept as fallbacks) and its mixer the mixer.
    public func with(hat: BoardHat) throws(ConfigError) -> BoardProfile {
        var profile = self
        profile.hat = hat
        for pin in hat.pins where !profile.reservedLines.contains(where: { $0.line == pin.line }) {
            profile.reservedLines.append(pin)
        }
        for line in hat.configTxt where !profile.configTxt.contains(line) {
            profile.configTxt.append(line)
        }
        var fallbacks = profile.audio.fallbackDevices
        if let device = profile.audio.device, device != hat.device { fallbacks.insert(device, at: 0) }
        profile.audio.device = hat.device
        profile.audio.fallbackDevices = fallbacks.filter { $0 != hat.device }
        profile.audio.mixer = hat.mixer
        try profile.checkLineConflicts()
        return profile
    }
}
