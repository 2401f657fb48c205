// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import KioskCore

/// The loop does work for a position report only when something shows the position (issue 52: `run`
/// with no screen spent its main thread building views four times a second for nobody).
@Suite struct QuietLoopTests {
    /// Position reports the engine made and status notices the player sent while `seconds` passed.
    private static func playing(_ rig: PlayerRig, seconds: Int) throws -> (positions: Int, notices: Int) {
        try rig.playFirst()
        var notices = 0
        rig.player.listen(to: .status) { _ in notices += 1 }
        let before = rig.audioEvents.count
        try rig.idle(seconds * 1_000)
        let positions = rig.audioEvents[before...].filter {
            if case .position = $0 { true } else { false }
        }.count
        return (positions, notices)
    }

    @Test func withNoScreenAPositionReportBuildsNoView() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        let heard = try Self.playing(rig, seconds: 3)
        #expect(heard.positions >= 8, "the engine reported \(heard.positions) positions")
        #expect(heard.notices == 0)
    }

    @Test func withAScreenEveryPositionReportIsShown() throws {
        let screen = RecordingScreen()
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], recordingScreen: screen)
        defer { rig.shutdown() }
        try rig.playFirst()
        let shownBefore = screen.shown.count
        let before = rig.audioEvents.count
        try rig.idle(3_000)
        let positions = rig.audioEvents[before...].filter {
            if case .position = $0 { true } else { false }
        }.count
        #expect(positions >= 8)
        #expect(screen.shown.count - shownBefore >= positions)
    }
}
