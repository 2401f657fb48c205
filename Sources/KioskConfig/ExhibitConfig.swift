// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// Exhibit mode (`exhibit` in config.json, or `exhibit.json` at a stick's top for its clips): clips
/// bound to inputs with trigger rules, an attract loop, clip sets per language, opening hours and
/// the staff's volume range.
///
/// Thread: a value; any.
public struct ExhibitConfig: Sendable, Equatable {
    /// What starts a clip.
    public enum Input: Sendable, Equatable, CustomStringConvertible {
        /// A board button by its profile name ("A", "b22").
        case button(String)
        /// An evdev or keyboard key ("KEY_1").
        case key(String)
        /// A card's UID as the reader gives it.
        case card(String)

        public var description: String {
            switch self {
            case .button(let name): "button \(name)"
            case .key(let name): "key \(name)"
            case .card(let uid): "card \(uid)"
            }
        }
    }

    /// What a clip or the attract loop plays.
    public enum Source: Sendable, Equatable {
        /// A file, relative to a volume's root (and to the language's folder when there are languages).
        case file(String)
        /// A collection (album, playlist or folder) by its name.
        case collection(String)
        /// Every track under a folder of the stick (relative to its top), in the library's order.
        case folder(String)
    }

    /// How an input's presses act on its clip.
    public enum Mode: String, Sendable, Equatable, CaseIterable {
        /// Plays to its end; presses of its input meanwhile do nothing.
        case oneShot
        /// A press while it plays starts it again.
        case retrigger
        /// Plays while the input is held (a lid lifted, a handset off the hook); the release stops it.
        case holdToPlay
        /// A press starts it, the next press stops it.
        case toggle
    }

    /// Which playing clips a clip may cut.
    public enum Interrupts: Sendable, Equatable {
        case all
        case none
        case only([String])

        public func allows(_ playing: String) -> Bool {
            switch self {
            case .all: true
            case .none: false
            case .only(let names): names.contains(playing)
            }
        }
    }

    public struct Clip: Sendable, Equatable {
        public var name: String
        public var input: Input
        public var play: Source
        public var mode: Mode
        public var interrupts: Interrupts

        public init(name: String, input: Input, play: Source, mode: Mode = .oneShot, interrupts: Interrupts = .all) {
            self.name = name
            self.input = input
            self.play = play
            self.mode = mode
            self.interrupts = interrupts
        }
    }

    /// The loop played when nobody is there, `returnAfterSeconds` of silence after a clip.
    public struct Attract: Sendable, Equatable {
        public var play: Source
        public var returnAfterSeconds: Double
        public var fadeMs: Int

        public init(play: Source, returnAfterSeconds: Double = 5, fadeMs: Int = 800) {
            self.play = play
            self.returnAfterSeconds = returnAfterSeconds
            self.fadeMs = fadeMs
        }
    }

    /// A clip set: the clips' files are looked up in `folder` first.
    public struct Language: Sendable, Equatable {
        public var name: String
        public var folder: String
        /// The attract card's invitation in this language (nil: `screen.prompt`).
        public var prompt: String? = nil
    }

    /// What the screen shows visitors (a board with a screen): the exhibit layout, or nothing.
    public struct Screen: Sendable, Equatable {
        public enum Show: String, Sendable, Equatable, CaseIterable {
            /// The attract card while waiting, the clip's title and progress while one plays.
            case layout
            /// Dark while in exhibit mode (the staff's menu still shows behind its chord).
            case none
        }

        public var show = Show.layout
        /// The attract card's invitation.
        public var prompt = "Press a button"

        public init(show: Show = .layout, prompt: String = "Press a button") {
            self.show = show
            self.prompt = prompt
        }
    }

    /// The staff's volume: where it starts and comes back to, and the visitor's range.
    public struct Volume: Sendable, Equatable {
        public var initial = 50
        public var min = 0
        public var max = 100
        /// After this long without input the visitor has gone: volume and language go back.
        public var visitorIdleSeconds = 60

        public init(initial: Int = 50, min: Int = 0, max: Int = 100, visitorIdleSeconds: Int = 60) {
            self.initial = initial
            self.min = min
            self.max = max
            self.visitorIdleSeconds = visitorIdleSeconds
        }
    }

    public var clips: [Clip] = []
    public var attract: Attract?
    public var languages: [Language] = []
    /// The input that cycles the languages (a press: the next one, for the next clip).
    public var languageInput: Input?
    public var hours: [OpeningHours] = []
    /// A daily restart at this local time (minutes since midnight; nil: none, the default). Not
    /// needed (the soak holds memory and timing flat for hours); for staff who want one anyway, in
    /// place of a cron reboot: the player exits cleanly and systemd starts it again.
    public var restartAt: Int?
    public var volume = Volume()
    public var screen = Screen()

    public init() {}

    public func clip(named name: String) -> Clip? { clips.first { $0.name == name } }

    public func clip(for input: Input) -> Clip? { clips.first { $0.input == input } }

