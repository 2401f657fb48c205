// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import Testing

/// Whether the suite runs on an emulated CPU (`make test ARCH=arm64` sets KIOSK_TEST_EMULATION to the
/// emulator, e.g. "qemu-user"). Thread: any.
public enum Emulation {
    public static let name: String? = Syscalls.environment("KIOSK_TEST_EMULATION")

    /// For suites whose tests race real-time playback (the real AudioEngine on the paced "none"
    /// sink, a separate player process) against scans and presses on the wall clock: under
    /// emulation a debug build is ~10–20× slower, so a 6 s fixture track ends before a scan does and
    /// the expectations describe another race. They run natively and in the aarch64 system test (a
    /// real kernel, the player at full emulated speed); the fake engine with virtual time
    /// (architecture issue) makes them independent of the clock.
    public static let wallClockPaced: ConditionTrait = .disabled(
        if: name != nil,
        Comment(
            rawValue: "races real-time playback on the wall clock, and this CPU is emulated (\(name ?? "")): "
                + "runs natively and in the aarch64 system test"))

    /// For CPU-bound stress tests (a 10 MB request line, 1000 connections at once): a debug build
    /// under qemu-user spends more than 20 minutes on them, longer than the rest of the suite. They
    /// test the server's bounds, which do not depend on the CPU; they run natively.
    public static let cpuBoundStress: ConditionTrait = .disabled(
        if: name != nil,
        Comment(
            rawValue: "CPU-bound stress, over 20 min on this emulated CPU (\(name ?? "")): runs natively"))
}
