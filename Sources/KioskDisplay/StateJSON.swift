// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem

/// Screen states from JSON, for `kiosk-player render --state` and demos. Keys are the property
/// names of the state types (`title`, `elapsedSeconds`, `items[].subtitle` …); unknown keys are
/// errors naming their key path.
extension ScreenState {
    /// The screen names `kiosk-player render` accepts.
    public static let screenNames = ["now-playing", "browse", "help", "message", "exhibit", "off"]

    /// Parses the state of screen `screen` from `reader` (a JSON object); nil reader: the sample.
    public static func parse(screen: String, _ reader: JSONReader?) throws(ConfigError) -> ScreenState {
        switch screen {
        case "now-playing":
            guard let r = reader else { return .nowPlaying(SampleScreens.nowPlaying) }
            var s = NowPlayingState()
            s.title = try r.string("title", nonEmpty: false)
            s.artist = try r.string("artist", nonEmpty: false)
            s.album = try r.string("album", nonEmpty: false)
            s.elapsedSeconds = try r.double("elapsedSeconds", range: 0...1e7) ?? 0
            s.totalSeconds = try r.double("totalSeconds", range: 0...1e7)
            s.playback =
                try r.choice("playback", PlaybackState.allCases.map(\.rawValue)).flatMap(PlaybackState.init)
                ?? .playing
            s.categoryLabel = try r.string("categoryLabel", nonEmpty: false) ?? "Album"
            s.queuePosition = try r.int("queuePosition", range: 0...1_000_000) ?? 0
            s.queueCount = try r.int("queueCount", range: 0...1_000_000) ?? 0
            s.artworkKey = try r.string("artworkKey")
            s.volumeOverlay = try r.int("volumeOverlay", range: 0...100)
            s.statusLine = try r.string("statusLine", nonEmpty: false)
            try r.finish()
            return .nowPlaying(s)
        case "browse":
            guard let r = reader else { return .browse(SampleScreens.browse) }
            var items: [BrowseItem] = []
            for item in try r.objects("items", maxCount: 100_000) ?? [] {
                guard let title = try item.string("title", nonEmpty: false) else {
                    throw item.error("title", "required")
                }
                items.append(
                    BrowseItem(
                        title: title, subtitle: try item.string("subtitle", nonEmpty: false),
                        artworkKey: try item.string("artworkKey")))
                try item.finish()
            }
            let state = BrowseState(
                categoryLabel: try r.string("categoryLabel", nonEmpty: false) ?? "Albums", items: items,
                selectedIndex: try r.int("selectedIndex", range: 0...1_000_000) ?? 0)
            try r.finish()
            return .browse(state)
        case "help":
            guard let r = reader else { return .help(SampleScreens.help) }
            var entries: [HelpEntry] = []
            for entry in try r.objects("entries", maxCount: 1000) ?? [] {
                guard let control = try entry.string("control"), let action = try entry.string("action") else {
                    throw entry.error(entry.has("control") ? "action" : "control", "required")
                }
                entries.append(HelpEntry(control: control, action: action))
                try entry.finish()
            }
            let state = HelpState(
                title: try r.string("title", nonEmpty: false) ?? "Buttons", entries: entries,
                page: try r.int("page", range: 0...10_000) ?? 0)
            try r.finish()
            return .help(state)
        case "message":
            guard let r = reader else { return .message(SampleScreens.insertStick) }
            guard let title = try r.string("title", nonEmpty: false) else { throw r.error("title", "required") }
            let state = MessageState(
                title: title, detail: try r.string("detail", nonEmpty: false),
                kind: try r.choice("kind", MessageState.Kind.allCases.map(\.rawValue)).flatMap(MessageState.Kind.init)
                    ?? .info)
            try r.finish()
            return .message(state)
        case "exhibit":
            guard let r = reader else { return .exhibit(SampleScreens.exhibitAttract) }
            var s = ExhibitScreenState()
            s.prompt = try r.string("prompt", nonEmpty: false) ?? s.prompt
            s.clipTitle = try r.string("clipTitle", nonEmpty: false)
            s.elapsedSeconds = try r.double("elapsedSeconds", range: 0...1e7) ?? 0
            s.totalSeconds = try r.double("totalSeconds", range: 0...1e7)
            s.language = try r.string("language", nonEmpty: false)
            s.volumeOverlay = try r.int("volumeOverlay", range: 0...100)
            try r.finish()
            return .exhibit(s)
        case "off":
            try reader?.finish()
            return .off
        default:
            throw ConfigError(
                file: "", path: "",
                message: "unknown screen \"\(screen)\"; screens are: \(screenNames.joined(separator: ", "))")
        }
    }
}

