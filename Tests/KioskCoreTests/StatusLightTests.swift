// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskDisplay
import KioskInput
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// The status light as board data: `outputs` parsed with errors that name the key, each pattern's
/// levels over virtual time, and the player's states shown on the lights.
@Suite struct StatusLightTests {
    private func parse(_ outputs: String, extra: String = "") throws(ConfigError) -> BoardProfile {
        try BoardProfile.parse(
            Array(#"{"name": "test", \#(extra)"outputs": \#(outputs)}"#.utf8), file: "boards/test.json")
    }

    /// The levels of a light every 125 ms from now (sampled in the middle of each step), "1" lit.
    private static func levels(_ light: () -> Bool, on clock: VirtualClock, steps: Int) -> String {
        var text = ""
        clock.advance(byMilliseconds: 60)
        for step in 0..<steps {
            if step > 0 { clock.advance(byMilliseconds: 125) }
            text += light() ? "1" : "0"
        }
        return text
    }

    // MARK: - the profile

    @Test(arguments: [
        (
            #"{"statusLight": {"line": 12, "patterns": {"playing": "blink"}}}"#,
            #"boards/test.json: outputs.statusLight.patterns.playing: expected one of "steady", "slow", "fast", "off", got "blink""#
        ),
        (
            #"{"statusLight": {"line": 12, "patterns": {"sleeping": "off"}}}"#,
            "boards/test.json: outputs.statusLight.patterns.sleeping: unknown key (known keys: batteryLow, closed, error, linking, lowPower, paused, playing, ready, sleepSoon, stopped)"
        ),
        (#"{"statusLight": {"patterns": {}}}"#, "boards/test.json: outputs.statusLight.line: required"),
        (
            #"{"statusLight": {"line": 5000}}"#,
            "boards/test.json: outputs.statusLight.line: expected an integer 0…4095, got 5000"
        ),
        (
            #"{"powerLatch": {"line": 4, "activeHigh": true}}"#,
            "boards/test.json: outputs.powerLatch.activeHigh: unknown key (known keys: activeLow, line)"
        ),
        (
            #"{"errorLight": {"line": 16}}"#,
            "boards/test.json: outputs.errorLight: needs a statusLight too (the error light shows only errors)"
        ),
        (
            #"{"latch": {"line": 4}}"#,
            "boards/test.json: outputs.latch: unknown key (known keys: errorLight, powerLatch, statusLight)"
        ),
        (#"[12]"#, "boards/test.json: outputs: expected an object, got an array"),
        (
            #"{"statusLight": {"line": 5}, "powerLatch": {"line": 5}}"#,
            "boards/test.json: GPIO line 5 is used twice: by the status light and by the power latch"
        ),
    ])
    func outputErrorsNameTheKey(outputs: String, message: String) {
        expectError(describedAs: message) { try parse(outputs) }
    }

    @Test func aStatusLightOnAButtonsLineIsAnErrorNamingBoth() {
        expectError(describedAs: "boards/test.json: GPIO line 5 is used twice: by button A and by the status light") {
            try parse(
                #"{"statusLight": {"line": 5}}"#, extra: #""buttons": [{"name": "A", "line": 5, "press": "stop"}], "#)
        }
    }

    @Test func patternsTheProfileLeavesOutKeepTheirDefaults() throws {
        let board = try parse(
            #"{"statusLight": {"line": 12, "activeLow": true, "patterns": {"stopped": "steady"}}, "powerLatch": {"line": 4}}"#
        )
        #expect(board.outputs.statusLight == BoardOutputs.Line(line: 12, activeLow: true))
        #expect(board.outputs.powerLatch == BoardOutputs.Line(line: 4))
        #expect(board.outputs.errorLight == nil)
        #expect(
            board.outputs.patterns == [
                .playing: .steady, .paused: .slow, .stopped: .steady, .linking: .fast, .error: .fast, .lowPower: .fast,
                .ready: .slow, .closed: .off, .sleepSoon: .slow, .batteryLow: .fast,
            ])
        #expect(board.usedLines.contains { $0 == (12, "the status light") })
    }

    // MARK: - patterns on virtual time

    @Test(arguments: [
        (LightPattern.steady, "111111111"), (.off, "000000000"), (.slow, "111100001"), (.fast, "101010101"),
    ])
    func eachPatternDrivesItsLevelsOverTime(pattern: LightPattern, levels: String) {
        let clock = VirtualClock()
        var driven: [Bool] = []
        let light = BlinkingLight(scheduler: clock) { driven.append($0) }
        light.show(pattern)
        #expect(Self.levels({ driven.last ?? false }, on: clock, steps: 9) == levels)
        #expect(light.isLit == driven.last)
    }

    @Test func theSamePatternAgainKeepsTheBlinksRhythm() {
        let clock = VirtualClock()
        let light = BlinkingLight(scheduler: clock) { _ in }
        light.show(.slow)
        clock.advance(byMilliseconds: 300)
        light.show(.slow)
        clock.advance(byMilliseconds: 250)
        #expect(!light.isLit, "the blink went off 500 ms after it started, not 500 ms after the repeat")
    }

    @Test func aNewPatternStartsAtOnceAndTheOldTimerStops() {
        let clock = VirtualClock()
        let light = BlinkingLight(scheduler: clock) { _ in }
        light.show(.fast)
        clock.advance(byMilliseconds: 130)
        #expect(!light.isLit)
        light.show(.slow)
        #expect(light.isLit, "a blink starts lit")
        #expect(clock.pendingCount == 1)
        #expect(Self.levels({ light.isLit }, on: clock, steps: 8) == "11110000")
        light.show(.steady)
        #expect(clock.pendingCount == 0, "a steady light needs no timer")
    }

    @Test func withAnErrorLightAnErrorBlinksThereAndTheStatusLightKeepsShowingPlayback() throws {
        let board = try parse(#"{"statusLight": {"line": 12}, "errorLight": {"line": 16}}"#)
        let clock = VirtualClock()
        var level: [Int: Bool] = [:]
        let lights = StatusLights(outputs: board.outputs, scheduler: clock) { line, lit in level[line.line] = lit }
        lights.show(.playing)
        lights.show(.error)
        #expect(Self.levels({ level[16] ?? false }, on: clock, steps: 5) == "10101")
        #expect(level[12] == true, "the status light still shows playing")
        lights.show(.paused)
        #expect(level[16] == false)
        #expect(Self.levels({ level[12] ?? false }, on: clock, steps: 9) == "111100001")
    }

    @Test func withoutAnErrorLightTheStatusLightShowsTheError() throws {
        let board = try parse(#"{"statusLight": {"line": 12, "patterns": {"error": "slow", "playing": "off"}}}"#)
        let clock = VirtualClock()
        var lit = false
        let lights = StatusLights(outputs: board.outputs, scheduler: clock) { _, on in lit = on }
        lights.show(.playing)
        #expect(!lit)
        lights.show(.error)
        #expect(Self.levels({ lit }, on: clock, steps: 9) == "111100001")
    }

    // MARK: - the player's states

    @Test func thePlayersStatesReachTheLightAsTheyChange() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        let clock = try #require(rig.clock)
        var states: [LightState] = []
        var lit = false
        let lights = StatusLights(outputs: try parse(#"{"statusLight": {"line": 12}}"#).outputs, scheduler: clock) {
            _, on in lit = on
        }
        rig.player.listen(to: .light) { change in
            guard case .light(let state) = change else { return }
            states.append(state)
            lights.show(state)
        }
        try rig.playFirst()
        #expect(states.last == .playing)
        #expect(lit)
        try rig.press(.playPause)
        #expect(states.last == .paused)
        #expect(Self.levels({ lit }, on: clock, steps: 9) == "111100001")

        // A new card's prompt: linking, until it is linked.
        rig.player.handle(CardEvent(.presented, uid: CardUID("04A2B3C4")!, source: "test", timestampNs: rig.nowNs))
        try rig.idle(20)
        #expect(states.last == .linking)
        #expect(Self.levels({ lit }, on: clock, steps: 5) == "10101")
        try rig.press(.playFromStart)
        #expect(states.last == .paused)

        rig.player.showTransient(MessageState(title: "Cannot play x.flac", kind: .error), seconds: 4)
        rig.player.refreshScreen()
        #expect(states.last == .error)
        try rig.idle(5_000)
        #expect(states.last == .paused, "the error ends with its message")
        #expect(states == [.playing, .paused, .linking, .paused, .error, .paused], "one event per change")
    }
}

/// Low power (`Player.powerChanged`): a warning once per onset, the light's `lowPower` state while
/// it lasts.
@Suite struct LowPowerTests {
    @Test func underVoltageShowsAWarningAndHoldsTheLightInLowPowerUntilItClears() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        var states: [LightState] = []
        rig.player.listen(to: .light) { if case .light(let state) = $0 { states.append(state) } }
        try rig.playFirst()
        rig.player.powerChanged(lowPower: true)
        #expect(rig.player.transientMessage == Player.lowPowerMessage)
        #expect(states.last == .lowPower)
        try rig.idle(10_000)
        #expect(rig.player.transientMessage == nil, "the warning goes after its time")
        #expect(states.last == .lowPower, "the light shows low power while it lasts")
        rig.player.powerChanged(lowPower: false)
        #expect(states.last == .playing)
        #expect(states == [.playing, .lowPower, .playing])
    }

    @Test func theSameAlarmAgainShowsNoSecondWarning() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        try rig.playFirst()
        rig.player.powerChanged(lowPower: true)
        try rig.idle(10_000)
        rig.player.powerChanged(lowPower: true)
        #expect(rig.player.transientMessage == nil)
    }

    @Test func withAnErrorLightLowPowerShowsThereAndTheStatusLightKeepsPlayback() throws {
        var outputs = BoardOutputs()
        outputs.statusLight = .init(line: 1)
        outputs.errorLight = .init(line: 2)
        #expect(outputs.patterns(for: .lowPower).status == nil)
        #expect(outputs.patterns(for: .lowPower).error == .fast)
        outputs.errorLight = nil
        #expect(outputs.patterns(for: .lowPower).status == .fast)
    }
}

/// Linking outranks playback on the light (`Player.lightState`): whatever happens while a new card's
/// prompt waits and nobody presses a button — a remote client's pause and resume, a volume change, the
/// next track starting, the card shown again — the light blinks "linking" until the card is linked
/// (issue 47: scenario 23 saw it go back to "playing" mid-prompt). A button's press dismisses the
/// prompt first (`Player.handle(_:)`), and with it the linking.
@Suite struct LinkingLightTests {
    enum Step: String, CaseIterable, CustomTestStringConvertible {
        case pause, resume, volume, nextTrack, cardAgain
        var testDescription: String { rawValue }
    }

    static var orders: [[Step]] {
        func permutations(_ items: [Step]) -> [[Step]] {
            guard items.count > 1 else { return [items] }
            return items.indices.flatMap { i in
                var rest = items
                let first = rest.remove(at: i)
                return permutations(rest).map { [first] + $0 }
            }
        }
        return permutations(Step.allCases)
    }

    @Test(arguments: orders)
    func theLightShowsLinkingThroughWhatHappensMeanwhileInAnyOrder(order: [Step]) throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        try rig.playFirst()
        let card = CardUID("04A2B3C4")!
        rig.player.handle(CardEvent(.presented, uid: card, source: "test", timestampNs: rig.nowNs))
        try rig.idle(20)
        #expect(rig.player.currentLightState == .linking)
        for step in order {
            switch step {
            case .pause: rig.player.perform(.pause, from: .remote)
            case .resume: rig.player.perform(.resume, from: .remote)
            case .volume: rig.player.perform(.changeVolume(by: 5), from: .remote)
            case .nextTrack:
                let started = rig.tracksStarted
                rig.player.perform(.resume, from: .remote)
                #expect(try rig.run(seconds: 8) { rig.tracksStarted > started }, "the next track started")
            case .cardAgain:
                rig.player.handle(CardEvent(.presented, uid: card, source: "test", timestampNs: rig.nowNs))
            }
            try rig.idle(20)
            #expect(rig.player.currentLightState == .linking, "after \(order.map(\.rawValue))")
        }
        try rig.press(.playFromStart)
        #expect(rig.player.currentLightState == .playing || rig.player.currentLightState == .paused, "linked")
    }
}
