// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel
import KioskSystem

/// The bedtime rules (config `bedtime`, the `BedtimeRules` part) as the player applies them: every
/// start of playback asks them first (`bedtimeAdmits`: a start from a button, a card, a remote
/// client or a restored queue), a refusal says why on the screen and aloud; the announcement
/// before the end shows, is said and blinks the light; the end fades and stops; the parent's
/// card or chord turns the rules off until the reset hour, or on again. The counts go to
/// `bedtime.json` through the state writer. Thread: the loop thread, like `Player`.
extension Player {
    /// Starts the rules with what was saved (at the player's start).
    func startBedtime() {
        guard let rules = config.bedtime else { return }
        bedtime = BedtimeRules(config: rules, local: env.wallClock.local)
        let saved = BedtimeStore.load(directory: config.stateDirectory)
        let reading = bedtimeReading()
        if !reading.synchronized {
            Log.warning(
                "bedtime: \(env.wallClock.unsynchronized() ?? "the clock is not synchronized"): the windows and the wake time wait for it; the budget counts from the last known time"
            )
        }
        apply(bedtime?.handle(.restarted(saved, reading)) ?? [])
    }

    /// New rules from the phone page (nil: none), in force at once: the day's counts carry over,
    /// and what plays now is asked about again (it stops when the new rules refuse it).
    func replaceBedtime(_ rules: BedtimeConfig?) {
        guard rules != bedtime?.config else { return }
        let counts = bedtime?.state ?? BedtimeStore.load(directory: config.stateDirectory)
        if bedtime?.isEnding ?? false { apply([.engine(.cancelFade)]) }
        guard let rules else {
            bedtime = nil
            Log.notice("bedtime: rules off")
            return
        }
        bedtime = BedtimeRules(config: rules, local: env.wallClock.local)
        apply(bedtime?.handle(.restarted(counts, bedtimeReading())) ?? [])
        Log.notice("bedtime: new rules in force")
        if status == .playing, !bedtimeAdmits(currentTrack?.relativePath) { stop() }
    }

    /// The clocks now.
    func bedtimeReading() -> BedtimeRules.Reading {
        BedtimeRules.Reading(
            wallSeconds: env.wallClock.seconds(), monotonicNs: scheduler.nowNanoseconds,
            synchronized: env.wallClock.unsynchronized() == nil)
    }

    /// Whether the rules let the track at `relativePath` (inside its stick; nil: unknown) start
    /// playing now; a refusal is shown and said. Always true without rules.
    func bedtimeAdmits(_ relativePath: String?) -> Bool {
        guard bedtime != nil else { return true }
        let item = bedtimeItem(relativePath)
        let effects = bedtime?.handle(.playRequested(item, bedtimeReading())) ?? []
        apply(effects)
        return !effects.contains { if case .bedtime(.refused) = $0 { true } else { false } }
    }

    /// The engine went on to the next track while playing: the rules look at it (a bedtime item
    /// ends where the next track is not one, the one more story after its track).
    func bedtimeTrackChanged() {
        guard bedtime != nil, status == .playing, let track = currentTrack else { return }
        apply(bedtime?.handle(.trackChanged(bedtimeItem(track.relativePath), bedtimeReading())) ?? [])
    }

    /// After any change: a stop or pause ends what the rules count; a start they were not asked
    /// about (none is known) is asked now.
    func followBedtime() {
        guard let rules = bedtime, rules.isPlaying != (status == .playing) else { return }
        if status != .playing {
            apply(bedtime?.handle(.playStopped(bedtimeReading())) ?? [])
        } else if !bedtimeAdmits(currentTrack?.relativePath ?? restore.playingAloneState?.relativePath) {
            stop()
        }
    }

    /// The rules' timer rang: the screen is drawn again only when they did more than count.
    func bedtimeTicked() {
        let effects = bedtime?.handle(.tick(bedtimeReading())) ?? []
        apply(effects)
        let counted = effects.allSatisfy {
            switch $0 {
            case .armBedtime, .bedtime(.save): true
            default: false
            }
        }
        if !counted { refreshScreen() }
    }

    /// The parent's card or chord: the rules off until the reset hour, or on again.
    func parentOverride() {
        guard bedtime != nil else {
            Log.info("the parent's override: no bedtime rules are configured")
            return
        }
        apply(bedtime?.handle(.parentOverride(bedtimeReading())) ?? [])
    }

    /// Whether the announcement was made and the end is coming (the light blinks).
    var isBedtimeEnding: Bool { (bedtime?.isEnding ?? false) && status == .playing }

    /// What the rules see in the track at `relativePath`: one of the bedtime items (a folder, a
    /// file, or what a bedtime card plays)?
    private func bedtimeItem(_ relativePath: String?) -> BedtimeRules.Item {
        let path = relativePath ?? ""
        let items = bedtime?.config.items ?? []
        let isItem = items.contains { item in
            guard case .card(let uid) = item else { return item.admits(relativePath: path) }
            return cardPlays(uid, relativePath: path)
        }
        return BedtimeRules.Item(key: path, isBedtimeItem: isItem)
    }

    /// Whether the card `uid` plays the track at `relativePath`: its collection is the queue's, or
    /// holds that track (a one-track card's queue has no collection).
    private func cardPlays(_ uid: CardUID, relativePath: String) -> Bool {
        guard case .collection(let wanted) = cards.link(of: uid) else { return false }
        if let playing = queueCollection, playing.category == wanted.category, playing.key == wanted.key {
            return true
        }
        guard let collection = resolve(wanted), let catalog else { return false }
        return catalog.tracks(of: collection).contains { $0.relativePath == relativePath }
    }

    /// Shows and says what the rules decided.
    func tellBedtime(_ outcome: BedtimeRules.Outcome) {
        let message: MessageState
        switch outcome {
        case .refused(let reason), .ended(let reason):
            message = Self.bedtimeMessage(reason)
        case .oneMore:
            message = MessageState(title: "One more story", detail: "then it is sleep time")
        case .warning(let minutes, let reason):
            message = MessageState(title: Self.warningText(minutes: minutes, reason))
        case .overridden(let on, let resetAt):
            message =
                on
                ? MessageState(title: "Bedtime rules off", detail: "until \(OpeningHours.text(resetAt))")
                : MessageState(title: "Bedtime rules on")
        case .save:
            return
        }
        showTransient(message, seconds: 6)
        // With speech off the announcer says nothing: the rules' words are said anyway.
        if announcer.mode == .off, bedtime?.config.speak ?? false { send(.speak(SpokenForm.text(message))) }
    }

    /// "Two more minutes, then it is sleep time".
    static func warningText(minutes: Int, _ reason: BedtimeRules.Reason) -> String {
        let numbers = ["One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten"]
        let count = (1...10).contains(minutes) ? numbers[minutes - 1] : "\(minutes)"
        let then: String
        if case .budgetSpent = reason { then = "listening time is over for today" } else { then = "it is sleep time" }
        return "\(count) more minute\(minutes == 1 ? "" : "s"), then \(then)"
    }

    /// Why the box does not play, as the screen and the voice say it.
    static func bedtimeMessage(_ reason: BedtimeRules.Reason) -> MessageState {
        switch reason {
        case .silentNight(let wake):
            MessageState(title: "Sleep time", detail: "The box plays again at \(OpeningHours.text(wake))")
        case .outsideWindow(let opens):
            MessageState(
                title: "Sleep time", detail: opens.map { "The box plays again at \(OpeningHours.text($0))" })
        case .budgetSpent:
            MessageState(title: "Listening time is over for today", detail: "More tomorrow")
        }
    }
}
