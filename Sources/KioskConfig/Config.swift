// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskInput
import KioskModel
import KioskSystem
import KioskWebSettings

/// The player's configuration: one JSON file (`/etc/kiosk-player/config.json`, or `--config`).
///
/// Every key is optional; the defaults below are documented in docs/configuration.md. Unknown keys, wrong
/// types and out-of-range values are errors that name the file, the key path and what was
/// expected. `$STATE_DIRECTORY` and `$CONFIGURATION_DIRECTORY` (set by systemd) override the
/// default directories. A value type, built once at start.
public struct Config: Sendable {
    public static let defaultPath = "/etc/kiosk-player/config.json"
    public static let defaultMediaRoots = ["/media/kiosk", "/media", "/mnt", "/run/media"]

    public struct Audio: Sendable, Equatable {
        /// An ALSA PCM, or `.silent` ("none": a clock-paced silent sink). nil = the board's device,
        /// else "default".
        public var device: AudioDevice?
        public var fallbackDevices: [AudioDevice]?
        public var mixer: String?
        /// `"mixer": null` given: no hardware mixer, whatever the board says (absent: the board's).
        public var mixerNone = false
        public var bufferMs = 60
        public var ringSeconds = 2.0
        /// SCHED_FIFO priority of the audio threads; 0 = normal scheduling.
        public var realtimePriority = 70
        /// Ramps at every start, resume, pause, stop and skip (`AudioSettings.declickMilliseconds`);
        /// 0 leaves every sample as decoded (bit-perfect edges too).
        public var declickMs = 5
        /// Keeps the device open, fed silence, while stopped; nil = the board's `audio.keepOpen`.
        public var keepOpen: Bool?
    }

    public struct Screen: Sendable, Equatable {
        /// Overrides the board's screen type.
        public var type: ScreenType?
        public var device: String?
        public var fbName: String?
        public var rotation: Int?
        public var theme = "dark"
        /// Directory for the "png" surface (one file per frame).
        public var pngDirectory: String?
        /// Backlight off / screen sleep after this many seconds without input; 0 = never.
        public var idleOffSeconds = 0
        public var maxFramesPerSecond = 20
        /// Size of the "png" surface (other surfaces report their own size).
        public var width = 320
        public var height = 240
    }

    public struct Inputs: Sendable, Equatable {
        public var debounceMs = 5
        public var longPressMs = 600
        public var repeatDelayMs = 400
        public var repeatMs = 150
        public var chordMs = 200
        public var doublePressMs = 300
        /// Use the terminal's keyboard as buttons (default: when stdin is a terminal).
        public var keyboard: Bool?
        /// A JSON-lines event script replayed as input (tests, demos).
        public var script: String?
        /// Overrides of the board's actions: `{"A": {"press": "stop"}}` by button/encoder name.
        public var keymap: JSONValue = .object([])
        /// How far a held next/previous seeks (`SeekSettings`).
        public var seek = SeekSettings()
    }

    public struct MPD: Sendable, Equatable {
        /// Unix socket path; "" = off. Default off; `"socket": "default"` = `$RUNTIME_DIRECTORY/mpd.socket`.
        public var socket: String?
        /// "host:port" for TCP (default bind address 127.0.0.1).
        public var listen: String?
        public var password: String?
        public var maxClients = 8
    }

    /// Cards (`cards`): what a card shown again and a card taken off do, and the readers.
    public struct Cards: Sendable, Equatable {
        /// The card that started what plays, shown again (a USB reader's second swipe, or an
        /// RC522 card put back).
        public enum Again: String, Sendable, Equatable, CaseIterable {
            case restart, togglePause = "toggle-pause", nothing, next
        }
        /// A card taken off an RC522 reader (USB readers cannot tell).
        public enum Removed: String, Sendable, Equatable, CaseIterable { case pause, nothing }
        public var again = Again.togglePause
        public var removed = Removed.pause
        /// The playing card off the reader this long stops playback (nil: never); putting it back
        /// before resumes as `removed` says.
        public var removedStopMinutes: Int?
        /// Replaces the board's `cardReaders` when set.
        public var readers: [CardReaderConfig]?
    }

