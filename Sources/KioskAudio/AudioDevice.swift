// SPDX-License-Identifier: GPL-3.0-or-later
/// Where audio goes, as configs, board profiles and the command line name it: "none" is the
/// silent sink paced by the clock (`ClockOutput`), any other name an ALSA PCM ("default",
/// "hw:CARD=DAC", "plughw:1,0"). Parsed once from the name; `name` gives it back.
///
/// Thread: a value; any thread.
public enum AudioDevice: Sendable, Hashable, CustomStringConvertible {
    /// No sound: frames are consumed in real time (`ClockOutput`).
    case silent
    /// An ALSA PCM by name.
    case alsa(pcm: String)

    /// The name that selects `silent`.
    public static let silentName = "none"

    /// The device a name selects: "none" is `silent`, anything else an ALSA PCM.
    public init(name: String) {
        self = name == Self.silentName ? .silent : .alsa(pcm: name)
    }

    /// The name as written in a config ("none" for `silent`).
    public var name: String {
        switch self {
        case .silent: Self.silentName
        case .alsa(let pcm): pcm
        }
    }

    public var description: String { name }
}
