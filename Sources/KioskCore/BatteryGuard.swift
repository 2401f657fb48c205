// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem

/// The charge of the box's battery as the app's watch read it (`BatteryWatch`): a percentage
/// (the gauge's own, or a voltage through the config's discharge curve) and whether the box runs
/// from something else (charging, full, a charger holding it).
///
/// Thread: any (a value).
public struct BatteryLevel: Sendable, Equatable {
    public var percent: Int
    public var onExternalPower: Bool
    /// The battery's voltage, when the gauge gives it (for the log and the doctor).
    public var millivolts: Int?

    public init(percent: Int, onExternalPower: Bool, millivolts: Int? = nil) {
        self.percent = percent
        self.onExternalPower = onExternalPower
        self.millivolts = millivolts
    }
}

/// A box on a battery (config `battery`) as a part of the player: what each reading of the gauge
/// means. At or below `lowPercent` the box says "Battery low" once per discharge; at or below
/// `emptyPercent` it says "Battery almost empty, turning off" and shuts down cleanly (the resume
/// point saved first), before the cell's protection cuts the power mid-write. A level counts only
/// when every reading for `confirmSeconds` (30 s by default, on the monotonic clock) was at or
/// below it while the box ran from the battery: one absurd reading warns of nothing and turns
/// nothing off, and a failed reading (garbage, out of range, a file gone, the gauge gone) starts
/// the count again. Charging, full or held by a charger, nothing counts.
///
/// A part of the player: its state changes only in `handle`, which returns what the player
/// carries out (`PlayerEffect.battery`, a redraw); it holds no scheduler.
///
/// Thread: any (a value); the player's copy lives on the loop thread.
struct BatteryGuard {
    /// What the player shows, says and does.
    enum Outcome: Equatable {
        /// "Battery low": the level stayed at or below `lowPercent`.
        case low(percent: Int)
        /// "Battery almost empty, turning off": the level stayed at or below `emptyPercent`; the
        /// box shuts down.
        case empty(percent: Int)
        /// The gauge gave no reading, for this reason (said once per new reason).
        case gaugeFailed(String)
        /// The gauge reads again after failing.
        case gaugeBack(BatteryLevel)
    }

    /// What happens.
    enum Event: Equatable {
        /// A reading at `now` (monotonic ns).
        case read(BatteryLevel, now: UInt64)
        /// The gauge gave no reading at `now`, for this reason.
        case failed(String, now: UInt64)
    }

    let config: BatteryConfig
    /// The last good reading; nil before the first and after a failure.
    private(set) var level: BatteryLevel?
    /// The low warning was given in this discharge.
    private(set) var warnedLow = false
    /// The box is turning off for an empty battery.
    private(set) var turningOff = false
    /// Since when every reading was at or below each level (monotonic ns).
    private var lowSince: UInt64?
    private var emptySince: UInt64?
    /// The reason of the last failure, until a good reading.
    private var failure: String?

    init(config: BatteryConfig) {
        self.config = config
    }

    /// Whether the battery is low now (the light shows it): the warning was given and the box
    /// still runs from the battery.
    var isLow: Bool { warnedLow && !(level?.onExternalPower ?? false) }

    mutating func handle(_ event: Event) -> [PlayerEffect] {
        switch event {
        case .read(let reading, let now):
            var effects: [PlayerEffect] = []
            if failure != nil {
                failure = nil
                effects.append(.battery(.gaugeBack(reading)))
            }
            if reading != level { effects.append(.redraw) }
            level = reading
            guard !reading.onExternalPower else {
                // A charger: nothing counts, and the next discharge warns again.
                lowSince = nil
                emptySince = nil
                warnedLow = false
                return effects
            }
            lowSince = reading.percent <= config.lowPercent ? lowSince ?? now : nil
            emptySince = reading.percent <= config.emptyPercent ? emptySince ?? now : nil
            let confirm = UInt64(config.confirmSeconds) * 1_000_000_000
            if let since = emptySince, now &- since >= confirm, !turningOff {
                turningOff = true
                warnedLow = true
                Log.warning(
                    "battery: \(reading.percent)% for \(config.confirmSeconds) s (empty at \(config.emptyPercent)%): turning off"
                )
                effects.append(.battery(.empty(percent: reading.percent)))
            } else if let since = lowSince, now &- since >= confirm, !warnedLow {
                warnedLow = true
                Log.warning(
                    "battery: \(reading.percent)% for \(config.confirmSeconds) s (low at \(config.lowPercent)%)")
                effects.append(.battery(.low(percent: reading.percent)))
            }
            return effects
        case .failed(let reason, _):
            // The count starts again: a level must be read, not assumed, for the whole time.
            lowSince = nil
            emptySince = nil
            var effects: [PlayerEffect] = []
            if level != nil {
                level = nil
                effects.append(.redraw)
            }
            if failure != reason {
                failure = reason
                effects.append(.battery(.gaugeFailed(reason)))
            }
            return effects
        }
    }
}
