// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskCore
import Testing

/// The trigger rules of exhibit mode, every mode against every kind of `interrupts`, in virtual
/// time (seconds turned into nanoseconds).
@Suite struct ClipTriggersTests {
    typealias Mode = ExhibitConfig.Mode
    typealias Effect = ClipTriggers.Effect

    static func s(_ seconds: Double) -> UInt64 { UInt64(seconds * 1_000_000_000) }

    /// Clip "a" in `mode`, clip "b" (oneShot) with `interrupts`, an attract loop 5 s after a clip.
    static func triggers(_ mode: Mode, bInterrupts: ExhibitConfig.Interrupts = .all) -> ClipTriggers {
        var config = ExhibitConfig()
        config.clips = [
            .init(name: "a", input: .button("A"), play: .file("a.flac"), mode: mode),
            .init(name: "b", input: .button("B"), play: .file("b.flac"), mode: .oneShot, interrupts: bInterrupts),
        ]
        config.attract = .init(play: .collection("Attract"), returnAfterSeconds: 5, fadeMs: 800)
        return ClipTriggers(config: config)
    }

    /// A step of a scenario: an input or an event at a time, and what it must do.
    enum Step {
        case press(String, Double, Effect)
        case release(String, Double, Effect)
        case ended(Double, Effect)
        case advance(Double, Effect)
    }

    static func run(_ t: inout ClipTriggers, _ steps: [Step]) -> [String] {
        var wrong: [String] = []
        for (i, step) in steps.enumerated() {
            let (got, want): (Effect, Effect)
            switch step {
            case .press(let clip, let at, let effect): (got, want) = (t.pressed(clip, at: s(at)), effect)
            case .release(let clip, let at, let effect): (got, want) = (t.released(clip, at: s(at)), effect)
            case .ended(let at, let effect): (got, want) = (t.clipEnded(at: s(at)), effect)
            case .advance(let at, let effect): (got, want) = (t.advance(to: s(at)), effect)
            }
            let same: Bool
            if case .ignored = want, case .ignored = got { same = true } else { same = got == want }
            if !same { wrong.append("step \(i) \(step): got \(got), want \(want)") }
        }
        return wrong
    }

    static let ignored = Effect.ignored("")

    /// A second press of a clip's own input while it plays, per mode.
    @Test(arguments: [
        (Mode.oneShot, [Step.press("a", 0, .play("a")), .press("a", 1, ignored), .ended(10, .stop)]),
        (Mode.retrigger, [Step.press("a", 0, .play("a")), .press("a", 1, .play("a")), .ended(10, .stop)]),
        (Mode.toggle, [Step.press("a", 0, .play("a")), .press("a", 1, .stop), .ended(2, ignored)]),
        (
            Mode.holdToPlay,
            [
                Step.press("a", 0, .play("a")), .release("a", 1, .stop), .press("a", 2, .play("a")),
                .release("a", 3, .stop),
            ]
        ),
    ])
    func aPressDuringItsOwnClip(mode: Mode, steps: [Step]) {
        var t = Self.triggers(mode)
        #expect(Self.run(&t, steps) == [], "\(mode)")
    }

    /// A press after the clip ended starts it again, in every mode.
    @Test(arguments: Mode.allCases)
    func aPressAfterTheClipEndedStartsItAgain(mode: Mode) {
        var t = Self.triggers(mode)
        let release: [Step] = mode == .holdToPlay ? [.release("a", 11, .stop)] : []
        let steps: [Step] =
            [.press("a", 0, .play("a")), .ended(10, .stop)] + release + [.press("a", 12, .play("a"))]
        #expect(Self.run(&t, steps) == [], "\(mode)")
    }

    /// Another input's clip cuts the playing one only where its `interrupts` allows it, whatever the
    /// playing clip's mode.
    @Test(arguments: Mode.allCases)
    func anotherClipInterruptsOnlyWhereAllowed(mode: Mode) {
        let cases: [(ExhibitConfig.Interrupts, Bool)] = [
            (.all, true), (.none, false), (.only(["a"]), true), (.only(["b"]), false),
        ]
        for (interrupts, cuts) in cases {
            var t = Self.triggers(mode, bInterrupts: interrupts)
            let steps: [Step] = [.press("a", 0, .play("a")), .press("b", 1, cuts ? .play("b") : Self.ignored)]
            #expect(Self.run(&t, steps) == [], "\(mode), b interrupts \(interrupts)")
            #expect(t.playing == (cuts ? "b" : "a"))
        }
    }

    @Test func aHoldToPlayClipReleasedEarlyStopsAndTheAttractLoopReturnsAfterItsSilence() {
        var t = Self.triggers(.holdToPlay)
        let steps: [Step] = [
            .press("a", 0, .play("a")), .release("a", 2, .stop), .advance(6.9, Self.ignored), .advance(7, .attract),
        ]
        #expect(Self.run(&t, steps) == [])
        #expect(t.state == .attract)
    }

    @Test func aHoldToPlayClipThatEndsWhileHeldStaysSilentUntilTheRelease() {
        var t = Self.triggers(.holdToPlay)
        let steps: [Step] = [
            .press("a", 0, .play("a")), .ended(10, .stop), .advance(30, Self.ignored), .release("a", 40, .stop),
            .advance(44.9, Self.ignored), .advance(45, .attract),
        ]
        #expect(Self.run(&t, steps) == [])
    }

    @Test func aHoldToPlayClipCutByAnotherIgnoresItsRelease() {
        var t = Self.triggers(.holdToPlay, bInterrupts: .all)
        let steps: [Step] = [.press("a", 0, .play("a")), .press("b", 1, .play("b")), .release("a", 2, Self.ignored)]
        #expect(Self.run(&t, steps) == [])
        #expect(t.playing == "b")
    }

    @Test func aPressInTheSilenceBeforeTheAttractLoopStartsTheClipAndCancelsTheReturn() {
        var t = Self.triggers(.oneShot)
        let steps: [Step] = [
            .press("a", 0, .play("a")), .ended(10, .stop), .press("b", 12, .play("b")), .advance(16, Self.ignored),
            .ended(20, .stop), .advance(25, .attract),
        ]
        #expect(Self.run(&t, steps) == [])
    }

    @Test func withoutAnAttractLoopTheBoxStaysSilentAfterAClip() {
        var config = ExhibitConfig()
        config.clips = [.init(name: "a", input: .button("A"), play: .file("a.flac"))]
        var t = ClipTriggers(config: config)
        #expect(Self.run(&t, [.press("a", 0, .play("a")), .ended(10, .stop), .advance(3600, Self.ignored)]) == [])
        #expect(t.nextDeadline == nil)
    }
}
