// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel

/// What exhibit mode's visitor screen needs from the exhibit session, taken once per refresh
/// (`PlayerView.exhibit`). Thread: a value; any.
struct ExhibitView: Equatable {
    var show = ExhibitConfig.Screen.Show.layout
    /// Outside opening hours: the screen is off.
    var closed = false
    /// The attract card's invitation, in the language in use when it has its own.
    var prompt = "Press a button"
    /// The clip playing: the title of its track playing, else the clip's name (nil: waiting).
    var clipTitle: String?
    /// The clip set in use, when there are several to tell apart.
    var language: String?
}

/// Exhibit mode's screen: the session's part of the view. Thread: the loop thread, like `Player`.
extension Player {
    /// The exhibit screen's inputs now (nil: not an exhibit).
    var exhibitView: ExhibitView? {
        guard let exhibit else { return nil }
        let config = exhibit.config
        let language = config.languages.indices.contains(exhibit.language) ? config.languages[exhibit.language] : nil
        var view = ExhibitView(show: config.screen.show, closed: exhibit.closed, prompt: config.screen.prompt)
        if let prompt = language?.prompt { view.prompt = prompt }
        if config.languages.count > 1 { view.language = language?.name }
        if let clip = exhibit.triggers.playing {
            // A file name ("03 Keeper v2.flac") says less to a visitor than the curator's clip name.
            let track = playQueue.current
            let tagged = track?.hasTitleTag == true ? DisplayFormat.singleLine(track?.title ?? "") : ""
            view.clipTitle = tagged.isEmpty ? clip : tagged
        }
        return view
    }
}
