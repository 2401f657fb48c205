// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// Navigation: what each action does on each screen (now playing, browse, help, menu, cards, setup
/// check), and moving through the categories and the browse list (`Navigation`).
/// Thread: the loop thread, like `Player`.
extension Player {
    /// The categories in the order next/previous category cycles through them.
    public static let categoryCycle = Navigation.categoryCycle

    /// Applies one action. The effect depends on the mode; volume works everywhere.
    ///
    /// While the button lock is on, only `lock` gets through (`Player+Lock.swift`).
    /// In every mode: volume up/down change the volume; shutdown asks the appliance to shut down;
    /// while a transient message (e.g. "USB stick removed") shows, any other action only dismisses
    /// it. With nothing queued the now-playing screen shows the browse list, and the actions act
    /// as in browse mode.
    public func handle(_ event: ActionEvent) {
        scheduler.assertInLoop()
        guard !shuttingDown else { return }
        guard lockAdmits(event) else { return }
        inputCame()
        if inputCancelsSleepFade() { return }
        let steps = max(1, event.steps)
        if isExhibit {
            // Visitors have the volume (within the staff's range) and nothing else: no browse, no menu.
            switch event.action {
            case .volumeUp, .volumeDown: visitorCame()
            case .shutdown, .lock: break
            // The staff's way in: the menu on a chord (held 5 s on `exhibit-4`); in it they move on.
            case .menu where event.source.hasPrefix("chord"): break
            default: if navigation.mode == .nowPlaying { return }
            }
        }
        switch event.action {
        // The volume and shutdown redraw by themselves.
        case .volumeUp: return changeVolume(by: Self.volumeStep * steps)
        case .volumeDown: return changeVolume(by: -Self.volumeStep * steps)
        case .shutdown: return requestShutdown()
        case .shuffle: cycleShuffle()
        case .sleep: cycleSleepTimer()
        case .lock: toggleLock()
        case .parentOverride: parentOverride()
        case .bluetooth: toggleHeadphones()
        case .bluetoothPair: pairHeadphones()
        default:
            if answerStickOffer(event.action) { break }
            if answerCardPrompt(event.action) { break }
            if transientMessage != nil {
                // Any other press dismisses a transient message first and does nothing else.
                clearTransient()
                break
            }
            apply(navigation.handle(.action(event, navigationContext)))
        }
        refreshScreen()
    }

    /// Shows screen `mode`.
    func show(_ mode: PlayerMode) { apply(navigation.handle(.show(mode))) }

    /// What the screens' tables (`Navigation.handle`) need to know of the rest of the player.
    private var navigationContext: Navigation.Context {
        Navigation.Context(
            idle: isIdle, playing: queueCollection, repeatQueue: repeatQueue, helpPages: helpPageCount,
            menuEntries: menuEntries.count, hasSetupCheck: !setupCheckMenuEntry.isEmpty,
            setupCheckEntries: setupCheckEntries.count, linkedCards: cards.links.count, linkGesture: linkGesture)
    }

    /// Menu entries; the output entry is always present so the device can be changed from the buttons.
    public var menuEntries: [String] {
        var entries = [
            "Output: \(outputDevice)",
            "Repeat: \(repeatQueue ? "on" : "off")",
            "Shuffle: \(shuffle.rawValue)",
            "Sleep: \(sleepRemainingSeconds.map { "\(($0 + 59) / 60) min" } ?? "off")",
            "Help",
            "Cards: \(cards.links.count) linked",
        ]
        entries.append(contentsOf: setupCheckMenuEntry)
        entries.append("Close")
        return entries
    }

    /// Plays the selected collection: where its bookmark left it (when it has one), else, or with
    /// `fromStart`, from its first track.
    func playSelection(fromStart: Bool = false) {
        let list = collections
        guard !list.isEmpty else { return }
        play(collection: list[selectedIndex], fromStart: fromStart)
    }
}
