// SPDX-License-Identifier: GPL-3.0-or-later
/// Whether the player is playing. Thread: a value.
public enum PlaybackState: String, Sendable, Equatable, CaseIterable {
    case playing, paused, stopped
}

/// What the now-playing screen shows. Plain values: tests and `kiosk-player render` can build any
/// of them. Thread: a value.
public struct NowPlayingState: Sendable, Equatable {
    public var title: String?
    public var artist: String?
    public var album: String?
    public var elapsedSeconds: Double
    /// nil when unknown (shown as "--:--").
    public var totalSeconds: Double?
    public var playback: PlaybackState
    /// The category the queue came from, e.g. "Album".
    public var categoryLabel: String
    /// 1-based position of the current track in the queue.
    public var queuePosition: Int
    public var queueCount: Int
    /// Cache key of the artwork (e.g. the collection id), given to `Display.provideArtwork`.
    public var artworkKey: String?
    /// Volume in percent to show in an overlay; the display hides it 1.5 s after it last changed
    /// (or at once when set back to nil).
    public var volumeOverlay: Int?
    /// The volumes the limits allow (config `volumeMin`…`volumeMax`), marked on the overlay's bar.
    public var volumeRange: ClosedRange<Int>
    /// A warning shown in a banner, e.g. "Audio device unplugged".
    public var statusLine: String?

    public init(
        title: String? = nil, artist: String? = nil, album: String? = nil, elapsedSeconds: Double = 0,
        totalSeconds: Double? = nil, playback: PlaybackState = .stopped, categoryLabel: String = "Album",
        queuePosition: Int = 0, queueCount: Int = 0, artworkKey: String? = nil, volumeOverlay: Int? = nil,
        volumeRange: ClosedRange<Int> = 0...100, statusLine: String? = nil
    ) {
        self.title = title
        self.artist = artist
        self.album = album
        self.elapsedSeconds = elapsedSeconds
        self.totalSeconds = totalSeconds
        self.playback = playback
        self.categoryLabel = categoryLabel
        self.queuePosition = queuePosition
        self.queueCount = queueCount
        self.artworkKey = artworkKey
        self.volumeOverlay = volumeOverlay
        self.volumeRange = volumeRange
        self.statusLine = statusLine
    }
}

/// One row of a browse list. Thread: a value.
public struct BrowseItem: Sendable, Equatable {
    public var title: String
    /// e.g. "Artist · 12 tracks".
    public var subtitle: String?
    public var artworkKey: String?

    public init(title: String, subtitle: String? = nil, artworkKey: String? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.artworkKey = artworkKey
    }
}

/// A list of collections of one category, with a selection. Thread: a value.
public struct BrowseState: Sendable, Equatable {
    public var categoryLabel: String
    public var items: [BrowseItem]
    public var selectedIndex: Int

    public init(categoryLabel: String, items: [BrowseItem], selectedIndex: Int = 0) {
        self.categoryLabel = categoryLabel
        self.items = items
        self.selectedIndex = selectedIndex
    }
}

/// One line of a help page: a control and what it does. Thread: a value.
public struct HelpEntry: Sendable, Equatable {
    /// e.g. "A", "Hold X", "Knob ↻".
    public var control: String
    /// e.g. "Play / pause".
    public var action: String

    public init(control: String, action: String) {
        self.control = control
        self.action = action
    }
}

/// The button map, paged. `page` counts from 0 and wraps around the number of pages the screen
/// size allows (`ScreenLayout.helpPageCount`). Thread: a value.
public struct HelpState: Sendable, Equatable {
    public var title: String
    public var entries: [HelpEntry]
    public var page: Int

    public init(title: String, entries: [HelpEntry], page: Int = 0) {
        self.title = title
        self.entries = entries
        self.page = page
    }
}

/// A full-screen message. Thread: a value.
public struct MessageState: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case info, progress, error
    }

    public var title: String
    public var detail: String?
    public var kind: Kind

    public init(title: String, detail: String? = nil, kind: Kind = .info) {
        self.title = title
        self.detail = detail
        self.kind = kind
    }
}

/// What the exhibit screen shows to visitors: the attract card ("Press a button") while nobody
/// is there, or the clip playing with its progress; the clip set's language when there are several.
/// Thread: a value.
public struct ExhibitScreenState: Sendable, Equatable {
    /// The attract card's invitation, e.g. "Press a button".
    public var prompt: String
    /// The title of the clip playing (nil: waiting, the attract card shows).
    public var clipTitle: String?
    public var elapsedSeconds: Double
    /// nil when unknown (shown as "--:--").
    public var totalSeconds: Double?
    /// The clip set in use; nil when there is only one (nothing to tell apart).
    public var language: String?
    /// Volume in percent for the overlay (the visitor's knob), hidden 1.5 s after it last changed.
    public var volumeOverlay: Int?
    /// The staff's range, marked on the overlay's bar.
    public var volumeRange: ClosedRange<Int>

    public init(
        prompt: String = "Press a button", clipTitle: String? = nil, elapsedSeconds: Double = 0,
        totalSeconds: Double? = nil, language: String? = nil, volumeOverlay: Int? = nil,
        volumeRange: ClosedRange<Int> = 0...100
    ) {
        self.prompt = prompt
        self.clipTitle = clipTitle
        self.elapsedSeconds = elapsedSeconds
        self.totalSeconds = totalSeconds
        self.language = language
        self.volumeOverlay = volumeOverlay
        self.volumeRange = volumeRange
    }
}

/// Everything the screen can show. Thread: a value.
public enum ScreenState: Sendable, Equatable {
    case nowPlaying(NowPlayingState)
    case browse(BrowseState)
    case help(HelpState)
    case message(MessageState)
    /// Exhibit mode's visitor screen.
    case exhibit(ExhibitScreenState)
    /// Dark screen (the surface turned off where it can be).
    case off
}

/// Text formats used on the screens. Thread: any (pure functions).
public enum DisplayFormat {
    /// "3:07", "1:02:03"; "--:--" for nil or a non-finite value.
    public static func time(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite else { return "--:--" }
        let total = max(0, Int(seconds.rounded(.down)))
        let h = total / 3600
        let m = total / 60 % 60
        let s = total % 60
        let ss = s < 10 ? "0\(s)" : "\(s)"
        if h > 0 { return "\(h):\(m < 10 ? "0\(m)" : "\(m)"):\(ss)" }
        return "\(m):\(ss)"
    }

    /// "1 234 567" with thin spaces between groups of three digits.
    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "\u{2009}" }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }

    /// Control characters replaced by spaces, runs of whitespace collapsed, ends trimmed.
    public static func singleLine(_ text: String) -> String {
        var result = ""
        var lastWasSpace = true
        for scalar in text.unicodeScalars {
            let isSpace =
                scalar.value < 0x20 || scalar.value == 0x7F || scalar == " " || (0x80...0x9F).contains(scalar.value)
            if isSpace {
                if !lastWasSpace { result += " " }
                lastWasSpace = true
            } else {
                result.unicodeScalars.append(scalar)
                lastWasSpace = false
            }
        }
        while result.last == " " { result.removeLast() }
        return result
    }
}
