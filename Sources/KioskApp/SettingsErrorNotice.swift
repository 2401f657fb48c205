// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
import KioskSystem

/// The settings file's error at start: on the SD-card image, `kiosk-settings` writes the error of a
/// settings file it could not apply to the file `KIOSK_SETTINGS_ERROR` names (the player unit's
/// drop-in sets it to /run/kiosk-settings/error); the player shows and says it once
/// (`Player.showSettingsError`) and plays on with the last good settings.
///
/// Thread: the loop thread (it runs once, when the appliance starts its services).
public enum SettingsErrorNotice {
    /// The environment variable that names the error file.
    public static let environmentVariable = "KIOSK_SETTINGS_ERROR"

    /// The error in the file at `path`: its first line, nil when the file is missing or empty.
    public static func read(path: String) -> String? {
        guard let bytes = try? Syscalls.readFile(path, limit: 64 << 10) else { return nil }
        let line = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).first
        let text = line.map { $0.trimmingWhitespace() } ?? ""
        return text.isEmpty ? nil : text
    }

    /// Shows the error when there is one; there is nothing to keep running.
    @Sendable public static func make(_ context: ApplianceContext) throws -> (any ApplianceService)? {
        guard let path = Syscalls.environment(environmentVariable), let error = read(path: path) else { return nil }
        context.player.showSettingsError(error)
        return nil
    }
}
