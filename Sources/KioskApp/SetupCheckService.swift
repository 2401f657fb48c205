// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskCore
import KioskDoctor
import KioskSystem

/// The doctor inside the running player: at start, on a worker thread, it runs the checks that do
/// not touch what the player owns (no audio device or reader opened, sticks not scanned) and hands
/// its lines to the player: the failed ones for the menu ("Setup check"), all for the phone page; every 2 s, on the loop, it reads the
/// `rpi_volt` under-voltage alarm (a sysfs attribute the kernel driver keeps current) and shows a
/// warning in the status line while it is raised.
///
/// Thread: made, polled and stopped on the loop thread; the check runs on its own thread and posts
/// its result back to the loop.
public final class SetupCheckService {
    private let loop: EventLoop
    private var timer: TimerID?
    private var worker: KioskThread?

    /// The player, carried to the worker's post back to the loop (touched only there).
    private final class LoopBound: @unchecked Sendable {
        let player: Player
        init(_ player: Player) { self.player = player }
    }

    /// Starts the check for `player` of the box `resolved` describes, on `loop`.
    public init(loop: EventLoop, player: Player, resolved: ResolvedConfig) {
        self.loop = loop
        let handle = loop.handle
        let bound = LoopBound(player)
        worker = try? KioskThread(name: "setup-check") {
            let report = Doctor.run(
                DoctorContext(
                    root: .live, resolved: resolved, requestedBoard: resolved.board.name, scanSticks: false,
                    probeDevices: false))
            let lines = report.lines.map { line in
                SetupCheckState.Line(
                    group: line.check, status: SetupCheckState.Line.Status(rawValue: line.status.rawValue) ?? .info,
                    text: line.text, fix: line.fix)
            }
            let failed = report.failures.count
            handle.post {
                if failed > 0 {
                    Log.notice("setup check: \(failed) problem(s); `kiosk-player doctor` lists them with fixes")
                }
                bound.player.setSetupCheck(lines)
            }
        }
        if let hwmon = PowerCheck.hwmon(.live) {
            timer = loop.schedule(afterMilliseconds: 1000, repeatingMilliseconds: 2000) {
                let low = SystemRoot.live.value("\(hwmon)/in0_lcrit_alarm") == "1"
                player.setPowerWarning(low ? "Power supply too weak" : nil)
            }
        }
    }

    public func stop() {
        if let timer { loop.cancel(timer) }
        timer = nil
        worker?.join()
        worker = nil
    }
}
