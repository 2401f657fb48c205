// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// Follows the player for the live pages: one connection waits in MPD's `idle` for the player's
/// changes (a card shown or linked: `kioskcard`; playback, volume, options) and publishes each to
/// `PlayerEvents`. A lost connection is opened again after a second (the player restarting).
///
/// Thread: its own thread (`start`), until `stop`.
public final class PlayerWatcher: @unchecked Sendable {
    private let socketPath: String
    private let password: String?
    private let events: PlayerEvents
    private let running = Locked(true)
    private var thread: KioskThread?

    public init(socketPath: String, password: String?, events: PlayerEvents) {
        self.socketPath = socketPath
        self.password = password
        self.events = events
    }

    public func start() throws {
        thread = try KioskThread(name: "web-watch") { [self] in run() }
    }

    private func run() {
        var complained = false
        while running.withLock({ $0 }) {
            do {
                // No timeout while idle: the player answers when something changes.
                let connection = try PlayerConnection(
                    socketPath: socketPath, password: password, timeoutMilliseconds: 0)
                if complained { Log.notice("web: the player answers again") }
                complained = false
                events.publish("status", "{}")
                while running.withLock({ $0 }) {
                    let changed = try connection.command(
                        "idle", ["kioskcard", "player", "mixer", "options", "playlist"])
                    let names = changed.filter { $0.name == "changed" }.map(\.value)
                    if names.contains("kioskcard") {
                        let state = try connection.command("kioskstate")
                        events.publish("card", PhoneAPI.cardEvent(state) ?? "{}")
                    }
                    if names.contains(where: { $0 != "kioskcard" }) { events.publish("status", "{}") }
                }
            } catch {
                if !complained { Log.warning("web: cannot follow the player at \(socketPath): \(error)") }
                complained = true
                usleep(1_000_000)
            }
        }
    }

    /// Ends the thread at the next change (the process is exiting; the stream's threads end with
    /// `PlayerEvents.stop`).
    public func stop() { running.withLock { $0 = false } }
}
