// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskDisplay
import KioskInput
import KioskSystem

/// One box's hardware as data (`boards/<name>.json`, schema in boards/README.md): GPIO chip,
/// buttons and encoders, screen, audio device. The input and screen sections are parsed by
/// KioskInput and KioskDisplay; this type reads the rest and checks the whole for conflicts.
/// A value type, built once at start.
public struct BoardProfile: Sendable {
    public struct ReservedLine: Sendable, Equatable {
        public var line: Int
        public var use: String
    }

    public struct Audio: Sendable, Equatable {
        public var device: AudioDevice?
        public var fallbackDevices: [AudioDevice] = []
        public var mixer: String?
        /// Keep the device open, fed silence, while stopped (a DAC HAT that pops when its clocks
        /// start and stop); the config's `audio.keepOpen` overrides it.
        public var keepOpen = false
    }

    public var name: String
    public var description: String
    public var isTest: Bool
    /// Chip labels, paths, names or numbers, tried in order.
    public var gpioChips: [String]
    public var reservedLines: [ReservedLine]
    public var audio: Audio
    /// Lines config.txt needs for this board ("dtparam=spi=on", "dtoverlay=hifiberry-dac"), which
    /// `kiosk-player doctor` looks for in /boot/firmware/config.txt.
    public var configTxt: [String] = []
    /// The status light, error light and power latch (`outputs`).
    public var outputs = BoardOutputs()
    /// The DAC or amplifier HAT the profile (or the config's `"hat"`) names, applied by `with(hat:)`.
    public var hat: BoardHat?
    /// Buttons, encoders, chords, evdev devices (parsed by KioskInput).
    public var input: InputProfile
    /// The screen section (parsed by KioskDisplay).
    public var screen: ScreenProfile
    /// The file it came from.
    public var file: String
    /// The whole document, for the sections other modules parse.
    public var document: JSONValue

    /// Where board profiles are looked for, in order.
    public static func searchDirectories(extra: String?) -> [String] {
        var dirs: [String] = []
        if let extra { dirs.append(extra) }
        if let env = Syscalls.environment("KIOSK_BOARDS_DIR") { dirs.append(env) }
        dirs += ["/etc/kiosk-player/boards", "/usr/share/kiosk-player/boards"]
        if let dev = repositoryBoardsDirectory() { dirs.append(dev) }
        return dirs
    }

    /// `boards/` of a source checkout the running binary was built in (for development and CI).
    static func repositoryBoardsDirectory() -> String? {
        guard var dir = Syscalls.ownExecutablePath() else { return nil }
        for _ in 0..<6 {
            guard let slash = dir.lastIndex(of: "/"), slash != dir.startIndex else { return nil }
            dir = String(dir[..<slash])
            if Syscalls.exists(dir + "/boards/README.md") && Syscalls.exists(dir + "/Package.swift") {
                return dir + "/boards"
            }
        }
        return nil
    }

    /// The profile name for this machine when the config says "auto", from the device tree model
    /// (the dts's `model`, "Raspberry Pi 400", to which the firmware adds " Rev 1.0").
    public static func autoDetectName(model: String? = nil) -> String {
        let fromDeviceTree = (try? Syscalls.readFile("/proc/device-tree/model", limit: 256)).map {
            String(decoding: $0.filter { $0 != 0 }, as: UTF8.self)
        }
        let text: String = model ?? fromDeviceTree ?? ""
        if text.hasPrefix("Raspberry Pi 5") { return "rpi5" }
        // Before "Raspberry Pi 4": the 400 has no headphone jack, so HDMI comes first.
        if text.hasPrefix("Raspberry Pi 400") { return "rpi400" }
        // A Compute Module's IO board has no jack (and a CM5 no Pi 5 header chip of its own name).
        if text.hasPrefix("Raspberry Pi Compute Module 4") || text.hasPrefix("Raspberry Pi Compute Module 5") {
            return "rpi-cm"
        }
        if text.hasPrefix("Raspberry Pi 4") { return "rpi4" }
        if text.hasPrefix("Raspberry Pi Zero 2") { return "rpi-zero2w" }
        if text.hasPrefix("Raspberry Pi 3") { return "rpi3" }
        return "usb-keypad-hdmi"
    }

    /// Lists `name → file` for every profile found (earlier directories win).
    public static func available(extraDirectory: String?) -> [(name: String, file: String)] {
        var found: [String: String] = [:]
        for dir in searchDirectories(extra: extraDirectory).reversed() {
            guard let listing = try? Syscalls.readDirectory(dir) else { continue }
            for entry in listing.entries where entry.name.hasSuffix(".json") {
                found[String(entry.name.dropLast(5))] = "\(dir)/\(entry.name)"
            }
        }
        return found.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Finds and parses the profile `name` ("auto" = detect), with the config's `hat` (named in
    /// `configFile`'s errors) on it.
    public static func load(name: String, extraDirectory: String?, hat: String?, configFile: String)
        throws(ConfigError) -> BoardProfile
    {
        let profile = try load(name: name, extraDirectory: extraDirectory)
        guard let hat else { return profile }
        return try profile.with(hat: try BoardHat.named(hat, near: profile.file, path: (configFile, "hat")))
    }

    /// Finds and parses the profile `name` ("auto" = detect).
    public static func load(name: String, extraDirectory: String?) throws(ConfigError) -> BoardProfile {
        let resolved = name == "auto" ? autoDetectName() : name
        guard resolved.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw ConfigError(file: "", path: "board", message: "invalid board name \"\(resolved)\"")
        }
        for dir in searchDirectories(extra: extraDirectory) {
            let file = "\(dir)/\(resolved).json"
            if Syscalls.exists(file) { return try load(file: file) }
        }
        let known = available(extraDirectory: extraDirectory).map(\.name).joined(separator: ", ")
        throw ConfigError(
            file: "", path: "board",
            message: "no board profile \"\(resolved)\" (known: \(known.isEmpty ? "none" : known))")
    }

