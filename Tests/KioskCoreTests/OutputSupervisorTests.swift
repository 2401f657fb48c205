// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// Device fallback and return, in virtual time, on the fake engine (its device events).
@Suite struct OutputSupervisorTests {
    final class Rig {
        let clock = VirtualClock()
        let engine: FakeEngine
        let supervisor: OutputSupervisor
        var changes: [OutputChange] = []
        var present: Set<String> = ["dac", "hdmi", "none"]

        init(devices: [String] = ["dac", "hdmi"]) {
            engine = FakeEngine(clock: clock, device: devices[0])
            var opens: (String) -> Bool = { _ in false }
            supervisor = OutputSupervisor(engine: engine, scheduler: clock, devices: devices, opens: { opens($0) })
            opens = { [unowned self] in self.present.contains($0) }
            supervisor.onChange = { [unowned self] in self.changes.append($0) }
        }

        func lose(_ device: String) {
            present.remove(device)
            supervisor.handle(.deviceLost(device: device, message: "gone"))
        }
    }

    @Test func aLostDeviceIsReplacedByTheNextAfterTheDelay() {
        let rig = Rig()
        rig.lose("dac")
        rig.clock.advance(byMilliseconds: rig.supervisor.fallbackDelayMilliseconds - 1)
        #expect(rig.engine.device == "dac", "not before the delay")
        rig.clock.advance(byMilliseconds: 1)
        #expect(rig.engine.device == "hdmi")
        #expect(rig.supervisor.chosen == "dac")
        #expect(rig.changes == [.lost(device: "dac", message: "gone"), .fellBack(to: "hdmi", chosen: "dac")])
    }

    @Test func aDeviceBackWithinTheDelayStays() {
        let rig = Rig()
        rig.lose("dac")
        rig.clock.advance(byMilliseconds: 1000)
        rig.supervisor.handle(.deviceBack(device: "dac"))
        rig.clock.advance(byMilliseconds: 10_000)
        #expect(rig.engine.device == "dac")
        #expect(rig.changes.last == .back(device: "dac"))
    }

    @Test func theChosenDeviceIsTakenBackAtTheFirstProbeThatOpensIt() {
        let rig = Rig()
        rig.lose("dac")
        rig.clock.advance(byMilliseconds: rig.supervisor.fallbackDelayMilliseconds)
        rig.clock.advance(byMilliseconds: 3 * rig.supervisor.returnProbeMilliseconds)
        #expect(rig.engine.device == "hdmi", "still away")
        rig.present.insert("dac")
        rig.clock.advance(byMilliseconds: rig.supervisor.returnProbeMilliseconds)
        #expect(rig.engine.device == "dac")
        #expect(rig.changes.last == .returned(to: "dac"))
    }

    @Test func aDeviceThatKeepsFailingAfterItsReturnIsProbedLessOften() {
        let rig = Rig()
        let base = rig.supervisor.returnProbeMilliseconds
        var periods: [Int] = []
        for _ in 0..<6 {
            rig.lose("dac")
            rig.clock.advance(byMilliseconds: rig.supervisor.fallbackDelayMilliseconds)
            periods.append(rig.supervisor.probePeriodMilliseconds)
            rig.present.insert("dac")
            rig.clock.advance(byMilliseconds: rig.supervisor.probePeriodMilliseconds)
            #expect(rig.engine.device == "dac")
        }
        #expect(periods == [base, 2 * base, 4 * base, 8 * base, 16 * base, 16 * base])
        // A minute of staying resets the back-off.
        rig.clock.advance(byMilliseconds: 61_000)
        rig.lose("dac")
        rig.clock.advance(byMilliseconds: rig.supervisor.fallbackDelayMilliseconds)
        #expect(rig.supervisor.probePeriodMilliseconds == base)
    }

    @Test func withOneDeviceThereIsNothingToFallBackTo() {
        let rig = Rig(devices: ["dac"])
        rig.lose("dac")
        rig.clock.advance(byMilliseconds: 60_000)
        #expect(rig.engine.device == "dac")
        #expect(rig.changes == [.lost(device: "dac", message: "gone")])
    }

    @Test func choosingADeviceEndsTheFallback() {
        let rig = Rig(devices: ["dac", "hdmi", "none"])
        rig.lose("dac")
        rig.clock.advance(byMilliseconds: rig.supervisor.fallbackDelayMilliseconds)
        rig.supervisor.choose("none", by: "in a test")
        rig.present.insert("dac")
        rig.clock.advance(byMilliseconds: 60_000)
        #expect(rig.engine.device == "none")
        #expect(rig.supervisor.chosen == "none")
    }
}