    // MARK: - parsing

    /// Reads the `exhibit` object; errors name the key (`exhibit.clips[1].mode`).
    public static func parse(_ r: JSONReader) throws(ConfigError) -> ExhibitConfig {
        var c = ExhibitConfig()
        c.clips = try parseClips(r)
        if let a = try r.object("attract") { c.attract = try parseAttract(a) }
        c.languages = try parseLanguages(r)
        if let input = try r.object("languageInput") {
            let parsed = try parseInput(input)
            if let clip = c.clips.first(where: { $0.input == parsed }) {
                throw r.error("languageInput", "\(parsed) already plays \"\(clip.name)\"")
            }
            c.languageInput = parsed
        }
        for item in try r.objects("hours", maxCount: 50) ?? [] {
            c.hours.append(try OpeningHours.parse(item))
        }
        if let text = try r.string("restartAt") {
            guard let minute = OpeningHours.parseTime(text) else {
                throw r.error("restartAt", "expected a time \"HH:MM\" (00:00…23:59), got \"\(text)\"")
            }
            c.restartAt = minute
        }
        if let v = try r.object("volume") {
            c.volume.initial = try v.int("default", range: 0...100) ?? c.volume.initial
            c.volume.min = try v.int("min", range: 0...100) ?? c.volume.min
            c.volume.max = try v.int("max", range: 0...100) ?? c.volume.max
            c.volume.visitorIdleSeconds =
                try v.int("visitorIdleSeconds", range: 5...3600) ?? c.volume.visitorIdleSeconds
            guard c.volume.min <= c.volume.max else {
                throw v.error("min", "\(c.volume.min) is above max \(c.volume.max)")
            }
            guard (c.volume.min...c.volume.max).contains(c.volume.initial) else {
                throw v.error("default", "\(c.volume.initial) is outside min…max (\(c.volume.min)…\(c.volume.max))")
            }
            try v.finish()
        }
        c.screen = try parseScreen(r)
        try r.finish()
        return c
    }

    /// `screen`: `"layout"` (the default), `"none"`, or an object `{"show": …, "prompt": …}`.
    private static func parseScreen(_ r: JSONReader) throws(ConfigError) -> Screen {
        guard let raw = r.raw("screen") else { return Screen() }
        if raw.string != nil { return Screen(show: try r.choice("screen", Screen.Show.self) ?? .layout) }
        guard raw.object != nil, let s = try r.object("screen") else {
            throw r.error(
                "screen", "expected \"layout\", \"none\" or {\"show\": …, \"prompt\": …}, got \(JSONReader.show(raw))")
        }
        var screen = Screen(show: try s.choice("show", Screen.Show.self) ?? .layout)
        if let prompt = try s.string("prompt") {
            try checkPrompt(prompt, s, "prompt")
            screen.prompt = prompt
        }
        try s.finish()
        return screen
    }

    /// A prompt is text a visitor can read on one card: some to show, not a page of it.
    private static func checkPrompt(_ prompt: String, _ r: JSONReader, _ key: String) throws(ConfigError) {
        if prompt.allSatisfy({ $0.isWhitespace || $0.isNewline }) {
            throw r.error(key, "expected text to show, got only spaces")
        }
        if prompt.count > 120 {
            throw r.error(key, "\(prompt.count) characters is too long for the screen (at most 120)")
        }
    }

    /// A stick's own station (`exhibit.json` at its top): its `clips`, and optionally its `attract`
    /// loop and `languages`, replace those of config.json while it is in; the rest (hours, volume,
    /// the language input) stays the config's. The same errors as config.json, naming the file.
    public static func stickStation(_ r: JSONReader, over config: ExhibitConfig) throws(ConfigError) -> ExhibitConfig {
        var c = config
        c.clips = try parseClips(r)
        if c.clips.isEmpty { throw r.error("clips", "a station needs at least one clip") }
        if let a = try r.object("attract") { c.attract = try parseAttract(a) }
        if r.has("languages") { c.languages = try parseLanguages(r) }
        try r.finish()
        return c
    }

    /// The default station of a stick without `exhibit.json` (and a config without clips): its
    /// top-level folders in name order on the board's buttons in profile order, one-shot.
    public static func folderStation(folders: [String], buttons: [String], over config: ExhibitConfig)
        -> ExhibitConfig
    {
        var c = config
        c.clips = zip(folders, buttons).map { folder, button in
            Clip(name: folder, input: .button(button), play: .folder(folder))
        }
        return c
    }

