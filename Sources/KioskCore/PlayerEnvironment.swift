// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel
import KioskSystem

/// What the player works with but does not own the state of: the timers' scheduler, the wall
/// clock, the engine, the screen, the config, the output supervisor and the bookmarks' memory. Only
/// `Player.apply(_:)` and the drawing of the screen are meant to reach the engine and the screen.
///
/// Thread: the loop thread (the player's).
struct PlayerEnvironment {
    let scheduler: any Scheduler
    let wallClock: WallClock
    let engine: any PlaybackEngine
    let screen: (any ScreenOutput)?
    let config: Config
    let output: OutputSupervisor
    let memory: CollectionMemory
}

/// The box's own state beside playback: shutting down, the button lock, the seek hold, low
/// power, what speech last said, the bedtime rules, the battery and Bluetooth headphones.
///
/// Thread: any (a value); the player's copy lives on the loop thread.
struct BoxState {
    var shuttingDown = false
    /// The button lock (`Player+Lock.swift`): inputs but the lock itself are ignored; kept over a
    /// restart.
    var locked: Bool
    /// How the box is told to unlock ("Hold down+select 3 s"), shown with "Locked"; nil: not said.
    var lockGesture: String?
    var seekHold: SeekHold
    /// The supply's under-voltage alarm is raised (`powerChanged`).
    var isLowPower = false
    var announcer = SpeechAnnouncer()
    /// The bedtime rules (`Player+Bedtime.swift`); nil: none configured.
    var bedtime: BedtimeRules?
    /// The battery's readings (`Player+Battery.swift`); nil: no battery configured.
    var battery: BatteryGuard?
    /// Bluetooth headphones (`Player+Bluetooth.swift`); nil: Bluetooth off.
    var bluetooth: BluetoothLink?
    /// What a stick offers (`Player+StickOffer.swift`): an update, a set to import, its undo.
    var stickOffer = StickOffer()
    /// The imported settings last handed to the writer (a stick's import, the phone page's change):
    /// the next change starts from these, as the file may not be written yet.
    var keptSettings: ImportedSettings?
    /// Where the confirmation of an update offer is written (`KIOSK_UPDATE_CONFIRM`); nil: offers
    /// cannot be taken (no updater on this system).
    var updateConfirmPath: String?
    /// Runs a set's export to a stick (`StickSet.export`) off the loop thread and hands its
    /// outcome to `stickSetExported` on the loop; nil: the export runs in place (tests).
    var stickSetExporter: ((_ mountPoint: String, _ text: String, _ summary: String) -> Void)?
    /// Looks at a stick that came for a set off the loop thread (`Player.stickSetLooker`).
    var stickSetLooker: ((_ mountPoint: String) -> Void)?
}
