// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem

/// The clock, for an exhibit with opening hours: they are applied only when the clock can be
/// trusted (`ExhibitClock.unsynchronizedReason`); a station with neither network nor RTC is told
/// how to get one.
///
/// Thread: any (reads files).
public enum ClockCheck {
    public static func lines(_ context: DoctorContext) -> [DoctorLine] {
        guard let exhibit = context.resolved.config.exhibit, !exhibit.hours.isEmpty else { return [] }
        let live = context.root.prefix.isEmpty
        let why = ExhibitClock.unsynchronizedReason(
            exists: context.root.exists, read: { context.root.text($0, limit: 64) },
            kernelSynchronized: live && Syscalls.kernelClockSynchronized)
        guard let why else { return [.pass("clock", "the clock is synchronized: the opening hours apply")] }
        return [
            .fail(
                "clock", "\(why): the opening hours are not applied, the exhibit plays all day",
                fix:
                    "give the box a network with NTP (timedatectl set-ntp true), or an RTC module on I2C (e.g. a DS3231 with dtoverlay=i2c-rtc,ds3231 in config.txt)"
            )
        ]
    }
}
