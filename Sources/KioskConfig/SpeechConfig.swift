// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// Spoken prompts (`speech`): whether the box speaks its messages, in which espeak-ng voice, how loud.
///
/// Thread: a value; any.
public struct SpeechConfig: Sendable, Equatable {
    public enum Mode: String, Sendable, Equatable, CaseIterable {
        /// Silent.
        case off
        /// Every message the screen shows is also spoken.
        case prompts
        /// Prompts, and the name of each collection or category the next/previous buttons move to.
        case names
    }

    /// nil: the board's default (`prompts` without a screen, `off` with one).
    public var mode: Mode?
    /// An espeak-ng voice ("en", "de", "en-us"...).
    public var language = "en"
    /// Percent, with the volume's law.
    public var volume = 80
    /// Whether a playing track goes on under a prompt, lowered by `duckDb`, instead of pausing for it.
    public var duck = false
    /// How far a ducked track is lowered, in dB (negative).
    public var duckDb = -15.0

    public init(mode: Mode? = nil, language: String = "en", volume: Int = 80, duck: Bool = false, duckDb: Double = -15)
    {
        self.mode = mode
        self.language = language
        self.volume = volume
        self.duck = duck
        self.duckDb = duckDb
    }

    /// Reads the `speech` object; errors name the key.
    static func parse(_ r: JSONReader) throws(ConfigError) -> SpeechConfig {
        var s = SpeechConfig()
        s.mode = try r.choice("mode", Mode.self)
        if let language = try r.string("language") {
            // An espeak-ng voice name: letters, digits and -_+/ (the variant after +).
            guard language.utf8.count <= 40,
                language.unicodeScalars.allSatisfy({
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                        || "-_+/".unicodeScalars.contains($0)
                })
            else {
                throw r.error(
                    "language", "expected an espeak-ng voice name such as \"en\" or \"de\", got \"\(language)\"")
            }
            s.language = language
        }
        s.volume = try r.int("volume", range: 0...100) ?? s.volume
        s.duck = try r.bool("duck") ?? s.duck
        s.duckDb = try r.double("duckDb", range: -40 ... -3) ?? s.duckDb
        try r.finish()
        return s
    }
}
