// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

extension Tag {
    /// A test that takes real time or the real system: it plays audio in real time, sleeps or waits
    /// on real timers for more than a few tens of milliseconds, spawns processes (the `kiosk-player`
    /// binary, mpd, mpc, encoders, python, mount), scans big generated sticks, or drives real kernel
    /// devices (uinput, gpio-sim, spidev, a framebuffer). `make test` runs it; `make test-unit` does
    /// not (Tests/unit-skip.sh).
    @Tag public static var integration: Self
}
