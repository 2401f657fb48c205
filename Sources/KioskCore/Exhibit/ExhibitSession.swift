// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem

/// Exhibit mode's state in the player: the trigger rules (`ClipTriggers`), the language the next
/// clip is looked up in, when the visitor last touched anything (volume and language go back to the
/// staff's after `volume.visitorIdleSeconds`), the timer for the attract loop's return, whether the
/// opening hours have it closed, the play counts and what the heartbeat last said. Its state changes
/// only through its methods, each named for what happened; the player reads the rest.
///
/// Thread: the loop thread, like `Player`, which owns it.
final class ExhibitSession {
    /// config.json's exhibit.
    let base: ExhibitConfig
    /// What plays now: `base`, or a stick's own station (`exhibit.json`, or its folders on the
    /// buttons when neither names clips).
    private(set) var config: ExhibitConfig
    /// The volume whose station is in use (nil: config.json's).
    private(set) var stationVolume: String?
    /// Runs the staff stick's play-count export off the loop thread (`Player.stickExporter`).
    var stickExporter: ((_ mountPoint: String, _ csv: [UInt8]) -> Void)?
    /// The board's buttons in profile order, for the folder station (the appliance sets them).
    var buttons: [String] = []
    /// The wall clock of the opening hours and the day of the play counts (tests set their own).
    var clock = ExhibitClock.system
    private(set) var triggers: ClipTriggers
    /// Index into `config.languages` (0 when there are none).
    private(set) var language = 0
    /// When the visitor last pressed, turned or showed anything (scheduler nanoseconds).
    private(set) var lastVisitorInput: UInt64 = 0
    /// The minute timer (opening hours and the heartbeat) runs.
    private(set) var ticking = false
    /// Outside opening hours: silent, inputs ignored.
    private(set) var closed = false
    /// Why the opening hours are not applied (the clock), logged once per change.
    private(set) var hoursNotApplied: String?
    let counts: PlayCounts
    /// The daily restart's minute came while a clip played: it follows once none does.
    private(set) var restartDue = false
    /// The last error, for the heartbeat.
    private(set) var lastError: String?
    /// When the session began (scheduler nanoseconds), for the heartbeat's uptime.
    let startedAt: UInt64
    /// The heartbeat last sent, without its uptime (a change sends at once).
    private var lastStatus = ""

    /// The loop timers of exhibit mode, armed and disarmed through `Player.apply(_:)`
    /// (`PlayerEffect.armExhibit`), at most one of each.
    enum Alarm: Hashable {
        /// Every minute: the opening hours, the daily restart and the heartbeat.
        case minute
        /// The attract loop comes back after a clip's silence.
        case attractReturn
        /// The visitor has left: the staff's volume and the first language come back.
        case visitorLeft
    }

    init(config: ExhibitConfig, stateDirectory: String, startedAt: UInt64) {
        self.config = config
        base = config
        triggers = ClipTriggers(config: config)
        counts = PlayCounts(directory: stateDirectory)
        self.startedAt = startedAt
    }

    /// Whether the opening hours have the exhibit open now (no hours, or a clock that cannot be
    /// trusted: open, and `hoursNotApplied` says why).
    func isOpenNow() -> Bool {
        guard !config.hours.isEmpty else { return true }
        if let why = clock.unsynchronized() {
            if hoursNotApplied != why { Log.warning("exhibit: opening hours not applied: \(why)") }
            hoursNotApplied = why
            return true
        }
        if hoursNotApplied != nil { Log.info("exhibit: the clock is synchronized: opening hours apply") }
        hoursNotApplied = nil
        let local = clock.now()
        return OpeningHours.isOpen(config.hours, weekday: local.weekday, minute: local.minute)
    }

    /// Uses `station` (from volume `volume`; nil: config.json's again); the rules start over.
    func use(_ station: ExhibitConfig?, from volume: String?) {
        config = station ?? base
        stationVolume = station == nil ? nil : volume
        triggers = ClipTriggers(config: config)
        language = 0
    }

    /// The clip set's folder the next clip is looked up in first (nil: no languages).
    var languageFolder: String? {
        config.languages.indices.contains(language) ? config.languages[language].folder : nil
    }

    /// The clip bound to `input`, if any.
    func clip(for input: ExhibitConfig.Input) -> ExhibitConfig.Clip? { config.clip(for: input) }

    /// The next clip set (wrapping); its name.
    func cycleLanguage() -> String? {
        guard !config.languages.isEmpty else { return nil }
        language = (language + 1) % config.languages.count
        return config.languages[language].name
    }

    // MARK: - what happened

    /// The minute timer is to run: true the first time (arm it then).
    func startTicking() -> Bool {
        defer { ticking = true }
        return !ticking
    }

    /// Clip `name`'s input went down (or up) at `now`: what the trigger rules decide, and their state
    /// before it, for `undo` when the clip cannot play.
    func trigger(_ name: String, down: Bool, at now: UInt64) -> (effect: ClipTriggers.Effect, before: ClipTriggers) {
        let before = triggers
        return (down ? triggers.pressed(name, at: now) : triggers.released(name, at: now), before)
    }

    /// A clip that could not play leaves the rules as they were before its input.
    func undo(to before: ClipTriggers) { triggers = before }

    /// The clip playing ended at `now`.
    func clipEnded(at now: UInt64) -> ClipTriggers.Effect { triggers.clipEnded(at: now) }

    /// The rules' deadline (the attract loop's return) passed at `now`.
    func advance(to now: UInt64) -> ClipTriggers.Effect { triggers.advance(to: now) }

    /// The visitor touched something at `now`.
    func visitorCame(at now: UInt64) { lastVisitorInput = now }

    /// The visitor has left: the first clip set again.
    func visitorLeft() { language = 0 }

    /// Something went wrong, for the heartbeat.
    func noteError(_ text: String) { lastError = text }

    /// The opening hours closed it: silent, the rules from their start.
    func close() {
        closed = true
        triggers = ClipTriggers(config: config)
    }

    /// The opening hours opened it again.
    func reopen() { closed = false }

    /// The minute timer rang `late` minutes after `restartAt`'s minute (0: in it): whether the daily
    /// restart is due now (a clip playing defers it, for an hour at most).
    func dailyRestartDue(minutesLate late: Int) -> Bool {
        if late == 0 { restartDue = true } else if late >= 60 { restartDue = false }
        guard restartDue, triggers.playing == nil else { return false }
        restartDue = false
        return true
    }

    /// The heartbeat's content is `key` (without its uptime): true when it differs from the last sent.
    func statusChanged(to key: String) -> Bool {
        defer { lastStatus = key }
        return key != lastStatus
    }
}
