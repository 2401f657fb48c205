import KioskSystem

/// Exhibit mode's state in the player: the trigger rules (`ClipTriggers`), the language the next
/// clip is looked up in, when the visitor last touched anything (volume and language go back to the
/// staff's after `volume.visitorIdleSeconds`), and the timer for the attract loop's return.
///
/// Thread: the loop thread, like `Player`, which owns it.
final class ExhibitSession {
    let config: ExhibitConfig
    var triggers: ClipTriggers
    /// Index into `config.languages` (0 when there are none).
    var language = 0
    /// When the visitor last pressed, turned or showed anything (scheduler nanoseconds).
    var lastVisitorInput: UInt64 = 0
    var attractTimer: TimerID?
    var visitorTimer: TimerID?

    init(config: ExhibitConfig) {
        self.config = config
        triggers = ClipTriggers(config: config)
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
}
