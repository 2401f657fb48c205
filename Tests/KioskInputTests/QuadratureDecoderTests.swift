// SPDX-License-Identifier: GPL-3.0-or-later
import KioskInput
import Testing

/// Gray-code states as (a, b) pairs: clockwise is 00 → 10 → 11 → 01 → 00.
private let cw: [(Bool, Bool)] = [(true, false), (true, true), (false, true), (false, false)]
private let ccw: [(Bool, Bool)] = [(false, true), (true, true), (true, false), (false, false)]

private func feed(_ decoder: inout QuadratureDecoder, _ states: [(Bool, Bool)]) -> [Int] {
    states.map { decoder.update(a: $0.0, b: $0.1) }.filter { $0 != 0 }
}

@Suite struct QuadratureDecoderTests {
    @Test func clockwiseCyclesCountOneDetentEachAtTheRestState() {
        var d = QuadratureDecoder(stepsPerDetent: 4, a: false, b: false)
        let emitted = (0..<3).flatMap { _ in cw }.map { d.update(a: $0.0, b: $0.1) }
        #expect(emitted == [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1])
        #expect(d.invalidTransitions == 0)
    }

    @Test func counterClockwiseCountsNegative() {
        var d = QuadratureDecoder(stepsPerDetent: 4, a: false, b: false)
        #expect(feed(&d, ccw + ccw) == [-1, -1])
    }

    @Test func restStateIsWhereTheEncoderStarted() {
        // Pull-ups, contacts open: both lines high at rest.
        var d = QuadratureDecoder(stepsPerDetent: 4, a: true, b: true)
        let cycle: [(Bool, Bool)] = [(false, true), (false, false), (true, false), (true, true)]
        #expect(d.update(a: false, b: true) == 0)
        #expect(feed(&d, Array(cycle.dropFirst())) == [1])
        #expect(feed(&d, cycle) == [1])
    }

    @Test func bounceBetweenNeighbouringStatesCancelsOut() {
        var d = QuadratureDecoder(stepsPerDetent: 4, a: false, b: false)
        // Every transition bounces twice before it settles.
        var states: [(Bool, Bool)] = []
        var previous = (false, false)
        for state in cw + cw {
            states += [state, previous, state, previous, state]
            previous = state
        }
        #expect(feed(&d, states) == [1, 1])
        #expect(d.invalidTransitions == 0)
    }

    @Test func wobbleAroundTheRestPositionCountsNothing() {
        var d = QuadratureDecoder(stepsPerDetent: 4, a: false, b: false)
        let wobble: [(Bool, Bool)] = [
            (true, false), (false, false), (false, true), (false, false), (true, false), (false, false),
        ]
        #expect(feed(&d, wobble).isEmpty)
    }

    @Test func transitionChangingBothLinesIsRejectedAndTheDetentStillCounts() {
        var d = QuadratureDecoder(stepsPerDetent: 4, a: false, b: false)
        // 00 → 10 → (11 missed) → 01 → 00: 10 → 01 changes both lines.
        #expect(feed(&d, [(true, false), (false, true), (false, false)]) == [1])
        #expect(d.invalidTransitions == 1)
        // Two states missed in a row (00 → 11 directly) in a counter-clockwise turn.
        #expect(feed(&d, [(true, true), (true, false), (false, false)]) == [-1])
        #expect(d.invalidTransitions == 2)
    }

    @Test func missedRestStateCountsBothDetentsAtTheNextOne() {
        var d = QuadratureDecoder(stepsPerDetent: 4, a: false, b: false)
        // Fast: 00 → 10 → 11 → 01 → (00 missed) → 10 is invalid from 01; → 11 → 01 → 00.
        let states: [(Bool, Bool)] = [
            (true, false), (true, true), (false, true), (true, false), (true, true), (false, true), (false, false),
        ]
        #expect(feed(&d, states) == [2])
    }

    @Test func twoStepsPerDetentHasTwoRestStates() {
        var d = QuadratureDecoder(stepsPerDetent: 2, a: false, b: false)
        #expect(cw.map { d.update(a: $0.0, b: $0.1) } == [0, 1, 0, 1])
        #expect(feed(&d, ccw) == [-1, -1])
    }

    @Test func oneStepPerDetentCountsEveryTransition() {
        var d = QuadratureDecoder(stepsPerDetent: 1, a: false, b: false)
        #expect(cw.map { d.update(a: $0.0, b: $0.1) } == [1, 1, 1, 1])
        #expect(d.update(a: true, b: true) == 0)  // 00 → 11: invalid, not counted
        #expect(d.invalidTransitions == 1)
        #expect(d.update(a: true, b: false) == -1)
    }
}

@Suite struct EncoderAccelerationTests {
    private func steps(intervalsMs: [Double], curve: EncoderAcceleration.Curve = .standard, direction: Int = 1) -> [Int]
    {
        var acceleration = EncoderAcceleration(curve: curve)
        var t = 0.0
        return intervalsMs.map { interval in
            t += interval
            return acceleration.steps(detents: direction, at: Recording.ns(t))
        }
    }

    @Test func slowTurningIsOneStepPerDetent() {
        #expect(steps(intervalsMs: Array(repeating: 200, count: 10)) == Array(repeating: 1, count: 10))
    }

    @Test func fastTurningRampsUpSmoothly() {
        // 40 ms per detent = 25 detents/s: the estimate goes 0, 12.5, 18.75, 21.9, 23.4 …
        #expect(steps(intervalsMs: Array(repeating: 40, count: 6)) == [1, 2, 2, 4, 4, 4])
        // 10 ms per detent = 100 detents/s.
        #expect(steps(intervalsMs: Array(repeating: 10, count: 4)) == [1, 8, 8, 8])
    }

    @Test func pauseOrDirectionChangeStartsOver() {
        var acceleration = EncoderAcceleration()
        var results: [Int] = []
        for i in 0..<5 { results.append(acceleration.steps(detents: 1, at: Recording.ns(Double(i) * 10))) }
        results.append(acceleration.steps(detents: -1, at: Recording.ns(50)))
        results.append(acceleration.steps(detents: -1, at: Recording.ns(60)))
        results.append(acceleration.steps(detents: -1, at: Recording.ns(400)))
        #expect(results == [1, 8, 8, 8, 8, 1, 8, 1])
    }

    @Test func customCurve() {
        let curve = EncoderAcceleration.Curve([.init(5, 3)])
        #expect(steps(intervalsMs: [100, 100, 100], curve: curve) == [1, 3, 3])
    }

    @Test func severalDetentsAtOnceAreMultiplied() {
        var acceleration = EncoderAcceleration()
        #expect(acceleration.steps(detents: -2, at: Recording.ns(0)) == 2)
        #expect(acceleration.steps(detents: -2, at: Recording.ns(10)) == 16)  // 200 detents/s: 8× each
    }
}
