// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel
import KioskSystem

/// One hold of next or previous, turned into seek steps: its first event starts a run, later
/// repeats step at most every `intervalMs`, and steps grow once the run is `accelerateAfterMs` old.
/// Time is the events' timestamps, so the steps do not depend on when the loop got to them.
///
/// Thread: the loop thread, like `Player` (a value it owns).
struct SeekHold {
    let settings: SeekSettings
    private var run: (action: Action, source: String, repeatCount: Int, startNs: UInt64, lastStepNs: UInt64)?

    init(settings: SeekSettings) { self.settings = settings }

    /// The signed seconds `event` (a seek-forward or seek-backward) moves; nil when it comes too
    /// soon after the previous step of its hold.
    mutating func step(for event: ActionEvent) -> Int? {
        let t = event.timestampNs
        let sign = event.action == .seekBackward ? -1 : 1
        // Within one hold the repeat count grows: anything else is a new hold.
        guard let run, run.action == event.action, run.source == event.source,
            event.repeatCount > run.repeatCount, t >= run.lastStepNs
        else {
            self.run = (event.action, event.source, event.repeatCount, t, t)
            return sign * settings.stepSeconds
        }
        self.run?.repeatCount = event.repeatCount
        guard t - run.lastStepNs >= UInt64(settings.intervalMs) * 1_000_000 else { return nil }
        self.run?.lastStepNs = t
        let accelerated = t - run.startNs >= UInt64(settings.accelerateAfterMs) * 1_000_000
        return sign * (accelerated ? settings.acceleratedStepSeconds : settings.stepSeconds)
    }
}
