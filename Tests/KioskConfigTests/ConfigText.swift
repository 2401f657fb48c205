// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem

/// config.json's text read as the player reads it, for the suites of its sections (exhibit,
/// bedtime). Thread: any (pure functions).
enum ConfigText {
    static func parse(_ text: String) throws(ConfigError) -> Config {
        try Config.parse(Array(text.utf8), file: "config.json")
    }

    /// The message `text` is refused with, as the player says it; nil when it is taken.
    static func error(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error.description
        }
    }
}