    /// The clips of `r` (an `exhibit` object or a stick's `exhibit.json`): names and inputs unique,
    /// `interrupts` naming clips that exist.
    public static func parseClips(_ r: JSONReader) throws(ConfigError) -> [Clip] {
        var clips: [Clip] = []
        var interruptKeys: [(JSONReader, [String])] = []
        for item in try r.objects("clips", maxCount: 256) ?? [] {
            guard let name = try item.string("name") else { throw item.error("name", "a clip needs a name") }
            if clips.contains(where: { $0.name == name }) { throw item.error("name", "\"\(name)\" is used twice") }
            guard let inputObject = try item.object("input") else {
                throw item.error("input", "a clip needs an input: {\"button\": …}, {\"key\": …} or {\"card\": …}")
            }
            let input = try parseInput(inputObject)
            if let other = clips.first(where: { $0.input == input }) {
                throw item.error("input", "\(input) already plays \"\(other.name)\"")
            }
            guard item.has("play") else {
                throw item.error("play", "a clip needs \"play\": a file or {\"collection\": …}")
            }
            let play = try source(item, "play")
            let mode = try item.choice("mode", Mode.self) ?? .oneShot
            var interrupts = Interrupts.all
            if let raw = item.raw("interrupts") {
                if let text = raw.string, text == "all" || text == "none" {
                    interrupts = text == "all" ? .all : .none
                } else if raw.array != nil, let names = try item.strings("interrupts", maxCount: 256) {
                    interrupts = .only(names)
                    interruptKeys.append((item, names))
                } else {
                    throw item.error(
                        "interrupts",
                        "expected \"all\", \"none\" or a list of clip names, got \(JSONReader.show(raw))")
                }
            }
            try item.finish()
            clips.append(Clip(name: name, input: input, play: play, mode: mode, interrupts: interrupts))
        }
        for (item, names) in interruptKeys {
            for name in names where !clips.contains(where: { $0.name == name }) {
                throw item.error("interrupts", "no clip is named \"\(name)\"")
            }
        }
        return clips
    }

    private static func parseAttract(_ a: JSONReader) throws(ConfigError) -> Attract {
        guard a.has("play") else { throw a.error("play", "the attract loop needs \"play\"") }
        var attract = Attract(play: try source(a, "play"))
        attract.returnAfterSeconds = try a.double("returnAfterSeconds", range: 0...3600) ?? attract.returnAfterSeconds
        attract.fadeMs = try a.int("fadeMs", range: 0...10_000) ?? attract.fadeMs
        try a.finish()
        return attract
    }

    private static func parseLanguages(_ r: JSONReader) throws(ConfigError) -> [Language] {
        var languages: [Language] = []
        for item in try r.objects("languages", maxCount: 16) ?? [] {
            guard let name = try item.string("name") else { throw item.error("name", "a language needs a name") }
            guard let folder = try item.string("folder") else {
                throw item.error("folder", "a language needs a folder")
            }
            try checkRelative(folder, item, "folder")
            if languages.contains(where: { $0.name == name }) {
                throw item.error("name", "\"\(name)\" is listed twice")
            }
            let prompt = try item.string("prompt")
            if let prompt { try checkPrompt(prompt, item, "prompt") }
            try item.finish()
            languages.append(Language(name: name, folder: folder, prompt: prompt))
        }
        return languages
    }

    private static func parseInput(_ r: JSONReader) throws(ConfigError) -> Input {
        let kinds = ["button", "key", "card"].filter { r.has($0) }
        guard kinds.count == 1 else {
            throw r.error(
                kinds.first ?? "button", "expected exactly one of \"button\", \"key\" or \"card\"")
        }
        let input: Input
        switch kinds[0] {
        case "button": input = .button(try r.string("button") ?? "")
        case "key":
            let key = try r.string("key") ?? ""
            guard key.hasPrefix("KEY_") || key.hasPrefix("BTN_") else {
                throw r.error("key", "expected an evdev key name such as \"KEY_1\", got \"\(key)\"")
            }
            input = .key(key)
        default: input = .card(try r.string("card") ?? "")
        }
        try r.finish()
        return input
    }

    /// A path relative to a volume's root, or `{"collection": NAME}`.
    private static func source(_ r: JSONReader, _ key: String) throws(ConfigError) -> Source {
        if r.raw(key)?.object != nil, let object = try r.object(key) {
            if object.has("folder") {
                guard let folder = try object.string("folder") else {
                    throw object.error("folder", "expected a folder")
                }
                try checkRelative(folder, object, "folder")
                try object.finish()
                return .folder(folder)
            }
            guard let name = try object.string("collection") else {
                throw object.error("collection", "expected {\"collection\": NAME} or a file's path")
            }
            try object.finish()
            return .collection(name)
        }
        guard let path = try r.string(key) else {
            throw r.error(key, "expected a file's path or {\"collection\": NAME}")
        }
        try checkRelative(path, r, key)
        return .file(path)
    }

    /// A path on the stick: relative, with no `..` (nothing outside the volume).
    private static func checkRelative(_ path: String, _ r: JSONReader, _ key: String) throws(ConfigError) {
        if path.hasPrefix("/") || path.split(separator: "/").contains("..") || path.utf8.contains(0) {
            throw r.error(key, "\"\(path)\" must be a path inside the stick (relative, no \"..\")")
        }
    }
}
