// SPDX-License-Identifier: GPL-3.0-or-later
import KioskFuzzTargets
import KioskSystem
import KioskTestSupport
import Testing

/// Every fuzz target runs its seed corpus (made as `make fuzz` makes it) and every input that once
/// crashed it (Tests/Fuzz/regressions/TARGET/) without trapping; every target has seeds.
@Suite struct FuzzCorpusTests {
    @Test(.tags(.integration)) func everyTargetRunsItsSeedsAndItsPastCrashes() throws {
        let dir = try TemporaryDirectory("kiosk-fuzz-seeds")
        defer { dir.remove() }
        let counts = try FuzzSeeds.write(to: dir.path, repository: TestPaths.repository)
        for target in FuzzTarget.allCases {
            #expect((counts[target] ?? 0) > 0, "\(target.rawValue) has seeds")
            let seeds = FuzzCorpus.files(at: dir.file(target.rawValue))
            let regressions = FuzzCorpus.files(at: TestPaths.repository + "/Tests/Fuzz/regressions/" + target.rawValue)
            for file in seeds + regressions { target.run(try Syscalls.readFile(file, limit: 1 << 24)) }
        }
    }
}