    /// Where the config came from ("" = built-in defaults).
    public var file = ""
    /// What came of the settings imported at the box (ImportedSettings), applied by `load`.
    public var imported: ImportedSettings.Outcome = .none
    /// Board profile name, or "auto" (from /proc/device-tree/model).
    public var board = "auto"
    /// A DAC or amplifier HAT of boards/hats/hats.json put on the board (nil: the board's own, if any).
    public var hat: String?
    /// Extra directory searched first for `<board>.json`.
    public var boardsDirectory: String?
    public var mediaRoots = Config.defaultMediaRoots
    public var stateDirectory =
        Syscalls.environment("STATE_DIRECTORY")?.split(separator: ":").first.map(String.init)
        ?? "/var/lib/kiosk-player"
    /// Volume at first start (later the saved volume is used).
    public var volume = 70
    /// The volume the buttons, encoders, remote clients and the mixer can reach (`volumeMin`,
    /// `volumeMax`): a quiet floor so the box never seems dead, a ceiling for small speakers.
    public var volumeLimits = VolumeLimits()
    /// The volume at every start; nil = the saved volume.
    public var volumeAtBoot: Int?
    /// After a restart (a power cut), continue the saved queue where it stopped.
    public var resumeAtBoot = true
    /// Folders on the device (the SD card) played like sticks, absolute paths.
    public var libraryDirectories: [String] = []
    /// Stopped or paused with no input this long: a warning, then power off; 0 = never.
    public var idlePowerOffMinutes = 0
    /// Genres that make a collection an audiobook (never shuffled; bookmarked by default).
    public var audiobookGenres = Config.defaultAudiobookGenres
    /// The default genres: what taggers and shops write for spoken word in the languages of the
    /// boxes' owners.
    public static let defaultAudiobookGenres = [
        "Audiobook", "Audio Book", "Hörbuch", "Spoken Word", "Podcast", "有声书", "オーディオブック",
    ]
    /// Which collections remember where they were left (`BookmarkStore`).
    public enum Bookmarks: String, Sendable, Equatable, CaseIterable { case audiobooks, all, off }
    public var bookmarks = Bookmarks.audiobooks
    /// The sleep timer's choices, in minutes, as the `sleep` action cycles them.
    public var sleepMinutes = [15, 30, 45, 60, 90]
    /// What the sleep timer does at its end, after the fade.
    public enum SleepAction: String, Sendable, Equatable, CaseIterable { case stop, poweroff }
    public var sleepAction = SleepAction.stop
    /// Start again at the first track after the last one.
    public var repeatQueue = false
    /// The shuffle at the first start (afterwards the one last chosen, kept in the resume state).
    public var shuffle = ShuffleMode.off
    /// ReplayGain (`replayGain`, `replayGainPreampDb`, `replayGainMissingPreampDb`): off by default,
    /// so the samples reach the device as decoded.
    public var replayGain = ReplayGainSettings()
    public var audio = Audio()
    public var screen = Screen()
    public var inputs = Inputs()
    public var mpd = MPD()
    /// The phone page (`kiosk-web`, a process of its own; off by default).
    public var web = WebSettings()
    public var cards = Cards()
    public var speech = SpeechConfig()
    /// Exhibit mode: clips on inputs instead of a music player's controls (nil: off).
    public var exhibit: ExhibitConfig?
    /// Bedtime rules: when the box plays, how long a day, what still plays at night (nil: none).
    public var bedtime: BedtimeConfig?
    /// A box on a battery: the gauge, the warning and the turning off (nil: no battery).
    public var battery: BatteryConfig?
    /// Bluetooth headphones: the adapter, their volume limit, pairing (nil: Bluetooth off).
    public var bluetooth: BluetoothConfig?

    public init() {}

    /// The keys of the top level, for messages.
    static let topKeys = [
        "board", "hat", "boardsDirectory", "mediaRoots", "stateDirectory", "volume", "volumeMin", "volumeMax",
        "volumeAtBoot",
        "resumeAtBoot", "libraryDirectories", "idlePowerOffMinutes", "audiobookGenres", "bookmarks", "sleepMinutes",
        "sleepAction",
        "repeat", "shuffle", "replayGain", "replayGainPreampDb", "replayGainMissingPreampDb", "audio", "screen",
        "speech",
        "inputs", "mpd", "cards", "exhibit", "bedtime", "battery", "bluetooth", "web",
    ]

