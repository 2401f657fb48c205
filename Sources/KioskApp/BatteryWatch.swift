// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskCore
import KioskDoctor
import KioskHardware
import KioskSystem

/// Reads the box's battery gauge (config `battery`) every `pollSeconds` while the player runs and
/// hands each reading, or why there was none, to the player (`Player.batteryRead`,
/// `batteryFailed`), which warns and turns the box off. Reading a gauge's sysfs file makes its
/// driver talk I2C to the chip (up to the adapter's timeout when the chip is gone), so the reads
/// run on a thread of their own (`kiosk-battery`), one at a time: at most one more waits while
/// one runs. What a reading means is `BatteryCheck.reading`, the doctor's.
///
/// Thread: `start`, `stop` and the timer on the loop thread; the reads on `kiosk-battery`; their
/// results come back to the loop through a `Mailbox`.
public final class BatteryWatch: ApplianceService {
    private let config: BatteryConfig
    private let gauge: BatteryGauge
    private let loop: any EventLoopProtocol
    private let results: Mailbox<Result<BatteryCheck.Readout, GaugeProblem>>
    private let worker: WorkerThread<Int>
    private var timer: TimerID?

    /// A watch of `config`'s gauge under `root`; each result goes to `onResult` on `loop`'s thread.
    init(
        config: BatteryConfig, root: SystemRoot = .live, loop: any EventLoopProtocol,
        onResult: @escaping (Result<BatteryCheck.Readout, GaugeProblem>) -> Void
    ) throws(Errno) {
        self.config = config
        self.loop = loop
        let gauge = BatteryCheck.gauge(config, root: root)
        self.gauge = gauge
        let results = Mailbox<Result<BatteryCheck.Readout, GaugeProblem>>(loop: loop, handler: onResult)
        self.results = results
        worker = try WorkerThread(name: "kiosk-battery", maxQueued: 1) { _ in
            results.send(BatteryCheck.reading(gauge, config))
        }
    }

    /// Waits until the reads asked for so far were made and their results posted to the loop
    /// (tests; the loop still has to run to deliver them).
    func waitForReads() { worker.waitUntilIdle() }

    /// Hands one result to the player (loop thread).
    static func deliver(_ result: Result<BatteryCheck.Readout, GaugeProblem>, to player: Player) {
        switch result {
        case .success(let r):
            player.batteryRead(
                BatteryLevel(percent: r.percent, onExternalPower: r.onExternalPower, millivolts: r.millivolts))
        case .failure(let problem):
            player.batteryFailed(problem.description)
        }
    }

    /// Reads now and then every `pollSeconds`.
    public func start() {
        tick()
        let ms = config.pollSeconds * 1000
        timer = loop.schedule(afterMilliseconds: ms, repeatingMilliseconds: ms) { [unowned self] in self.tick() }
    }

    /// One read; a read still waiting is replaced (`maxQueued` 1), a running one finishes first.
    private func tick() {
        worker.submit(0)
    }

    public func stop() {
        if let timer { loop.cancel(timer) }
        timer = nil
        worker.stop()
    }

    /// Follows the battery when config.json has a `battery` section.
    public static func make(_ context: ApplianceContext) throws -> (any ApplianceService)? {
        guard let config = context.resolved.config.battery else { return nil }
        let player = context.player
        let watch = try BatteryWatch(config: config, loop: context.loop) { [weak player] result in
            guard let player else { return }
            BatteryWatch.deliver(result, to: player)
        }
        Log.info(
            "battery: reading \(watch.gauge.source) every \(config.pollSeconds) s; low at \(config.lowPercent)%, off at \(config.emptyPercent)% (held \(config.confirmSeconds) s)"
        )
        watch.start()
        return watch
    }
}
