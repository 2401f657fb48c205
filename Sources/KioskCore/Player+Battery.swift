// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// The box's battery (config `battery`, the `BatteryGuard` part) as the player applies it: each
/// reading the app's watch makes goes to the part; the level shows on now playing ("battery 42%",
/// "charging 80%"); "Battery low" shows, is said and sets the light's `batteryLow` while the box
/// runs from the battery; "Battery almost empty, turning off" shows, is said, and the box shuts
/// down as by its shutdown control, but paused where it was rather than stopped (the resume point
/// saved first, then the power-off request).
/// Thread: the loop thread, like `Player`.
extension Player {
    /// The message of the first warning.
    static func batteryLowMessage(percent: Int) -> MessageState {
        MessageState(title: "Battery low", detail: "\(percent)% left: connect the charger", kind: .error)
    }

    /// The message before the box turns itself off.
    static func batteryEmptyMessage(percent: Int) -> MessageState {
        MessageState(title: "Battery almost empty, turning off", detail: "\(percent)% left", kind: .error)
    }

    /// How long the warnings show.
    static let batteryMessageSeconds = 8

    /// A reading of the gauge (the app's `BatteryWatch`).
    public func batteryRead(_ level: BatteryLevel) {
        scheduler.assertInLoop()
        guard !shuttingDown else { return }
        apply(battery?.handle(.read(level, now: scheduler.nowNanoseconds)) ?? [])
    }

    /// The gauge gave no reading, for `reason` (the app's `BatteryWatch`).
    public func batteryFailed(_ reason: String) {
        scheduler.assertInLoop()
        guard !shuttingDown else { return }
        apply(battery?.handle(.failed(reason, now: scheduler.nowNanoseconds)) ?? [])
    }

    /// The last good reading (nil: none, or the gauge failed since; or no battery).
    public var batteryLevel: BatteryLevel? { battery?.level }

    /// Whether the battery is low and the box runs from it (the light's `batteryLow`).
    public var isBatteryLow: Bool { battery?.isLow ?? false }

    /// The level as now playing shows it beside the category.
    var batteryLabel: String? {
        guard let level = battery?.level else { return nil }
        return "\(level.onExternalPower ? "charging" : "battery") \(level.percent)%"
    }

    /// Shows, says and does what the part decided.
    func tellBattery(_ outcome: BatteryGuard.Outcome) {
        switch outcome {
        case .low(let percent):
            sayBattery(Self.batteryLowMessage(percent: percent))
            refreshScreen()
        case .empty(let percent):
            sayBattery(Self.batteryEmptyMessage(percent: percent))
            refreshScreen()
            // The resume point (the track, where the sound ended) is saved and flushed before the
            // power-off request leaves.
            requestShutdown(keepingPlace: true)
        case .gaugeFailed(let reason):
            Log.warning("battery: no reading: \(reason) (nothing is turned off on a missing reading)")
        case .gaugeBack(let level):
            Log.notice(
                "battery: the gauge reads again: \(level.percent)%\(level.millivolts.map { ", \($0) mV" } ?? "")")
        }
    }

    private func sayBattery(_ message: MessageState) {
        showTransient(message, seconds: Self.batteryMessageSeconds)
        // With speech off the announcer says nothing: the battery's words are said anyway.
        if announcer.mode == .off, config.battery?.speak ?? false { send(.speak(SpokenForm.text(message))) }
    }
}