    /// Parses a config file's contents.
    public static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> Config {
        let r = try JSONReader.parse(bytes, file: file)
        var c = Config()
        c.file = file
        c.board = try r.string("board") ?? c.board
        c.hat = try r.string("hat")
        c.boardsDirectory = try r.string("boardsDirectory")
        if let roots = try r.strings("mediaRoots", maxCount: 32) {
            for (i, root) in roots.enumerated() where !root.hasPrefix("/") {
                throw ConfigError(
                    file: file, path: "mediaRoots[\(i)]", message: "expected an absolute path, got \"\(root)\"")
            }
            c.mediaRoots = roots
        }
        if let dir = try r.string("stateDirectory") {
            guard dir.hasPrefix("/") else {
                throw r.error("stateDirectory", "expected an absolute path, got \"\(dir)\"")
            }
            c.stateDirectory = dir
        }
        c.volume = try r.int("volume", range: 0...100) ?? c.volume
        let lowest = try r.int("volumeMin", range: 0...100) ?? 0
        let highest = try r.int("volumeMax", range: 1...100) ?? 100
        guard lowest <= highest else {
            throw r.error("volumeMin", "expected at most volumeMax (\(highest)), got \(lowest)")
        }
        c.volumeLimits = VolumeLimits(lowest...highest)
        if let atBoot = try r.int("volumeAtBoot", range: 0...100) {
            guard c.volumeLimits.range.contains(atBoot) else {
                throw r.error(
                    "volumeAtBoot", "expected a volume within volumeMin…volumeMax (\(lowest)…\(highest)), got \(atBoot)"
                )
            }
            c.volumeAtBoot = atBoot
        }
        c.resumeAtBoot = try r.bool("resumeAtBoot") ?? c.resumeAtBoot
        c.idlePowerOffMinutes = try r.int("idlePowerOffMinutes", range: 0...1440) ?? c.idlePowerOffMinutes
        c.audiobookGenres = try r.strings("audiobookGenres", maxCount: 64) ?? c.audiobookGenres
        if let minutes = try r.ints("sleepMinutes", range: 1...720, maxCount: 12) {
            guard !minutes.isEmpty, zip(minutes, minutes.dropFirst()).allSatisfy({ $0 < $1 }) else {
                throw r.error("sleepMinutes", "expected minutes in rising order, e.g. [15, 30, 60]")
            }
            c.sleepMinutes = minutes
        }
        c.sleepAction = try r.choice("sleepAction", SleepAction.self) ?? c.sleepAction
        c.bookmarks = try r.choice("bookmarks", Bookmarks.self) ?? c.bookmarks
        if let folders = try r.strings("libraryDirectories", maxCount: 16) {
            for (i, folder) in folders.enumerated() where !folder.hasPrefix("/") || folder == "/" {
                throw ConfigError(
                    file: file, path: "libraryDirectories[\(i)]",
                    message: "expected an absolute path of a folder other than /, got \"\(folder)\"")
            }
            c.libraryDirectories = folders
        }
        c.repeatQueue = try r.bool("repeat") ?? c.repeatQueue
        c.shuffle = try r.choice("shuffle", ShuffleMode.self) ?? c.shuffle
        c.replayGain.mode = try r.choice("replayGain", ReplayGainMode.self) ?? c.replayGain.mode
        if let preamp = try r.double("replayGainPreampDb", range: -15...15) { c.replayGain.preampDb = Float(preamp) }
        if let missing = try r.double("replayGainMissingPreampDb", range: -15...15) {
            c.replayGain.missingPreampDb = Float(missing)
        }
        if let a = try r.object("audio") {
            c.audio.device = try a.string("device").map(AudioDevice.init(name:))
            c.audio.fallbackDevices = try a.strings("fallbackDevices", maxCount: 16)?.map(AudioDevice.init(name:))
            c.audio.mixer = try a.string("mixer")
            c.audio.mixerNone = a.has("mixer") && c.audio.mixer == nil
            c.audio.bufferMs = try a.int("bufferMs", range: 10...500) ?? c.audio.bufferMs
            c.audio.ringSeconds = try a.double("ringSeconds", range: 0.25...30) ?? c.audio.ringSeconds
            c.audio.realtimePriority = try a.int("realtimePriority", range: 0...99) ?? c.audio.realtimePriority
            c.audio.declickMs = try a.int("declickMs", range: 0...50) ?? c.audio.declickMs
            c.audio.keepOpen = try a.bool("keepOpen")
            try a.finish()
        }
        if let s = try r.object("screen") {
            c.screen.type = try s.choice("type", ScreenType.self)
            c.screen.device = try s.string("device")
            c.screen.fbName = try s.string("fbName")
            if let rotation = try s.int("rotation", range: 0...270) {
                guard rotation % 90 == 0 else {
                    throw s.error("rotation", "expected 0, 90, 180 or 270, got \(rotation)")
                }
                c.screen.rotation = rotation
            }
            c.screen.theme = try s.choice("theme", ["dark", "light"]) ?? c.screen.theme
            c.screen.pngDirectory = try s.string("pngDirectory")
            c.screen.idleOffSeconds = try s.int("idleOffSeconds", range: 0...86_400) ?? c.screen.idleOffSeconds
            c.screen.maxFramesPerSecond = try s.int("maxFramesPerSecond", range: 1...60) ?? c.screen.maxFramesPerSecond
            c.screen.width = try s.int("width", range: 64...1920) ?? c.screen.width
            c.screen.height = try s.int("height", range: 64...1920) ?? c.screen.height
            try s.finish()
        }
        if let i = try r.object("inputs") {
            c.inputs.debounceMs = try i.int("debounceMs", range: 0...100) ?? c.inputs.debounceMs
            c.inputs.longPressMs = try i.int("longPressMs", range: 100...10_000) ?? c.inputs.longPressMs
            c.inputs.repeatDelayMs = try i.int("repeatDelayMs", range: 50...10_000) ?? c.inputs.repeatDelayMs
            c.inputs.repeatMs = try i.int("repeatMs", range: 20...5_000) ?? c.inputs.repeatMs
            c.inputs.chordMs = try i.int("chordMs", range: 20...5_000) ?? c.inputs.chordMs
            c.inputs.doublePressMs = try i.int("doublePressMs", range: 100...1000) ?? c.inputs.doublePressMs
            c.inputs.keyboard = try i.bool("keyboard")
            c.inputs.script = try i.string("script")
            if let seek = try i.object("seek") { c.inputs.seek = try SeekSettings.parse(seek) }
            if let keymap = i.raw("keymap") {
                guard keymap.object != nil else {
                    throw i.error("keymap", "expected an object, got \(JSONReader.show(keymap))")
                }
                c.inputs.keymap = keymap
            }
            try i.finish()
        }
        if let m = try r.object("mpd") {
            c.mpd.socket = try m.string("socket", nonEmpty: false)
            if let listen = try m.string("listen") {
                guard listen.contains(":"), let port = Int(listen.split(separator: ":").last ?? ""),
                    (1...65535).contains(port)
                else { throw m.error("listen", "expected \"host:port\" with a port 1…65535, got \"\(listen)\"") }
                c.mpd.listen = listen
            }
            c.mpd.password = try m.string("password")
            c.mpd.maxClients = try m.int("maxClients", range: 1...64) ?? c.mpd.maxClients
            try m.finish()
        }
        if let w = try r.object("web") {
            c.web = try WebSettings.parse(w)
            // The page talks to the player through its MPD socket: an enabled page opens it.
            if c.web.enabled && (c.mpd.socket ?? "").isEmpty { c.mpd.socket = "default" }
        }
        if let k = try r.object("cards") {
            c.cards.again = try k.choice("again", Cards.Again.self) ?? c.cards.again
            c.cards.removed = try k.choice("removed", Cards.Removed.self) ?? c.cards.removed
            c.cards.removedStopMinutes = try k.int("removedStopMinutes", range: 1...1440)
            var lines = LineRegistry()
            c.cards.readers = try CardReaderConfig.parseList(k, "readers", lines: &lines)
            try k.finish()
        }
        if let speech = try r.object("speech") { c.speech = try SpeechConfig.parse(speech) }
        if let exhibit = try r.object("exhibit") { c.exhibit = try ExhibitConfig.parse(exhibit) }
        if let bedtime = try r.object("bedtime") {
            guard c.exhibit == nil else {
                throw r.error("bedtime", "not with exhibit mode (its opening hours say when it plays)")
            }
            c.bedtime = try BedtimeConfig.parse(bedtime)
        }
        if let battery = try r.object("battery") { c.battery = try BatteryConfig.parse(battery) }
        if let bluetooth = try r.object("bluetooth") {
            guard c.exhibit == nil else {
                throw r.error("bluetooth", "not with exhibit mode (a station plays to its speaker)")
            }
            c.bluetooth = try BluetoothConfig.parse(bluetooth)
        }
        try r.finish(known: topKeys)
        return c
    }

