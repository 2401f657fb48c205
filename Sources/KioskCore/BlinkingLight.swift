// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem

/// Drives one light in a `LightPattern` on the scheduler's timers: a new pattern starts at once
/// (lit first when it blinks) and the same pattern again changes nothing, so a blink keeps its
/// rhythm across refreshes. What drives the line is `drive` (a GPIO output line on the box, a
/// recording in tests).
///
/// Thread: the loop thread (the scheduler's) only.
public final class BlinkingLight {
    private let scheduler: any Scheduler
    private let drive: (Bool) -> Void
    private var timer: TimerID?
    public private(set) var pattern = LightPattern.off
    /// The level driven last.
    public private(set) var isLit = false

    /// Starts off (the line is driven inactive).
    public init(scheduler: any Scheduler, drive: @escaping (Bool) -> Void) {
        self.scheduler = scheduler
        self.drive = drive
        drive(false)
    }

    deinit {
        if let timer { scheduler.cancel(timer) }
    }

    public func show(_ next: LightPattern) {
        scheduler.assertInLoop()
        guard next != pattern else { return }
        pattern = next
        if let timer { scheduler.cancel(timer) }
        timer = nil
        set(next != .off)
        if let half = next.halfPeriodMilliseconds {
            timer = scheduler.schedule(afterMilliseconds: half, repeatingMilliseconds: half) { [weak self] in
                guard let self else { return }
                self.set(!self.isLit)
            }
        }
    }

    private func set(_ lit: Bool) {
        isLit = lit
        drive(lit)
    }
}
