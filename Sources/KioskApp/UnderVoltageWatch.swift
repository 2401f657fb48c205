// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
import KioskDoctor
import KioskSystem

/// Watches the Pi's under-voltage alarm while the player runs: the kernel's `rpi_volt` hwmon
/// device (drivers/hwmon/raspberrypi-hwmon.c in raspberrypi/linux) asks the firmware every 2 s and
/// raises `in0_lcrit_alarm` while the supply is below about 4.63 V; this reads it as often and
/// tells the player when it changes (`Player.powerChanged`: a warning, the status light's
/// `lowPower`). Without `rpi_volt` (not a Pi, or the driver not loaded) there is nothing to watch.
///
/// Thread: the loop thread (the scheduler's) only.
public final class UnderVoltageWatch: ApplianceService {
    /// How often the alarm is read: the driver's own polling interval.
    public static let intervalMilliseconds = 2000

    private let root: SystemRoot
    private let alarmPath: String
    private let onChange: (Bool) -> Void
    private let scheduler: any Scheduler
    private var timer: TimerID?
    private var low = false

    /// A watch of `root`'s `rpi_volt` device, nil when it has none. `onChange` gets each change.
    public init?(root: SystemRoot = .live, scheduler: any Scheduler, onChange: @escaping (Bool) -> Void) {
        guard let dir = PowerCheck.hwmon(root) else { return nil }
        self.root = root
        alarmPath = "\(dir)/in0_lcrit_alarm"
        self.scheduler = scheduler
        self.onChange = onChange
    }

    /// Reads the alarm now and then every `intervalMilliseconds`.
    public func start() {
        check()
        timer = scheduler.schedule(
            afterMilliseconds: Self.intervalMilliseconds, repeatingMilliseconds: Self.intervalMilliseconds
        ) {
            [unowned self] in self.check()
        }
    }

    /// Reads the alarm; a change goes to `onChange`. A value that cannot be read counts as no alarm.
    public func check() {
        let now = root.value(alarmPath) == "1"
        guard now != low else { return }
        low = now
        onChange(now)
    }

    public func stop() {
        if let timer { scheduler.cancel(timer) }
        timer = nil
    }

    /// Follows the board's supply when it has an `rpi_volt` device.
    public static func make(_ context: ApplianceContext) throws -> (any ApplianceService)? {
        let player = context.player
        guard let watch = UnderVoltageWatch(scheduler: context.loop, onChange: { player.powerChanged(lowPower: $0) })
        else { return nil }
        Log.info("power: watching \(watch.alarmPath) for under-voltage")
        watch.start()
        return watch
    }
}
