// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskCore
import KioskHardware
import KioskSystem

/// The board's output lines while the player runs (`outputs` of the profile): the power latch held
/// active from start to exit, the status and error lights following the player's `LightState`
/// events. A line that cannot be requested is logged and left out; the player plays on.
///
/// Thread: the loop thread (the scheduler's) only.
public final class BoardOutputLines: ApplianceService {
    private var latch: GPIOOutputLine?
    private var lines: [Int: GPIOOutputLine] = [:]
    private var lights: StatusLights?

    /// Requests the lines of `outputs` on the first chip of `chips` that exists.
    public init(outputs: BoardOutputs, chips: [String], scheduler: any Scheduler) {
        guard !outputs.isEmpty else { return }
        let chip: GPIOChip
        switch GPIOChip.find(chips) {
        case .success(let found): chip = found
        case .failure(let error):
            Log.error("outputs: \(error); no status light or power latch")
            return
        }
        if let line = outputs.powerLatch {
            latch = Self.request(line, on: chip, active: true, use: "power latch")
            if latch != nil { Log.info("power latch: holding line \(line.line) on \(chip.path) active") }
        }
        for (line, use) in [(outputs.statusLight, "status light"), (outputs.errorLight, "error light")] {
            guard let line, let requested = Self.request(line, on: chip, active: false, use: use) else { continue }
            lines[line.line] = requested
        }
        lights = StatusLights(outputs: outputs, scheduler: scheduler) { [unowned self] line, lit in
            guard let output = self.lines[line.line] else { return }
            do throws(HardwareError) {
                try output.set(lit)
            } catch {
                // Once: a blinking light would log its failure four times a second.
                Log.error("outputs: \(error); the line is left alone from now on")
                self.lines[line.line] = nil
            }
        }
    }

    /// Follows the player's light state from now on.
    public static func make(_ context: ApplianceContext) throws -> (any ApplianceService)? {
        let board = context.resolved.board
        guard !board.outputs.isEmpty else { return nil }
        let service = BoardOutputLines(outputs: board.outputs, chips: board.gpioChips, scheduler: context.loop)
        service.show(context.player.currentLightState)
        context.player.listen(to: .light) { [unowned service] change in
            if case .light(let state) = change { service.show(state) }
        }
        return service
    }

    /// Shows `state` on the lights.
    public func show(_ state: LightState) {
        lights?.show(state)
    }

    /// The lights go off (their lines stay requested until the process ends); the power latch stays
    /// held (the line keeps its level after the process ends) until `kiosk-player power-latch
    /// release` at power-off.
    public func stop() {
        lights = nil
        for line in lines.values { try? line.set(false) }
    }

    static func request(_ line: BoardOutputs.Line, on chip: GPIOChip, active: Bool, use: String) -> GPIOOutputLine? {
        do throws(HardwareError) {
            return try GPIOOutputLine(
                chip: chip, offset: line.line, activeLow: line.activeLow, active: active, use: use)
        } catch {
            Log.error("outputs: \(error)")
            return nil
        }
    }
}

/// `kiosk-player power-latch release`: drives the board's power latch line inactive, which tells an
/// OnOff SHIM-style circuit to cut the power. Run by systemd-shutdown at power-off, after every
/// service stopped and the file systems were unmounted or made read-only.
///
/// Thread: any (one call at a time).
public enum PowerLatch {
    /// Requests the latch line of `board` driven to `active`; the caller holds the returned line
    /// as long as the level must stay (the line keeps its last level after release on the Pi).
    public static func drive(
        _ board: BoardProfile, active: Bool, chipDirectory: String = "/dev"
    ) throws(HardwareError) -> GPIOOutputLine {
        guard let line = board.outputs.powerLatch else {
            throw HardwareError(message: "the board profile \(board.name) has no outputs.powerLatch")
        }
        let chip = try GPIOChip.find(board.gpioChips, in: chipDirectory).get()
        return try GPIOOutputLine(
            chip: chip, offset: line.line, activeLow: line.activeLow, active: active, use: "power latch")
    }
}
