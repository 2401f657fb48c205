// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem

/// The board's status light and error light following the player's `LightState` events, with the
/// patterns of the profile (`BoardOutputs.patterns(for:)`).
///
/// Thread: the loop thread (the scheduler's) only.
public final class StatusLights {
    private let outputs: BoardOutputs
    private let status: BlinkingLight?
    private let error: BlinkingLight?

    /// - Parameter drive: drives the line (`statusLight` or `errorLight`) active or inactive.
    public init(outputs: BoardOutputs, scheduler: any Scheduler, drive: @escaping (BoardOutputs.Line, Bool) -> Void) {
        self.outputs = outputs
        status = outputs.statusLight.map { line in BlinkingLight(scheduler: scheduler) { drive(line, $0) } }
        error = outputs.errorLight.map { line in BlinkingLight(scheduler: scheduler) { drive(line, $0) } }
    }

    public func show(_ state: LightState) {
        let (statusPattern, errorPattern) = outputs.patterns(for: state)
        if let statusPattern { status?.show(statusPattern) }
        error?.show(errorPattern)
    }
}