    /// Loads `path`; a missing default file means built-in defaults, a missing explicit file is an error.
    public static func load(path: String?) throws(ConfigError) -> Config {
        let explicit = path != nil
        let configDir = Syscalls.environment("CONFIGURATION_DIRECTORY")?.split(separator: ":").first.map(String.init)
        let file = path ?? configDir.map { "\($0)/config.json" } ?? defaultPath
        if !Syscalls.exists(file) {
            if explicit { throw ConfigError(file: file, path: "", message: "no such file") }
            return Config().withImportedSettings(from: nil, file: "")
        }
        let bytes = try ConfigError.contents(of: file)
        // The config file alone must be valid: its own errors come first, whatever was imported.
        return try parse(bytes, file: file).withImportedSettings(from: bytes, file: file)
    }

    /// This config with the state directory's imported settings applied over the config file's
    /// `bytes` (ImportedSettings), or as it is, with `imported` saying why not.
    func withImportedSettings(from bytes: [UInt8]?, file: String) -> Config {
        var alone = self
        let (merged, outcome) = ImportedSettings.applying(toConfig: bytes, stateDirectory: stateDirectory)
        alone.imported = outcome
        guard case .applied(_, let importedFile) = outcome, let merged else { return alone }
        do {
            var config = try Config.parse(merged, file: file.isEmpty ? importedFile : file)
            config.file = file
            config.imported = outcome
            return config
        } catch {
            alone.imported = .ignored(file: importedFile, reason: "the config does not parse with them: \(error)")
            return alone
        }
    }
}
