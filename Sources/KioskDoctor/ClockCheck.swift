// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem

/// The clock, for an exhibit with opening hours or bedtime rules with windows or a wake time: they
/// are applied only when the clock can be trusted (`ExhibitClock.unsynchronizedReason`); a box
/// with neither network nor RTC is told how to get one.
///
/// Thread: any (reads files).
public enum ClockCheck {
    public static func lines(_ context: DoctorContext) -> [DoctorLine] {
        let config = context.resolved.config
        let hours = !(config.exhibit?.hours.isEmpty ?? true)
        let bedtime = config.bedtime.map { !$0.windows.isEmpty || $0.wake != nil } ?? false
        guard hours || bedtime else { return [] }
        let rules = hours ? "the opening hours" : "the bedtime windows and wake time"
        let live = context.root.prefix.isEmpty
        let why = ExhibitClock.unsynchronizedReason(
            exists: context.root.exists, read: { context.root.text($0, limit: 64) },
            kernelSynchronized: live && Syscalls.kernelClockSynchronized)
        guard let why else { return [.pass("clock", "the clock is synchronized: \(rules) apply")] }
        let effect = hours ? "the exhibit plays all day" : "the daily budget counts from the last known time"
        return [
            .fail(
                "clock", "\(why): \(rules) are not applied, \(effect)",
                fix:
                    "give the box a network with NTP (timedatectl set-ntp true), or an RTC module on I2C (e.g. a DS3231 with dtoverlay=i2c-rtc,ds3231 in config.txt)"
            )
        ]
    }
}