    /// Parses one profile file.
    public static func load(file: String) throws(ConfigError) -> BoardProfile {
        return try parse(try ConfigError.contents(of: file), file: file)
    }

    public static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> BoardProfile {
        let r = try JSONReader.parse(bytes, file: file)
        guard let name = try r.string("name") else { throw r.error("name", "required") }
        let base = file.split(separator: "/").last.map { String($0.dropLast($0.hasSuffix(".json") ? 5 : 0)) } ?? name
        if base != name && file.hasSuffix(".json") {
            throw r.error("name", "\"\(name)\" does not match the file name \"\(base).json\"")
        }
        let input = try InputProfile.parse(r, settings: InputSettings())
        var profile = BoardProfile(
            name: name, description: try r.string("description") ?? "", isTest: try r.bool("test") ?? false,
            gpioChips: input.gpioChips, reservedLines: [], audio: Audio(), input: input,
            screen: try ScreenProfile.parse(profile: r), file: file, document: r.value)
        for line in try r.objects("reservedLines", maxCount: 64) ?? [] {
            guard let number = try line.int("line", range: 0...1023) else { throw line.error("line", "required") }
            let use = try line.string("use") ?? "reserved"
            try line.finish()
            profile.reservedLines.append(ReservedLine(line: number, use: use))
        }
        if let a = try r.object("audio") {
            profile.audio.device = try a.string("device").map(AudioDevice.init(name:))
            profile.audio.fallbackDevices =
                try a.strings("fallbackDevices", maxCount: 16)?.map(AudioDevice.init(name:)) ?? []
            profile.audio.mixer = try a.string("mixer")
            profile.audio.keepOpen = try a.bool("keepOpen") ?? false
            try a.finish()
        }
        if let outputs = try r.object("outputs") { profile.outputs = try BoardOutputs.parse(outputs) }
        for (index, line) in (try r.strings("configTxt", maxCount: 32) ?? []).enumerated() {
            guard let equals = line.firstIndex(of: "="), equals != line.startIndex, !line.contains("#"),
                !line.contains(" ")
            else {
                throw r.error(
                    "configTxt[\(index)]", "expected a config.txt line like \"dtparam=spi=on\", got \"\(line)\"")
            }
            profile.configTxt.append(line)
        }
        if let latch = profile.outputs.powerLatch, !profile.isTest {
            // Only the firmware holds a line from power-on and through a reboot's reset; the player
            // holds it from its start, so the profile needs the line in config.txt.
            let held = latch.heldConfigTxt
            if !profile.configTxt.contains(where: { $0.hasPrefix("gpio=\(latch.line)=") }) {
                profile.configTxt.append(held)
            } else if !profile.configTxt.contains(held) {
                throw r.error(
                    "configTxt",
                    "the power latch on line \(latch.line) needs \"\(held)\" (it holds the latch from power-on)")
            }
        }
        let hatName = try r.string("hat")
        try r.finish()
        try profile.checkLineConflicts()
        if let hatName {
            profile = try profile.with(hat: try BoardHat.named(hatName, near: file, path: (file, "hat")))
        }
        return profile
    }

    /// Every GPIO line the profile uses, with what uses it: inputs, the screen panel's control
    /// lines, and the lines reserved for the HAT.
    public var usedLines: [(line: Int, use: String)] {
        var lines = input.usedLines
        if let panel = screen.panel {
            for key in ["dc", "reset", "backlight"] {
                if let line = panel[key]?.int { lines.append((line, "screen panel \(key)")) }
            }
        }
        return lines + outputs.usedLines
    }

    /// Two functions on one line, or a function on a line the HAT uses, is an error naming both.
    func checkLineConflicts() throws(ConfigError) {
        _ = try lineOwners()
    }

    /// What uses each GPIO line: the HAT's reserved lines, then `usedLines`; a second use of a
    /// line is an error naming both.
    func lineOwners() throws(ConfigError) -> [Int: String] {
        var owner: [Int: String] = [:]
        for reserved in reservedLines { owner[reserved.line] = reserved.use }
        for (line, use) in usedLines {
            if let other = owner[line] {
                throw ConfigError(
                    file: file, path: "", message: "GPIO line \(line) is used twice: by \(other) and by \(use)")
            }
            owner[line] = use
        }
        return owner
    }
}
