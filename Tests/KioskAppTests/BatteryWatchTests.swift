// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskConfig
import KioskDoctor
import KioskHardware
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskApp

/// `BatteryWatch` over a fake sysfs: the gauge read on the watch's thread every `pollSeconds`,
/// each result handed over on the loop, a bad value or a gauge gone as a failure naming the file.
@Suite struct BatteryWatchTests {
    static let dir = "sys/class/power_supply/sbs-1-000b"

    final class Box {
        let sysfs: TemporaryDirectory
        let loop: EmbeddedLoop
        var results: [Result<BatteryCheck.Readout, GaugeProblem>] = []
        var watch: BatteryWatch!

        init() throws {
            sysfs = try TemporaryDirectory("kiosk-battery-watch")
            loop = try EmbeddedLoop()
            try sysfs.write("\(BatteryWatchTests.dir)/type", "Battery\n")
            try sysfs.write("\(BatteryWatchTests.dir)/status", "Discharging\n")
            try capacity("57")
            var config = BatteryConfig()
            config.pollSeconds = 5
            config.gauge = .powerSupply("sbs-1-000b")
            watch = try BatteryWatch(config: config, root: SystemRoot(prefix: sysfs.path), loop: loop) {
                [unowned self] in self.results.append($0)
            }
        }

        deinit {
            watch.stop()
            sysfs.remove()
        }

        func capacity(_ text: String) throws { try sysfs.write("\(BatteryWatchTests.dir)/capacity", text + "\n") }

        /// The results after `seconds` more of the loop's time, each read finished and delivered.
        func after(seconds: Int) -> [Result<BatteryCheck.Readout, GaugeProblem>] {
            loop.advanceTime(byMilliseconds: seconds * 1000)
            watch.waitForReads()
            loop.run()
            return results
        }
    }

    @Test func theGaugeIsReadAtStartAndEveryPoll() throws {
        let box = try Box()
        box.watch.start()
        #expect(box.after(seconds: 0).count == 1)
        #expect(try box.results.last?.get().percent == 57)
        try box.capacity("56")
        #expect(box.after(seconds: 5).count == 2)
        #expect(try box.results.last?.get().percent == 56)
        #expect(try box.results.last?.get().onExternalPower == false)
    }

    @Test func garbageIsAFailureNamingTheFile() throws {
        let box = try Box()
        try box.capacity("-1")
        box.watch.start()
        let last = box.after(seconds: 0).last
        #expect(last == .failure(.outOfRange("/\(Self.dir)/capacity", "-1", "0…100")))
    }

    @Test func aGaugeGoneIsAFailureAndNoReadAfterStop() throws {
        let box = try Box()
        box.watch.start()
        _ = box.after(seconds: 0)
        for name in ["type", "status", "capacity"] { unlink(box.sysfs.file("\(Self.dir)/\(name)")) }
        rmdir(box.sysfs.file(Self.dir))
        #expect(box.after(seconds: 5).last == .failure(.missing("/\(Self.dir)")))
        box.watch.stop()
        #expect(box.after(seconds: 20).count == 2)
    }
}
