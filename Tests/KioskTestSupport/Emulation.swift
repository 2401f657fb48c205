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
}
