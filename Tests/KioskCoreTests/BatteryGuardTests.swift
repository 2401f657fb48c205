// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import Testing

@testable import KioskCore

/// The battery as a part of the player: readings in, warnings and the turning off out, on a
/// test clock (seconds as monotonic ns). Low at 20%, empty at 5%, each held 30 s.
struct BatteryGuardTests {
    static let s: UInt64 = 1_000_000_000

    static func part() -> BatteryGuard { BatteryGuard(config: BatteryConfig()) }

    static func on(_ percent: Int) -> BatteryLevel { BatteryLevel(percent: percent, onExternalPower: false) }

    static func charging(_ percent: Int) -> BatteryLevel { BatteryLevel(percent: percent, onExternalPower: true) }

    /// The part's outcomes for readings every 10 s from t = 0.
    static func feed(_ part: inout BatteryGuard, _ readings: [BatteryLevel?], from start: UInt64 = 0) -> [BatteryGuard
        .Outcome]
    {
        var outcomes: [BatteryGuard.Outcome] = []
        for (i, reading) in readings.enumerated() {
            let now = start + UInt64(i) * 10 * s
            let event: BatteryGuard.Event = reading.map { .read($0, now: now) } ?? .failed("gone", now: now)
            for effect in part.handle(event) { if case .battery(let outcome) = effect { outcomes.append(outcome) } }
        }
        return outcomes
    }

    @Test func aLowLevelWarnsOnlyOnceItHeldForTheConfirmTime() {
        var part = Self.part()
        #expect(Self.feed(&part, [Self.on(19), Self.on(19), Self.on(18)]).isEmpty)
        #expect(Self.feed(&part, [Self.on(18)], from: 30 * Self.s) == [.low(percent: 18)])
        #expect(part.isLow)
    }

    @Test func theLowWarningComesOncePerDischarge() {
        var part = Self.part()
        let outcomes = Self.feed(&part, Array(repeating: Self.on(15), count: 10))
        #expect(outcomes == [.low(percent: 15)])
    }

    @Test func anEmptyLevelHeldForTheConfirmTimeTurnsTheBoxOffOnce() {
        var part = Self.part()
        let outcomes = Self.feed(&part, [Self.on(4), Self.on(4), Self.on(3), Self.on(3), Self.on(2), Self.on(2)])
        #expect(outcomes == [.empty(percent: 3)])
        #expect(part.turningOff)
    }

    @Test func oneAbsurdReadingOfZeroNeitherWarnsNorTurnsOff() {
        var part = Self.part()
        let outcomes = Self.feed(&part, [Self.on(80), Self.on(0), Self.on(80), Self.on(80), Self.on(80), Self.on(80)])
        #expect(outcomes.isEmpty)
        #expect(!part.turningOff && !part.isLow)
    }

    @Test func aReadingAboveTheLevelStartsTheCountAgain() {
        var part = Self.part()
        let outcomes = Self.feed(&part, [Self.on(3), Self.on(3), Self.on(3), Self.on(60), Self.on(3), Self.on(3)])
        #expect(outcomes.isEmpty)
    }

    @Test func aFailedReadingStartsTheCountAgainAndIsToldOnce() {
        var part = Self.part()
        let outcomes = Self.feed(&part, [Self.on(3), Self.on(3), Self.on(3), nil, nil, Self.on(3), Self.on(3)])
        #expect(outcomes == [.gaugeFailed("gone"), .gaugeBack(Self.on(3))])
        #expect(!part.turningOff)
    }

    @Test func aGaugeThatVanishesTurnsNothingOff() {
        var part = Self.part()
        let outcomes = Self.feed(&part, [Self.on(3), Self.on(3)] + Array(repeating: nil, count: 30))
        #expect(outcomes == [.gaugeFailed("gone")])
        #expect(!part.turningOff && part.level == nil)
    }

    @Test func onAChargerNothingCountsAndTheNextDischargeWarnsAgain() {
        var part = Self.part()
        _ = Self.feed(&part, Array(repeating: Self.on(15), count: 4))
        #expect(part.isLow)
        #expect(Self.feed(&part, Array(repeating: Self.charging(3), count: 10), from: 40 * Self.s).isEmpty)
        #expect(!part.isLow && !part.turningOff)
        let again = Self.feed(&part, Array(repeating: Self.on(15), count: 4), from: 200 * Self.s)
        #expect(again == [.low(percent: 15)])
    }

    @Test func aNewLevelAsksForARedraw() {
        var part = Self.part()
        #expect(part.handle(.read(Self.on(50), now: 0)) == [.redraw])
        #expect(part.handle(.read(Self.on(50), now: 10 * Self.s)).isEmpty)
        #expect(part.handle(.read(Self.on(49), now: 20 * Self.s)) == [.redraw])
    }

    @Test func withNoConfirmTimeTheFirstEmptyReadingCounts() {
        var config = BatteryConfig()
        config.confirmSeconds = 0
        var part = BatteryGuard(config: config)
        #expect(Self.feed(&part, [Self.on(2)]) == [.empty(percent: 2)])
    }
}
