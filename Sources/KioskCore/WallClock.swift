// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskConfig

/// The wall clock as the bedtime rules read it: seconds since 1970 UTC, whether the clock can be
/// trusted (`ExhibitClock.unsynchronizedReason`: NTP, or an RTC that set it at boot), and the local
/// time of any second (the process's time zone, daylight saving included). Tests give their own.
///
/// Thread: any (a value around functions).
public struct WallClock: Sendable {
    public let seconds: @Sendable () -> Int
    /// Nil when the clock is synchronized; else why not.
    public let unsynchronized: @Sendable () -> String?
    public let local: @Sendable (Int) -> ExhibitClock.Local

    public init(
        seconds: @escaping @Sendable () -> Int, unsynchronized: @escaping @Sendable () -> String?,
        local: @escaping @Sendable (Int) -> ExhibitClock.Local
    ) {
        self.seconds = seconds
        self.unsynchronized = unsynchronized
        self.local = local
    }

    /// The system's clock and time zone.
    public static let system = WallClock(
        seconds: { Int(time(nil)) }, unsynchronized: ExhibitClock.system.unsynchronized,
        local: { ExhibitClock.local(epochSeconds: $0) })
}
