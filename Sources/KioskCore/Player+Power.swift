// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// The supply's voltage as the box's power watch reports it: low power shows (and, with speech,
/// says) a warning when it begins and sets the status light's `lowPower` state while it lasts.
/// Thread: the loop thread, like `Player`.
extension Player {
    /// The warning shown when the supply's voltage drops too low.
    public static let lowPowerMessage = MessageState(
        title: "Low power", detail: "The power supply is too weak: use the official one and a short cable",
        kind: .error)

    /// How long the warning shows.
    static let lowPowerMessageSeconds = 8

    /// Whether the supply's voltage is too low now.
    public var lowPower: Bool { isLowPower }

    /// The under-voltage alarm rose (`true`) or cleared. The warning shows once per onset; the
    /// light follows while it lasts.
    public func powerChanged(lowPower: Bool) {
        scheduler.assertInLoop()
        guard lowPower != isLowPower else { return }
        isLowPower = lowPower
        Log.warning(lowPower ? "power: under-voltage: the supply is too weak" : "power: the voltage is good again")
        if lowPower { showTransient(Self.lowPowerMessage, seconds: Self.lowPowerMessageSeconds) }
        refreshScreen()
    }
}