/// Fixed example states: the defaults of `kiosk-player render`, and the golden-image tests' input.
public enum SampleScreens {
    /// The artwork key the samples use; `SampleScreens.artwork` draws a picture for it.
    public static let artworkKey = "sample-cover"

    public static let nowPlaying = NowPlayingState(
        title: "Blue Train Station", artist: "The Night Owls", album: "Late Hours", elapsedSeconds: 83,
        totalSeconds: 247, playback: .playing, categoryLabel: "Album", queuePosition: 3, queueCount: 12,
        artworkKey: artworkKey)

    public static let browse = BrowseState(
        categoryLabel: "Albums",
        items: [
            ("Abbey Lane", "The Pebbles · 17 tracks"), ("Blue Train Station", "The Night Owls · 12 tracks"),
            ("Cello Suites", "J. S. Bach · 36 tracks"), ("Dark Side of the Lune", "Pink Fluid · 10 tracks"),
            ("Enter the Wu", "Wu Clan · 13 tracks"), ("Four Seasons", "A. Vivaldi · 12 tracks"),
            ("Goldberg Variations", "J. S. Bach · 32 tracks"), ("Hounds of Love", "K. B. · 12 tracks"),
            ("In Rainbows", "Radio Tower · 10 tracks"), ("Jagged Little Pill", "A. M. · 12 tracks"),
            ("夜に駆ける", "YOASOBI · 1 track"), ("Kind of Blue", "M. D. Quintet · 5 tracks"),
        ].enumerated().map { index, item in
            BrowseItem(title: item.0, subtitle: item.1, artworkKey: index % 3 == 1 ? artworkKey : nil)
        },
        selectedIndex: 4)

    public static let help = HelpState(
        title: "Buttons",
        entries: [
            HelpEntry(control: "A", action: "Play / pause"), HelpEntry(control: "B", action: "Next track"),
            HelpEntry(control: "Hold B", action: "Previous track"), HelpEntry(control: "X", action: "Volume up"),
            HelpEntry(control: "Y", action: "Volume down"), HelpEntry(control: "Hold A", action: "Next category"),
            HelpEntry(control: "Hold X", action: "Browse albums"), HelpEntry(control: "Hold Y", action: "Help"),
            HelpEntry(control: "Hold A+X", action: "Shut down"),
        ], page: 0)

    public static let insertStick = MessageState(
        title: "Insert a USB stick with music", detail: "Music starts as soon as it is found.", kind: .info)

    public static let scanning = MessageState(
        title: "Scanning…", detail: "\(DisplayFormat.grouped(1234)) tracks found", kind: .progress)

    public static let deviceUnplugged = MessageState(
        title: "Audio device unplugged", detail: "Plug it back in to continue playing.", kind: .error)

    /// Exhibit mode's attract card, with the language of a two-language exhibit.
    public static let exhibitAttract = ExhibitScreenState(prompt: "Press a button", language: "English")

    /// Exhibit mode's screen while a clip plays.
    public static let exhibitClip = ExhibitScreenState(
        prompt: "Press a button", clipTitle: "The Lighthouse Keeper's Story", elapsedSeconds: 47, totalSeconds: 132,
        language: "Deutsch")

    /// A deterministic stand-in cover: diagonal gradient, a sun and hills.
    public static func artwork(size: Int = 300) -> Image {
        var pixels = [UInt32](repeating: 0, count: size * size)
        let s = Double(size)
        for y in 0..<size {
            for x in 0..<size {
                let t = (Double(x) + Double(y)) / (2 * s)
                var color = Color(rgb: 0x1E3C72).mixed(with: Color(rgb: 0xF7797D), t)
                let dx = Double(x) - s * 0.68
                let dy = Double(y) - s * 0.34
                let sun = (dx * dx + dy * dy).squareRoot()
                if sun < s * 0.16 {
                    color = Color(rgb: 0xFFE29A).mixed(with: color, max(0, sun - s * 0.15) / (s * 0.01))
                }
                let hill = s * (0.72 + 0.08 * sin(Double(x) / s * 6.3))
                if Double(y) > hill {
                    color = Color(rgb: 0x1B2A3A).mixed(with: Color(rgb: 0x2C5364), (Double(y) - hill) / s)
                }
                pixels[y * size + x] = color.argb
            }
        }
        return Image(width: size, height: size, pixels: pixels)
    }
}
