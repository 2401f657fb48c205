// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
import KioskDoctor
import KioskMPD
import KioskSystem

extension MPDServer: ApplianceService {}
extension SetupCheckService: ApplianceService {}

/// Plugs the MPD server into the appliance (`ApplianceOptions.services`). Thread: loop thread.
public enum MPDService {
    /// Starts a server when config.json's `mpd` section asks for one (`socket` and/or `listen`);
    /// nil otherwise (the default). A listener that cannot be opened is logged; the player runs on.
    public static func make(_ context: ApplianceContext) throws -> (any ApplianceService)? {
        let config = context.resolved.config
        guard var settings = try MPDSettings.from(config.mpd, file: config.file.isEmpty ? "config.json" : config.file)
        else { return nil }
        settings.stateDirectory = config.stateDirectory
        let server = MPDServer(loop: context.loop, player: context.player, library: context.library, settings: settings)
        do {
            try server.start()
        } catch {
            Log.error("mpd: remote control is off: \(error)")
            return nil
        }
        return server
    }
}

/// Plugs the doctor's setup check into the appliance (`ApplianceOptions.services`). Thread: loop
/// thread.
public enum SetupCheck {
    @Sendable public static func make(_ context: ApplianceContext) throws -> (any ApplianceService)? {
        SetupCheckService(loop: context.loop, player: context.player, resolved: context.resolved)
    }
}
