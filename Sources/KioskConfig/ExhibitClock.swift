// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// The wall clock as exhibit mode needs it: local weekday, minute and date (DST and a clock set by
/// NTP taken as they come, from `localtime_r`), and whether the clock can be trusted at all (a box
/// without network or RTC boots at some fake time: its opening hours must not be applied).
///
/// Thread: any (a value around functions).
public struct ExhibitClock: Sendable {
    /// Local time now: weekday (0 Sunday), minute since midnight, the date "YYYY-MM-DD".
    public struct Local: Sendable, Equatable {
        public var weekday: Int
        public var minute: Int
        public var date: String
        /// The local date as days since 1970-01-01, so that days can be counted across months.
        public var day = 0
    }

    public let now: @Sendable () -> Local
    /// Nil when the clock is synchronized; else why not, for the log and the doctor.
    public let unsynchronized: @Sendable () -> String?

    public init(now: @escaping @Sendable () -> Local, unsynchronized: @escaping @Sendable () -> String?) {
        self.now = now
        self.unsynchronized = unsynchronized
    }

    /// The system's clock: local time by the TZ rules, trusted as `unsynchronizedReason` says.
    public static let system = ExhibitClock(
        now: { local(epochSeconds: Int(time(nil))) },
        unsynchronized: {
            unsynchronizedReason(
                exists: Syscalls.exists,
                read: { path in (try? Syscalls.readFile(path, limit: 64)).map { String(decoding: $0, as: UTF8.self) } },
                kernelSynchronized: Syscalls.kernelClockSynchronized)
        })

    /// Why the clock cannot be trusted, or nil when it can: systemd-timesyncd synchronized it
    /// (/run/systemd/timesync/synchronized), the kernel's NTP status is synchronized (chrony, ntpd),
    /// or an RTC set it at boot (/sys/class/rtc/rtc0/hctosys is 1). The doctor asks the same.
    public static func unsynchronizedReason(
        exists: (String) -> Bool, read: (String) -> String?, kernelSynchronized: Bool
    ) -> String? {
        if exists("/run/systemd/timesync/synchronized") || kernelSynchronized { return nil }
        if read("/sys/class/rtc/rtc0/hctosys")?.hasPrefix("1") == true { return nil }
        let rtc = exists("/sys/class/rtc/rtc0") ? "an RTC is there but did not set the clock at boot" : "no RTC"
        return "the clock is not synchronized (no NTP sync, \(rtc))"
    }

    /// Local time at `epochSeconds` by the process's time zone.
    public static func local(epochSeconds: Int) -> Local {
        var t = time_t(epochSeconds)
        var parts = tm()
        localtime_r(&t, &parts)
        let date =
            "\(parts.tm_year + 1900)-\(parts.tm_mon + 1 < 10 ? "0" : "")\(parts.tm_mon + 1)-\(parts.tm_mday < 10 ? "0" : "")\(parts.tm_mday)"
        return Local(
            weekday: Int(parts.tm_wday), minute: Int(parts.tm_hour) * 60 + Int(parts.tm_min), date: date,
            day: daysSinceEpoch(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday)))
    }

    /// Days from 1970-01-01 to the civil date (proleptic Gregorian; Howard Hinnant's days_from_civil).
    public static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
